// The code examples for client developers, run as a reader runs them, against the service
// listening on a port: the `events()` modules of docs/events.md and docs/client.md, the
// receivers of docs/webhooks.md and docs/client.md (each given a real delivery), and the
// `tugas listen` session of docs/events.md. Each block is found by its section's heading and
// its fence's language, written unchanged to a folder of the repository (test/.snippets/,
// ignored by git), so that `tugas/client` (the package importing itself, through its
// `exports`: `npm run build` first), `cloudevents` and `standardwebhooks` resolve as they do
// for a project depending on them, and imported; the TypeScript ones must type-check too.
// What each prints (console.log) or answers is checked, so an example that no longer works
// fails here. The curl examples of the same pages are test/readme.test.ts's.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, type TestContext, test } from 'node:test'
import { pathToFileURL } from 'node:url'
import { format, promisify } from 'node:util'
import type { CloudEvent } from 'cloudevents'
import type { FastifyInstance } from 'fastify'
import { signature } from '../src/events/standard-webhooks.js'
import { call, json, testApp } from './support/helpers.js'
import { forwardLines, secretOf, tugas } from './support/listen.js'
import { listenOnLoopback } from './support/raw-http.js'
import { answer, type Received, Receiver, subscribe } from './support/receiver.js'
import { ADMIN, bearer } from './support/supporting.js'

const root = new URL('..', import.meta.url).pathname

/**
 * The code of the first ````fence` block of the section headed `heading` (the heading's text,
 * at any level, up to the next heading of its level or above), its indentation taken off (a
 * block inside a list item is indented).
 */
function snippet(page: string, heading: string, fence: string): string {
  const lines = readFileSync(join(root, page), 'utf8').split('\n')
  let level = 0
  let inFence = false
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] ?? ''
    const open = /^( *)```(\S*)\s*$/.exec(text)
    if (open) {
      if (!inFence && level > 0 && open[2] === fence) {
        const indent = open[1]?.length ?? 0
        const end = lines.findIndex((line, j) => j > i && /^ *```\s*$/.test(line))
        assert.ok(end > i, `${page}: the block at line ${i + 1} is not closed`)
        return `${lines
          .slice(i + 1, end)
          .map((line) => line.slice(indent))
          .join('\n')}\n`
      }
      inFence = !inFence
      continue
    }
    const title = inFence ? undefined : /^(#{1,6}) +(.*)$/.exec(text)
    if (!title?.[1]) continue
    if (level > 0 && title[1].length <= level) break
    if (title[2] === heading) level = title[1].length
  }
  assert.fail(`${page}: no \`\`\`${fence} block in the section "${heading}"`)
}

/** The examples are written here (inside the repository, so their imports resolve). */
const folder = join(root, 'test', '.snippets', String(process.pid))
mkdirSync(folder, { recursive: true })
after(() => rmSync(folder, { recursive: true, force: true }))

/** The block, written as `file` in the folder: its path. */
function written(file: string, code: string): string {
  const path = join(folder, file)
  writeFileSync(path, code)
  return path
}

/** The block of `page`'s section `heading`, written as `file` and imported. */
async function imported<T>(page: string, heading: string, fence: string, file: string): Promise<T> {
  return (await import(pathToFileURL(written(file, snippet(page, heading, fence))).href)) as T
}

/** The lines an example prints with console.log, as it would print them, during the test. */
function printed(t: TestContext) {
  const lines: string[] = []
  t.mock.method(console, 'log', (...args: unknown[]) => {
    lines.push(format(...args))
  })
  return {
    lines,
    /** Resolves once `count` lines are printed; fails the test after 10 s. */
    async until(count: number): Promise<string[]> {
      const deadline = performance.now() + 10_000
      while (lines.length < count) {
        assert.ok(performance.now() < deadline, `${lines.length} of ${count} lines printed`)
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      return lines
    },
  }
}

/** The app of a test, listening on loopback (WEBHOOK_ALLOW_PRIVATE, to deliver there). */
async function service(): Promise<{ app: FastifyInstance; url: string }> {
  const app = await testApp({ config: { webhookAllowPrivate: true } })
  return { app, url: `http://127.0.0.1:${await listenOnLoopback(app)}` }
}

/**
 * A service with a receiver (closed when `t` ends) subscribed at `path` to tasks' creations.
 */
async function serviceDeliveringTo(t: TestContext, path: string) {
  const { app } = await service()
  const receiver = await Receiver.start()
  t.after(() => receiver.close())
  const subscription = await subscribe(app, receiver.url(path), ['tugas.created'])
  return { app, receiver, subscription }
}

async function write(app: FastifyInstance, method: string, url: string, body?: unknown) {
  const response = await call(app, {
    method,
    url,
    headers: json,
    ...(body !== undefined && { payload: JSON.stringify(body) }),
  })
  assert.ok(response.statusCode < 300, response.body)
  return response.body === '' ? undefined : response.json()
}

/** A subscription's attempts, `[status_code, result]`, once one is recorded (within 10 s). */
async function attempted(app: FastifyInstance, id: number): Promise<[number | null, string][]> {
  for (let waited = 0; ; waited += 25) {
    const response = await call(app, {
      method: 'GET',
      url: `/webhooks/${id}/deliveries`,
      headers: bearer(ADMIN),
    })
    assert.equal(response.statusCode, 200, response.body)
    const attempts = response.json().data as { status_code: number | null; result: string }[]
    if (attempts.length > 0) return attempts.map((one) => [one.status_code, one.result])
    assert.ok(waited < 10_000, 'no attempt recorded in 10 s')
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

const OTHER_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'

/** The snippets run for a minute at most: a feed that never ends fails the test. */
const LIMIT = { timeout: 60_000 }

describe('docs/events.md, For client developers', () => {
  const page = 'docs/events.md'

  test(
    'events() of tugas/client: follow() prints each task event, resumes after the id it returns, says reset',
    LIMIT,
    async (t) => {
      type Follow = (baseUrl: string, after: string, signal: AbortSignal) => Promise<string>
      const { follow } = await imported<{ follow: Follow }>(
        page,
        'In code: `events()` of `tugas/client`',
        'ts',
        'events-follow.ts',
      )
      const { app, url } = await service()
      const out = printed(t)
      const { id } = await write(app, 'POST', '/tugas', { title: 'Menulis laporan' })
      await write(app, 'DELETE', `/tugas/${id}`)
      const first = new AbortController()
      const following = follow(url, '0', first.signal)
      const lines = [...(await out.until(2))]
      first.abort()
      const last = await following
      assert.match(lines[0] ?? '', /^\d+ new task: Menulis laporan$/)
      assert.equal(lines[1], `${last} deleted task ${id}`)
      assert.ok(Number(last) > Number(lines[0]?.split(' ')[0]))

      // Started again after the id it returned: the events since, and nothing before.
      out.lines.length = 0
      await write(app, 'POST', '/tugas', { title: 'Sesudahnya' })
      const again = new AbortController()
      const resumed = follow(url, last, again.signal)
      await out.until(1)
      await new Promise((resolve) => setTimeout(resolve, 200))
      again.abort()
      const newest = await resumed
      assert.deepEqual(out.lines, [`${newest} new task: Sesudahnya`])
      assert.ok(Number(newest) > Number(last))

      // An id the service never gave: a reset, then every event kept.
      out.lines.length = 0
      const third = new AbortController()
      const reset = follow(url, '999999', third.signal)
      await out.until(4)
      third.abort()
      assert.equal(await reset, newest)
      assert.deepEqual(out.lines, [
        'events were missed: read the tasks again',
        ...lines,
        `${newest} new task: Sesudahnya`,
      ])
    },
  )

  test('tugas listen: the session as shown, then a forward line per event', LIMIT, async (t) => {
    const session = snippet(page, 'On your machine: `tugas listen`', 'sh').trimEnd().split('\n')
    const { app, url } = await service()
    const receiver = await Receiver.start()
    const configDir = mkdtempSync(join(tmpdir(), 'tugas-listen-'))
    t.after(async () => {
      await receiver.close()
      rmSync(configDir, { recursive: true, force: true })
    })
    const local = (text: string) =>
      text
        .replaceAll('http://127.0.0.1:8080', url)
        .replaceAll('http://localhost:3000/webhooks', receiver.url('/webhooks'))
    const [command = '', ...shown] = session
    const words = local(command).split(' ')
    assert.deepEqual(words.slice(0, 3), ['npx', 'tugas', 'listen'], command)
    const expected = shown.map((line) => {
      assert.match(line, /^# /)
      // `...` stands for what changes from run to run.
      const parts = local(line.slice(2)).split('...')
      return new RegExp(
        `^${parts.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.+')}$`,
      )
    })
    receiver.answers('/webhooks', answer.status(204), answer.status(500))
    const listening = tugas(words.slice(2), configDir)
    const printedLines = await listening.until((line) => line.startsWith('Ready: '))
    assert.equal(printedLines.length, expected.length, printedLines.join('\n'))
    printedLines.forEach((line, i) => {
      assert.match(line, expected[i] as RegExp)
    })
    assert.match(secretOf(printedLines), /^whsec_/)

    // The forward lines, as the page shows them: `<id> <type> <receiver's status>`.
    const forwards = snippet(page, 'On your machine: `tugas listen`', 'text').trimEnd().split('\n')
    const { id } = await write(app, 'POST', '/tugas', { title: 'Diteruskan' })
    await write(app, 'PATCH', `/tugas/${id}`, { status: 'selesai' })
    await listening.until(() => forwardLines(listening.lines).length === forwards.length)
    assert.equal(await listening.stop(), 0)
    const shape = (line: string) => line.replace(/^\d+ /, '<id> ')
    assert.deepEqual(forwardLines(listening.lines).map(shape), forwards.map(shape))
    assert.equal(receiver.at('/webhooks').length, forwards.length)
  })
})

describe('docs/client.md', () => {
  const page = 'docs/client.md'

  test(
    'The change feed: watch() prints task events as they come, until aborted',
    LIMIT,
    async (t) => {
      type Watch = (baseUrl: string, signal: AbortSignal) => Promise<void>
      const { watch } = await imported<{ watch: Watch }>(
        page,
        'The change feed: `events()`',
        'ts',
        'client-watch.ts',
      )
      const { app, url } = await service()
      const out = printed(t)
      const stop = new AbortController()
      const watching = watch(url, stop.signal)
      const { id } = await write(app, 'POST', '/tugas', { title: 'Coba klien' })
      await write(app, 'DELETE', `/tugas/${id}`)
      const [created = '', deleted = ''] = await out.until(2)
      stop.abort()
      await watching
      assert.match(created, /^\d+ new task Coba klien$/)
      assert.match(deleted, new RegExp(`^\\d+ deleted ${id}$`))
      assert.equal(Number(deleted.split(' ')[0]), Number(created.split(' ')[0]) + 1)
    },
  )

  test(
    'Verifying a delivery: receiver() takes a real delivery (204), refuses a changed one (400)',
    LIMIT,
    async (t) => {
      type Receive = (secret: string) => Server
      const { receiver: receiverOf } = await imported<{ receiver: Receive }>(
        page,
        'Verifying a delivery: `verifyWebhook()`',
        'ts',
        'client-receiver.ts',
      )
      const { app } = await service()
      // Its URL is subscribed first (the secret comes with the subscription): a free port.
      const free = createServer()
      await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve))
      const port = (free.address() as AddressInfo).port
      await new Promise((resolve) => free.close(resolve))
      const subscription = await subscribe(app, `http://127.0.0.1:${port}/webhooks`, [
        'tugas.created',
      ])
      const server = receiverOf(subscription.secret)
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
      t.after(() => new Promise((resolve) => server.close(resolve)))
      // Another subscription's delivery (another secret), to send to it as well.
      const others = await Receiver.start()
      t.after(() => others.close())
      await subscribe(app, others.url('/other'), ['tugas.created'])

      const out = printed(t)
      await write(app, 'POST', '/tugas', { title: 'Diterima' })
      assert.deepEqual(await out.until(1), ['new task Diterima'])
      assert.deepEqual(await attempted(app, subscription.id), [[204, 'delivered']])

      const [other] = await others.until('/other', 1)
      assert.ok(other)
      const refused = await fetch(`http://127.0.0.1:${port}/webhooks`, {
        method: 'POST',
        headers: Object.fromEntries(
          ['content-type', 'webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [
            name,
            String(other.headers[name]),
          ]),
        ),
        body: other.body,
      })
      assert.equal(refused.status, 400)
      assert.match(await refused.text(), /signature/i)
      assert.deepEqual(out.lines, ['new task Diterima'])
    },
  )

  test('the TypeScript examples type-check (tsc, strict, as the project is)', LIMIT, async () => {
    const files = [
      written(
        'check-follow.ts',
        snippet('docs/events.md', 'In code: `events()` of `tugas/client`', 'ts'),
      ),
      written('check-watch.ts', snippet(page, 'The change feed: `events()`', 'ts')),
      written('check-receiver.ts', snippet(page, 'Verifying a delivery: `verifyWebhook()`', 'ts')),
    ]
    const config = written(
      'tsconfig.json',
      JSON.stringify({
        extends: '../../../tsconfig.json',
        compilerOptions: { noEmit: true },
        exclude: [],
        include: files.map((file) => file.slice(folder.length + 1)),
      }),
    )
    const tsc = join(root, 'node_modules', '.bin', 'tsc')
    await promisify(execFile)(tsc, ['-p', config], { cwd: root }).catch((error) => {
      assert.fail(`tsc: ${error.stdout}${error.stderr}`)
    })
  })
})

describe('docs/webhooks.md', () => {
  const page = 'docs/webhooks.md'

  test(
    'Verifying a delivery: verified() takes a real delivery, refuses a changed, foreign or stale one',
    LIMIT,
    async (t) => {
      type Verified = (secret: string, headers: Received['headers'], body: string) => boolean
      const { verified } = await imported<{ verified: Verified }>(
        page,
        'Verifying a delivery',
        'js',
        'webhooks-verified.mjs',
      )
      const { app, receiver, subscription } = await serviceDeliveringTo(t, '/verified')
      await write(app, 'POST', '/tugas', { title: 'Diperiksa penerima' })
      const [delivery] = await receiver.until('/verified', 1)
      assert.ok(delivery)
      const { headers, body } = delivery
      assert.equal(verified(subscription.secret, headers, body), true)
      assert.equal(
        verified(subscription.secret, headers, body.replace('Diperiksa', 'Diubah')),
        false,
      )
      assert.equal(verified(OTHER_SECRET, headers, body), false)
      // A delivery replayed ten minutes later is refused, signature and all.
      const stale = Number(headers['webhook-timestamp']) - 600
      const replayed = {
        ...headers,
        'webhook-timestamp': String(stale),
        'webhook-signature': signature(
          subscription.secret,
          String(headers['webhook-id']),
          stale,
          body,
        ),
      }
      assert.equal(verified(subscription.secret, replayed, body), false)
      const current = { ...replayed, 'webhook-timestamp': headers['webhook-timestamp'] }
      assert.equal(verified(subscription.secret, current, body), false)
    },
  )

  test(
    'For client developers: receive() gives the CloudEvent of a real delivery, throws for another secret',
    LIMIT,
    async (t) => {
      type Receive = (
        secret: string,
        headers: Received['headers'],
        body: string,
      ) => CloudEvent<unknown>
      const { receive } = await imported<{ receive: Receive }>(
        page,
        'For client developers',
        'js',
        'webhooks-receive.mjs',
      )
      const { app, receiver, subscription } = await serviceDeliveringTo(t, '/snippet')
      const task = await write(app, 'POST', '/tugas', { title: 'Diterima klien', status: 'belum' })
      const [delivery] = await receiver.until('/snippet', 1)
      assert.ok(delivery)
      const event = receive(subscription.secret, delivery.headers, delivery.body)
      assert.equal(event.type, 'tugas.created')
      assert.equal(event.id, delivery.headers['webhook-id'])
      assert.equal(event.subject, String(task.id))
      assert.deepEqual(event.data, { id: task.id, title: 'Diterima klien', status: 'belum' })
      assert.throws(() => receive(OTHER_SECRET, delivery.headers, delivery.body))
    },
  )
})
