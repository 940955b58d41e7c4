// GET /docs in a real browser (Debian's Chromium driven by playwright-core): the UI lists every
// operation of the served /openapi.json, "Try it out" reaches the live service at the page's own
// origin, nothing is loaded from another host, and a page of another origin can read the
// headers of a cross-origin POST (CORS). Loudly skipped where /usr/bin/chromium is missing,
// unless TUGAS_REQUIRE_SERVICES=1 (CI), where that fails the run.
// UPDATE_SCREENSHOT=1 also rewrites docs/docs-page.png, the screenshot in docs/openapi.md.

import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { dirname } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance } from 'fastify'
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core'
import { testApp } from '../support/helpers.js'
import { SERVICES_REQUIRED } from '../support/services.js'

const CHROMIUM = '/usr/bin/chromium'
const SCREENSHOT = fileURLToPath(new URL('../../docs/docs-page.png', import.meta.url))
const UPDATE_SCREENSHOT = process.env.UPDATE_SCREENSHOT === '1'

/** The `skip` option of the suite: false when Chromium is there, a loud reason otherwise. */
function skipWithoutChromium(): false | string {
  if (existsSync(CHROMIUM)) return false
  const reason = `the browser tests of /docs: ${CHROMIUM} is missing`
  if (SERVICES_REQUIRED) throw new Error(`${reason}; TUGAS_REQUIRE_SERVICES=1 requires it`)
  process.stderr.write(
    `\n*** SKIPPED: ${reason}. Install Debian's chromium (apt-get install chromium) to run them. ***\n\n`,
  )
  return `SKIPPED: ${reason}`
}

type Json = Record<string, unknown>

/**
 * `GET /tugas`, `POST /users`...: every operation of the document, sorted; with the requests
 * the service sends (`webhooks`), which Swagger UI shows by name (`POST tugas.created`).
 */
function documentedOperations(document: Json): string[] {
  const paths = {
    ...(document.paths as Record<string, Json>),
    ...(document.webhooks as Record<string, Json>),
  }
  return Object.entries(paths)
    .flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'].includes(key))
        .map((method) => `${method.toUpperCase()} ${path}`),
    )
    .sort()
}

/** The operation block Swagger UI renders for `method path`, whatever its tag. */
function operationBlock(page: Page, method: string, path: string) {
  return page
    .locator(`.opblock.opblock-${method.toLowerCase()}`)
    .filter({ has: page.locator(`.opblock-summary-path[data-path="${path}"]`) })
}

/** Expands an operation, presses "Try it out" then "Execute"; returns the live response block. */
async function tryItOut(page: Page, method: string, path: string, urlPath: string) {
  const block = operationBlock(page, method, path)
  await block.locator('.opblock-summary').first().click()
  await block.locator('button.try-out__btn').click()
  const sent = page.waitForRequest(
    (request) => request.method() === method && new URL(request.url()).pathname === urlPath,
  )
  await block.locator('button.execute').click()
  const request = await sent
  const live = block.locator('.live-responses-table tr.response')
  await live.waitFor()
  return { request, live }
}

describe('GET /docs in Chromium', { skip: skipWithoutChromium(), timeout: 120_000 }, () => {
  let app: FastifyInstance
  let browser: Browser
  let origin: string
  let document: Json
  /** Every URL any page of these tests asked for. */
  const requested: string[] = []

  before(async () => {
    app = await testApp({ closedBy: 'caller' })
    await app.listen({ host: '127.0.0.1', port: 0 })
    origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
    document = (await (await fetch(`${origin}/openapi.json`)).json()) as Json
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    })
  })
  after(async () => {
    await browser?.close()
    await app?.close()
  })

  /**
   * A fresh page that records each request, and its console errors and uncaught exceptions in
   * `problems`. A request to any host but 127.0.0.1 is recorded, then refused, so that a
   * regression is caught without leaving the machine.
   */
  async function newPage(): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
    const problems: string[] = []
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    await context.route(
      (url) => url.hostname !== '127.0.0.1',
      (route) => route.abort('blockedbyclient'),
    )
    const page = await context.newPage()
    page.on('request', (request) => void requested.push(request.url()))
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`)
    })
    page.on('pageerror', (error) => void problems.push(`page error: ${error.message}`))
    return { context, page, problems }
  }

  async function openDocs() {
    const opened = await newPage()
    const response = await opened.page.goto(`${origin}/docs`)
    assert.equal(response?.status(), 200)
    await opened.page.locator('.opblock').first().waitFor()
    return opened
  }

  test('shows every operation of the served /openapi.json', async () => {
    const expected = documentedOperations(document)
    // Surfaces A and D, the versioned lists and readiness: the document is not empty.
    for (const operation of [
      'GET /tugas',
      'POST /tugas/{id}/komentar',
      'GET /v2/tugas',
      'POST /users',
      'POST /pesanan/{id}/bayar',
      'GET /v2/produk',
      'DELETE /dokumen/{id}',
      'GET /laporan',
      'GET /health/ready',
      'POST /webhooks',
      // The webhooks section: one delivery per event type.
      'POST tugas.created',
      'POST dokumen.deleted',
      'GET /asyncapi.json',
    ]) {
      assert.ok(expected.includes(operation), `the document has no ${operation}`)
    }
    const { context, page, problems } = await openDocs()
    try {
      const shown = await page
        .locator('.opblock')
        .evaluateAll((blocks) =>
          blocks.map(
            (block) =>
              `${block.querySelector('.opblock-summary-method')?.textContent?.trim()} ${block
                .querySelector('.opblock-summary-path')
                ?.getAttribute('data-path')}`,
          ),
        )
      for (const operation of expected) {
        assert.ok(shown.includes(operation), `the page does not show ${operation}`)
      }
      assert.deepEqual([...shown].sort(), expected, 'the page shows exactly the documented ones')
      const title = await page.locator('.info .title').textContent()
      assert.match(title ?? '', /tugas: Task Management Service/)
      // The description links the AsyncAPI document of the same events, at the page's origin.
      const link = page.locator('.info .description a[href="/asyncapi.json"]')
      assert.equal(await link.count(), 1)
      const target = new URL((await link.getAttribute('href')) ?? '', page.url())
      assert.equal((await fetch(target)).status, 200)
      assert.deepEqual(problems, [])
    } finally {
      await context.close()
    }
  })

  test('"Try it out" on GET /tugas answers 200 from the live service, under the /v1 server', async () => {
    const { context, page, problems } = await openDocs()
    try {
      const { request, live } = await tryItOut(page, 'GET', '/tugas', '/v1/tugas')
      // The server `/v1` resolved against the page's own origin.
      assert.equal(new URL(request.url()).origin, origin)
      assert.equal((await live.locator('.response-col_status').textContent())?.trim(), '200')
      // The form starts with the documented examples of the query parameters.
      assert.equal(new URL(request.url()).search, '?halaman=1&batas=10&status=belum&urut=-id')
      const body = await live.locator('.response-col_description .highlight-code').textContent()
      assert.match(body ?? '', /"Deploy ke server"[\s\S]*"Membuat pengujian"/)
      assert.doesNotMatch(body ?? '', /"Belajar REST"/)
      assert.deepEqual(problems, [])
    } finally {
      await context.close()
    }
  })

  test('"Try it out" on an operation with the server / reaches the root of the same origin', async () => {
    const { context, page, problems } = await openDocs()
    try {
      const { request, live } = await tryItOut(page, 'GET', '/users', '/users')
      assert.equal(new URL(request.url()).origin, origin)
      assert.equal((await live.locator('.response-col_status').textContent())?.trim(), '200')
      assert.deepEqual(problems, [])
    } finally {
      await context.close()
    }
  })

  test('loads nothing from another host: every request goes to 127.0.0.1', async () => {
    const { context, page, problems } = await openDocs()
    try {
      // Everything the page shows, drawn: the models section and an expanded operation too.
      await operationBlock(page, 'POST', '/tugas').locator('.opblock-summary').first().click()
      await page.locator('.models').scrollIntoViewIfNeeded()
      await page.waitForLoadState('networkidle')
    } finally {
      await context.close()
    }
    assert.ok(
      requested.some((url) => url.endsWith('/docs/static/swagger-ui-bundle.js')),
      'no request was recorded',
    )
    const elsewhere = requested.filter((url) => {
      const { protocol, hostname } = new URL(url)
      if (protocol === 'data:' || protocol === 'blob:') return false
      return hostname !== '127.0.0.1'
    })
    assert.deepEqual(elsewhere, [], 'requests that would leave the machine')
    assert.deepEqual(problems, [])
  })

  test('a page of another origin reads Location and X-Request-Id of a POST /tugas (CORS)', async () => {
    const page = `<!doctype html><meta charset="utf-8"><title>another origin</title>
<script>
window.outcome = fetch(${JSON.stringify(`${origin}/tugas`)}, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ title: 'Dari origin lain' }),
}).then(
  (response) => ({
    status: response.status,
    location: response.headers.get('Location'),
    requestId: response.headers.get('X-Request-Id'),
  }),
  (error) => ({ error: String(error) }),
)
</script>`
    const other: Server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page)
    })
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve))
    const otherOrigin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`
    assert.notEqual(otherOrigin, origin)
    const opened = await newPage()
    try {
      await opened.page.goto(`${otherOrigin}/`)
      const outcome = await opened.page.evaluate(
        () => (globalThis as unknown as { outcome: Promise<Json> }).outcome,
      )
      assert.equal(outcome.error, undefined, `the fetch failed: ${String(outcome.error)}`)
      assert.equal(outcome.status, 201)
      assert.match(String(outcome.location), /^\/tugas\/[0-9]+$/, 'Location is not readable')
      assert.equal(typeof outcome.requestId, 'string', 'X-Request-Id is not readable')
      assert.notEqual(outcome.requestId, '')
    } finally {
      await opened.context.close()
      await new Promise((resolve) => other.close(resolve))
    }
  })

  test('a page of another origin follows the change feed with EventSource (docs/events.md)', async () => {
    const page = `<!doctype html><meta charset="utf-8"><title>another origin</title>
<script>
window.got = []
const feed = new EventSource(${JSON.stringify(`${origin}/events?types=tugas.*`)})
window.opened = new Promise((resolve) => feed.addEventListener('open', resolve))
feed.addEventListener('tugas.created', (message) => {
  window.got.push({ lastEventId: message.lastEventId, event: JSON.parse(message.data) })
})
</script>`
    const other: Server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page)
    })
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve))
    const otherOrigin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`
    const opened = await newPage()
    try {
      await opened.page.goto(`${otherOrigin}/`)
      await opened.page.evaluate(() => (globalThis as unknown as { opened: Promise<void> }).opened)
      const created = await fetch(`${origin}/tugas`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Dilihat peramban' }),
      })
      const task = (await created.json()) as Json
      await opened.page.waitForFunction(
        () => (globalThis as unknown as { got: unknown[] }).got.length > 0,
        undefined,
        { timeout: 5000 },
      )
      const [seen] = await opened.page.evaluate(
        () => (globalThis as unknown as { got: { lastEventId: string; event: Json }[] }).got,
      )
      assert.equal(seen?.event.type, 'tugas.created')
      assert.deepEqual(seen?.event.data, task)
      assert.equal(seen?.lastEventId, seen?.event.id)
    } finally {
      await opened.context.close()
      await new Promise((resolve) => other.close(resolve))
    }
  })

  test('the screenshot of docs/openapi.md, docs/docs-page.png', {
    skip: UPDATE_SCREENSHOT ? false : 'set UPDATE_SCREENSHOT=1 to rewrite docs/docs-page.png',
  }, async () => {
    const { context, page } = await openDocs()
    try {
      await page.waitForLoadState('networkidle')
      await mkdir(dirname(SCREENSHOT), { recursive: true })
      await page.screenshot({ path: SCREENSHOT })
    } finally {
      await context.close()
    }
  })
})
