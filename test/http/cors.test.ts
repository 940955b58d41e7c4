// CORS (decisions.md 8, "Browsers"): any origin on every route of every surface, error answers
// included; only a real preflight (OPTIONS with Origin and Access-Control-Request-Method) is
// answered as one, any other OPTIONS as before (decisions.md 2: the surface's 404 or 405); a
// request without Origin gets no CORS header at all.
//
// Calls go through app.inject, not the conformance-checked `call`: a preflight's 204 is not an
// operation of the OpenAPI document, and the checker rightly refuses it.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { TokenBucketLimiter } from '../../src/rate-limit/token-bucket.js'
import { json, testApp } from '../support/helpers.js'

const ORIGIN = { origin: 'https://app.example' }
const PREFLIGHT = {
  ...ORIGIN,
  'access-control-request-method': 'PUT',
  'access-control-request-headers': 'content-type, authorization, x-api-key',
}

/** decisions.md 8 names the first nine; Allow and WWW-Authenticate are read by clients too. */
const EXPOSED = [
  'etag',
  'location',
  'retry-after',
  'ratelimit',
  'ratelimit-policy',
  'sunset',
  'deprecation',
  'link',
  'x-request-id',
  'allow',
  'www-authenticate',
]
const METHODS = ['DELETE', 'GET', 'HEAD', 'PATCH', 'POST', 'PUT']
const REQUEST_HEADERS = [
  'accept',
  'authorization',
  'content-type',
  'idempotency-key',
  'if-match',
  'if-none-match',
  'x-api-key',
  'x-request-id',
]

const E1_NOT_FOUND = JSON.stringify({ error: { kode: 'TIDAK_ADA', pesan: 'endpoint not found' } })
const E2_METHOD = JSON.stringify({
  error: { code: 'METHOD_NOT_ALLOWED', message: 'method not allowed on this endpoint' },
})

/** A comma-separated header as a sorted list of lower-case (field) names. */
function names(value: unknown): string[] {
  return list(value).map((name) => name.toLowerCase())
}

/** A comma-separated header as a sorted list, as written (method names are case-sensitive). */
function list(value: unknown): string[] {
  return String(value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
    .sort()
}

function corsHeaders(response: LightMyRequestResponse): string[] {
  return Object.keys(response.headers).filter((name) => name.startsWith('access-control-'))
}

/** The headers of an actual (not preflight) request that carried an Origin. */
function assertCors(response: LightMyRequestResponse, what: string) {
  const label = `${what}: ${response.statusCode} ${JSON.stringify(response.headers)}`
  assert.equal(response.headers['access-control-allow-origin'], '*', label)
  assert.deepEqual(names(response.headers['access-control-expose-headers']), [...EXPOSED].sort())
  assert.deepEqual(
    corsHeaders(response).sort(),
    ['access-control-allow-origin', 'access-control-expose-headers'],
    `credentials are headers, not cookies; no preflight fields: ${label}`,
  )
  // `*` answers every origin alike: nothing to vary on.
  assert.ok(!names(response.headers.vary).includes('origin'), label)
}

function assertNoCors(response: LightMyRequestResponse, what: string) {
  assert.deepEqual(corsHeaders(response), [], what)
}

function assertPreflight(response: LightMyRequestResponse, what: string) {
  const label = `${what}: ${response.statusCode} ${response.body}`
  assert.equal(response.statusCode, 204, label)
  assert.equal(response.body, '', label)
  assert.equal(response.headers['content-length'], '0', label)
  assert.equal(response.headers['access-control-allow-origin'], '*', label)
  assert.deepEqual(list(response.headers['access-control-allow-methods']), METHODS, label)
  const allowed = names(response.headers['access-control-allow-headers'])
  assert.deepEqual(allowed, [...REQUEST_HEADERS].sort(), label)
  for (const name of ['content-type', 'authorization', 'x-api-key']) {
    assert.ok(allowed.includes(name), `${name}: ${label}`)
  }
  assert.equal(response.headers['access-control-max-age'], '7200', label)
  assert.equal(response.headers['access-control-allow-credentials'], undefined, label)
  assert.ok(response.headers['x-request-id'], label)
}

/** What any other OPTIONS request gets: the surface's 404 or 405, as decisions.md 2 says. */
interface Usual {
  status: number
  body: string
  allow?: string
}

/** One route of each surface, what GET gives, and the answer to an OPTIONS that is no preflight. */
const ROUTES: { surface: string; url: string; get: number; options: Usual }[] = [
  { surface: 'A', url: '/tugas', get: 200, options: { status: 404, body: E1_NOT_FOUND } },
  { surface: 'A', url: '/tugas/1', get: 200, options: { status: 404, body: E1_NOT_FOUND } },
  { surface: 'A /v1', url: '/v1/tugas/1', get: 200, options: { status: 404, body: E1_NOT_FOUND } },
  {
    surface: 'B',
    url: '/api/tugas',
    get: 200,
    options: { status: 405, body: '', allow: 'GET, HEAD, POST' },
  },
  {
    surface: 'B',
    url: '/api/health',
    get: 200,
    options: { status: 405, body: '', allow: 'GET, HEAD' },
  },
  {
    surface: 'C',
    url: '/todos',
    get: 200,
    options: { status: 405, body: 'Method Not Allowed', allow: 'GET, HEAD, POST' },
  },
  {
    surface: 'D',
    url: '/produk',
    get: 200,
    options: { status: 405, body: E2_METHOD, allow: 'GET, HEAD' },
  },
  {
    surface: 'D',
    url: '/users',
    get: 200,
    options: { status: 405, body: E2_METHOD, allow: 'GET, HEAD, POST' },
  },
  { surface: 'E', url: '/openapi.json', get: 200, options: { status: 404, body: E1_NOT_FOUND } },
  { surface: 'E', url: '/asyncapi.json', get: 200, options: { status: 404, body: E1_NOT_FOUND } },
  {
    surface: 'health',
    url: '/health/ready',
    get: 200,
    options: { status: 404, body: E1_NOT_FOUND },
  },
  { surface: 'none', url: '/nope', get: 404, options: { status: 404, body: E1_NOT_FOUND } },
  { surface: 'none (B)', url: '/api/nope', get: 404, options: { status: 404, body: '' } },
]

describe('CORS on every surface (decisions.md 8)', () => {
  let app: FastifyInstance
  before(async () => {
    app = await testApp({ closedBy: 'caller' })
  })
  after(() => app.close())

  const inject = (options: InjectOptions) => app.inject(options)

  for (const { surface, url, get, options } of ROUTES) {
    describe(`${surface}: ${url}`, () => {
      test('GET with Origin: Access-Control-Allow-Origin *, and the exposed headers', async () => {
        const response = await inject({ url, headers: ORIGIN })
        assert.equal(response.statusCode, get, response.body)
        assertCors(response, `GET ${url}`)
        const head = await inject({ method: 'HEAD', url, headers: ORIGIN })
        assertCors(head, `HEAD ${url}`)
      })

      test('GET without Origin: no CORS header at all', async () => {
        const response = await inject({ url })
        assert.equal(response.statusCode, get, response.body)
        assertNoCors(response, `GET ${url}`)
        assert.equal(response.headers.vary, undefined)
      })

      test('a preflight is 204 with the allowed methods, headers and max age', async () => {
        assertPreflight(await inject({ method: 'OPTIONS', url, headers: PREFLIGHT }), url)
        for (const method of ['GET', 'POST', 'PATCH', 'DELETE']) {
          // Without Access-Control-Request-Headers too (a request with safelisted headers only).
          const headers = { ...ORIGIN, 'access-control-request-method': method }
          assertPreflight(await inject({ method: 'OPTIONS', url, headers }), `${method} ${url}`)
        }
      })

      test(`any other OPTIONS is the usual ${options.status}, CORS headers only with Origin`, async () => {
        const asToday = await inject({ method: 'OPTIONS', url })
        const requests = [
          { headers: {}, cors: false },
          { headers: ORIGIN, cors: true },
          // No Origin: not a preflight, whatever else it says.
          { headers: { 'access-control-request-method': 'PUT' }, cors: false },
          // A body changes nothing: no route reads it.
          { headers: { ...ORIGIN, 'content-type': 'text/xml' }, payload: '<x/>', cors: true },
        ]
        for (const { headers, payload, cors } of requests) {
          const what = `OPTIONS ${url} ${JSON.stringify(headers)}`
          const response = await inject({
            method: 'OPTIONS',
            url,
            headers,
            ...(payload !== undefined && { payload }),
          })
          assert.equal(response.statusCode, options.status, `${what}: ${response.body}`)
          assert.equal(response.body, options.body, what)
          assert.equal(response.headers.allow, options.allow, what)
          assert.equal(response.headers['content-type'], asToday.headers['content-type'], what)
          if (cors) assertCors(response, what)
          else assertNoCors(response, what)
        }
      })
    })
  }

  test('a preflight for a path no surface serves is answered too, so the 404 that follows is readable', async () => {
    for (const url of ['/', '/nope/deeper', '/api/nope', '/tugas/abc', '/health/live']) {
      assertPreflight(await inject({ method: 'OPTIONS', url, headers: PREFLIGHT }), url)
    }
  })

  test('any origin, the opaque "null" one included, gets *', async () => {
    for (const origin of ['null', 'http://localhost:5173', 'https://elsewhere.example:8443']) {
      const response = await inject({ url: '/tugas/1', headers: { origin } })
      assertCors(response, origin)
      assertPreflight(
        await inject({ method: 'OPTIONS', url: '/tugas/1', headers: { ...PREFLIGHT, origin } }),
        origin,
      )
    }
  })

  test('a preflight carries the request id, the client one when sane', async () => {
    const headers = { ...PREFLIGHT, 'x-request-id': 'preflight-1' }
    const response = await inject({ method: 'OPTIONS', url: '/tugas', headers })
    assertPreflight(response, 'with X-Request-Id')
    assert.equal(response.headers['x-request-id'], 'preflight-1')
  })

  test('a preflight is answered before a route checks credentials: 204, not 401', async () => {
    for (const url of ['/profil', '/laporan', '/panel-admin', '/dokumen/1']) {
      assertPreflight(await inject({ method: 'OPTIONS', url, headers: PREFLIGHT }), url)
    }
  })

  describe('error answers carry the CORS headers, in every surface shape', () => {
    const errors: { what: string; request: InjectOptions; status: number; check?: Usual }[] = [
      { what: 'A: 404 of a non-numeric id', request: { url: '/tugas/abc' }, status: 404 },
      { what: 'A: 404 of an unknown task', request: { url: '/tugas/999999' }, status: 404 },
      { what: 'A: unknown method, 404', request: { method: 'PUT', url: '/tugas' }, status: 404 },
      {
        what: 'A: 422 VALIDASI_GAGAL',
        request: { method: 'POST', url: '/tugas', headers: json, payload: '{"title":""}' },
        status: 422,
      },
      {
        what: 'A: malformed JSON',
        request: { method: 'POST', url: '/tugas', headers: json, payload: '{"title":' },
        status: 400,
      },
      {
        what: 'A: wrong content type',
        request: {
          method: 'POST',
          url: '/tugas',
          headers: { 'content-type': 'text/plain' },
          payload: 'x',
        },
        status: 415,
      },
      {
        what: 'A: body over the limit',
        request: { method: 'POST', url: '/tugas', headers: json, payload: 'x'.repeat(1_100_000) },
        status: 413,
      },
      { what: 'unknown path: E1 404', request: { url: '/nope' }, status: 404 },
      { what: 'unknown path under /api: empty 404', request: { url: '/api/nope' }, status: 404 },
      {
        what: 'B: 405, empty, Allow',
        request: { method: 'DELETE', url: '/api/tugas' },
        status: 405,
        check: { status: 405, body: '', allow: 'GET, HEAD, POST' },
      },
      {
        what: 'B: the body reader refuses malformed JSON in plain text',
        request: { method: 'POST', url: '/api/tugas', headers: json, payload: '[1,' },
        status: 400,
      },
      {
        what: 'B: the body reader refuses another content type in plain text',
        request: {
          method: 'POST',
          url: '/api/tugas',
          headers: { 'content-type': 'text/plain' },
          payload: 'x',
        },
        status: 415,
      },
      { what: 'B: 404 of an unknown task', request: { url: '/api/tugas/999999' }, status: 404 },
      {
        what: 'C: 405, plain text, Allow',
        request: { method: 'DELETE', url: '/todos' },
        status: 405,
        check: { status: 405, body: 'Method Not Allowed', allow: 'GET, HEAD, POST' },
      },
      {
        what: 'C: 400 of a bad body (E3)',
        request: { method: 'POST', url: '/todos', headers: json, payload: '{}' },
        status: 400,
      },
      {
        what: 'D: 405, E2, Allow',
        request: { method: 'PUT', url: '/produk' },
        status: 405,
        check: { status: 405, body: E2_METHOD, allow: 'GET, HEAD' },
      },
      {
        what: 'D: 400 VALIDATION_ERROR',
        request: { method: 'POST', url: '/users', headers: json, payload: '{}' },
        status: 400,
      },
      { what: 'D: 401 with WWW-Authenticate', request: { url: '/profil' }, status: 401 },
      { what: 'D: 401 of /laporan without a key', request: { url: '/laporan' }, status: 401 },
    ]
    for (const { what, request, status, check } of errors) {
      test(what, async () => {
        const headers = { ...(request.headers as Record<string, string>), ...ORIGIN }
        const response = await inject({ ...request, headers })
        assert.equal(response.statusCode, status, `${what}: ${response.body}`)
        assertCors(response, what)
        // The same request without Origin: the same answer, without the CORS headers.
        const plain = await inject(request)
        assert.equal(plain.statusCode, response.statusCode, what)
        assert.equal(plain.body, response.body, what)
        assertNoCors(plain, what)
        if (check !== undefined) {
          assert.equal(response.body, check.body, what)
          assert.equal(response.headers.allow, check.allow, what)
        }
        if (status === 401) assert.equal(response.headers['www-authenticate'], 'Bearer realm="api"')
      })
    }
  })
})

describe('CORS and the /laporan rate limit', () => {
  test('preflights spend no token; the 429 carries Retry-After, RateLimit and CORS headers', async () => {
    // A clock that never moves: the bucket refills only if the test says so.
    const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1 }, () => 0)
    const app = await testApp({
      config: { rateLimitCapacity: 1, rateLimitRefillPerSecond: 1 },
      limiter,
    })
    for (let i = 0; i < 3; i++) {
      const headers = { ...PREFLIGHT, 'access-control-request-method': 'GET' }
      assertPreflight(await app.inject({ method: 'OPTIONS', url: '/laporan', headers }), 'laporan')
    }
    const key = { 'x-api-key': 'demo-budi-token' }
    const ok = await app.inject({ url: '/laporan', headers: { ...ORIGIN, ...key } })
    assert.equal(ok.statusCode, 200, ok.body)
    assertCors(ok, '/laporan 200')
    assert.ok(ok.headers.ratelimit)
    const refused = await app.inject({ url: '/laporan', headers: { ...ORIGIN, ...key } })
    assert.equal(refused.statusCode, 429, refused.body)
    assertCors(refused, '/laporan 429')
    assert.ok(refused.headers['retry-after'])
    assert.ok(refused.headers['ratelimit-policy'])
  })
})
