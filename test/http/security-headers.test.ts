// docs/http.md#security-headers: every answer of every surface carries
// `X-Content-Type-Options: nosniff`, errors, 404s, the docs page and the parser's refusals
// included; every answer to a request that carries a credential carries `Cache-Control:
// no-store`, whatever the route set, and one without a credential keeps what the route set.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { testApp } from '../support/helpers.js'
import { exchange, listenOnLoopback, request } from '../support/raw-http.js'

const BEARER = { authorization: 'Bearer demo-budi-token' }

/** One answer per surface and kind: success, client error, not found, method not allowed. */
const SAMPLE: { method: 'GET' | 'POST' | 'PUT' | 'HEAD'; url: string; body?: string }[] = [
  { method: 'GET', url: '/tugas/1' },
  { method: 'GET', url: '/v1/tugas/abc' },
  { method: 'POST', url: '/tugas', body: '{"title":' },
  { method: 'GET', url: '/tidak-ada' },
  { method: 'GET', url: '/api/tugas/1' },
  { method: 'GET', url: '/api/tidak-ada' },
  { method: 'GET', url: '/todos' },
  { method: 'PUT', url: '/todos' },
  { method: 'GET', url: '/users' },
  { method: 'GET', url: '/dokumen/1' },
  { method: 'GET', url: '/profil' },
  { method: 'GET', url: '/laporan-penjualan' },
  { method: 'GET', url: '/webhooks' },
  { method: 'HEAD', url: '/events' },
  { method: 'GET', url: '/openapi.json' },
  { method: 'GET', url: '/asyncapi.json' },
  { method: 'GET', url: '/docs' },
  { method: 'GET', url: '/health/ready' },
  { method: 'GET', url: '/metrics' },
]

describe('security headers', () => {
  let app: FastifyInstance
  before(async () => {
    app = await testApp({ closedBy: 'caller' })
  })
  after(() => app.close())

  const send = (sample: (typeof SAMPLE)[number], headers: Record<string, string> = {}) =>
    app.inject({
      method: sample.method,
      url: sample.url,
      headers: { ...headers, ...(sample.body && { 'content-type': 'application/json' }) },
      ...(sample.body && { payload: sample.body }),
    })

  test('nosniff on every answer; no Cache-Control added without a credential', async () => {
    for (const sample of SAMPLE) {
      const answer = await send(sample)
      const what = `${sample.method} ${sample.url}: ${answer.statusCode}`
      assert.equal(answer.headers['x-content-type-options'], 'nosniff', what)
      if (sample.url !== '/docs' && sample.url !== '/events') {
        assert.equal(answer.headers['cache-control'], undefined, what)
      }
    }
  })

  test('with a credential, known or not, as Bearer or X-API-Key: also no-store', async () => {
    for (const credential of [BEARER, { 'x-api-key': 'tidak-dikenal' }]) {
      for (const sample of SAMPLE) {
        const answer = await send(sample, credential)
        const what = `${sample.method} ${sample.url} with ${Object.keys(credential)[0]}: ${answer.statusCode}`
        assert.equal(answer.headers['x-content-type-options'], 'nosniff', what)
        assert.equal(answer.headers['cache-control'], 'no-store', what)
      }
    }
  })

  test("a static file of the docs page: no-store wins over the plugin's own caching", async () => {
    const page = await app.inject({ url: '/docs' })
    const asset = /src="([^"]*\.js)"/.exec(page.body)?.[1]
    assert.ok(asset, 'the page loads a script')
    const url = asset.startsWith('/') ? asset : `/docs/${asset}`
    const plain = await app.inject({ url })
    assert.equal(plain.statusCode, 200, url)
    const credentialed = await app.inject({ url, headers: BEARER })
    assert.equal(credentialed.headers['cache-control'], 'no-store')
    assert.equal(credentialed.headers['x-content-type-options'], 'nosniff')
  })

  test("the HTTP parser's refusals and the router's framework errors carry them too", async () => {
    const refused = await testApp({ closedBy: 'caller' })
    try {
      const port = await listenOnLoopback(refused)
      const answer = await exchange(port, [
        `GET /tugas/1 HTTP/1.1\r\nhost: x\r\nbad header\r\n\r\n`,
      ])
      assert.equal(answer.status, 400)
      assert.equal(answer.headers['x-content-type-options'], 'nosniff')
      assert.equal(answer.headers['cache-control'], 'no-store')
      const fine = await exchange(port, [request('GET', '/tugas/1')])
      assert.equal(fine.headers['x-content-type-options'], 'nosniff')
      // What the router cannot read names no endpoint: its 404 carries them as well.
      const star = await exchange(port, [request('OPTIONS', '*', BEARER)])
      assert.equal(star.status, 404)
      assert.equal(star.headers['x-content-type-options'], 'nosniff')
      assert.equal(star.headers['cache-control'], 'no-store')
    } finally {
      await refused.close()
    }
  })
})
