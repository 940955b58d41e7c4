// Surface D reports: GET /laporan (X-API-Key only, token bucket per key) and GET
// /laporan-penjualan (the text of a file). Part 1 Surface D; Part 2 Authentication rule 7,
// E2 codes, rate-limit rules 1 to 5; decisions.md sections 2, 5 and 6.
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { DEFAULT_LAPORAN_PENJUALAN_FILE, defaults } from '../../../src/config.js'
import type { BucketPolicy } from '../../../src/rate-limit/limiter.js'
import { TokenBucketLimiter } from '../../../src/rate-limit/token-bucket.js'
import { testApp } from '../../support/helpers.js'
import { ADMIN, apiKey, assertE2, BUDI, bearer, callD, SITI } from '../../support/supporting.js'

const DEFAULT_POLICY: BucketPolicy = { capacity: 3, refillPerSecond: 1 }

/** An app whose /laporan limiter runs on a clock that moves only when the test advances it. */
async function clockedApp(policy: BucketPolicy = DEFAULT_POLICY) {
  let now = 0
  const limiter = new TokenBucketLimiter(policy, () => now)
  const app = await testApp({
    config: {
      rateLimitCapacity: policy.capacity,
      rateLimitRefillPerSecond: policy.refillPerSecond,
    },
    limiter,
  })
  return {
    app,
    limiter,
    advance(ms: number) {
      now += ms
    },
  }
}

const laporan = (app: FastifyInstance, headers: Record<string, string> = {}) =>
  callD(app, { url: '/laporan', headers })

function assertReport(response: LightMyRequestResponse, what = '') {
  assert.equal(response.statusCode, 200, `${what}: ${response.body}`)
  assert.match(String(response.headers['content-type']), /^application\/json/)
  const body = response.json()
  assert.deepEqual(Object.keys(body), ['data'], what)
  assert.equal(typeof body.data, 'string', what)
  assert.ok(body.data.length > 0, what)
}

function assertNoRateLimitHeaders(response: LightMyRequestResponse) {
  assert.equal(response.headers['ratelimit-policy'], undefined)
  assert.equal(response.headers.ratelimit, undefined)
  assert.equal(response.headers['retry-after'], undefined)
}

function assertRateLimited(response: LightMyRequestResponse, retryAfter: string) {
  assertE2(response, 429, 'RATE_LIMIT_EXCEEDED')
  assert.equal(response.headers['retry-after'], retryAfter)
}

describe('GET /laporan: only X-API-Key identifies the caller (decisions.md 6)', () => {
  test('no X-API-Key is 401 MISSING_API_KEY with WWW-Authenticate, and no RateLimit fields', async () => {
    const { app } = await clockedApp()
    const response = await laporan(app)
    assertE2(response, 401, 'MISSING_API_KEY')
    assert.equal(response.headers['www-authenticate'], 'Bearer realm="api"')
    assertNoRateLimitHeaders(response)
  })

  test('an empty X-API-Key counts as missing: 401 MISSING_API_KEY', async () => {
    const { app } = await clockedApp()
    assertE2(await laporan(app, { 'x-api-key': '' }), 401, 'MISSING_API_KEY')
  })

  test('a valid Authorization: Bearer without X-API-Key is still 401 MISSING_API_KEY', async () => {
    const { app } = await clockedApp()
    for (const secret of [ADMIN, BUDI, SITI]) {
      const response = await laporan(app, bearer(secret))
      assertE2(response, 401, 'MISSING_API_KEY')
      assertNoRateLimitHeaders(response)
    }
  })

  test('a key not in the credential table is 401 UNAUTHENTICATED, even beside a valid Bearer', async () => {
    const { app } = await clockedApp()
    for (const headers of [
      apiKey('no-such-key'),
      apiKey(`${BUDI}x`),
      apiKey(BUDI.toUpperCase()),
      apiKey(`Bearer ${BUDI}`),
      { ...bearer(BUDI), ...apiKey('no-such-key') },
    ]) {
      const response = await laporan(app, headers)
      assertE2(response, 401, 'UNAUTHENTICATED')
      assert.equal(response.headers['www-authenticate'], 'Bearer realm="api"')
      assertNoRateLimitHeaders(response)
    }
  })

  test('Authorization is not consulted: an unknown Bearer beside a valid key is 200', async () => {
    const { app } = await clockedApp()
    for (const authorization of ['Bearer no-such-token', 'Bearer', 'Basic Zm9vOmJhcg==']) {
      assertReport(await laporan(app, { authorization, ...apiKey(BUDI) }), authorization)
    }
  })

  test('neither 401 costs a token: after 10 of them the key still has its full burst of 3', async () => {
    const { app, limiter } = await clockedApp()
    for (let i = 0; i < 5; i++) {
      assertE2(await laporan(app, bearer(SITI)), 401, 'MISSING_API_KEY')
      assertE2(await laporan(app, apiKey(`${SITI}-${i}`)), 401, 'UNAUTHENTICATED')
    }
    assert.equal(limiter.size, 0, 'the limiter counted nothing')
    for (let i = 0; i < 3; i++) assertReport(await laporan(app, apiKey(SITI)), `request ${i + 1}`)
    assertRateLimited(await laporan(app, apiKey(SITI)), '1')
  })
})

describe('GET /laporan: 200 and the token bucket per key (Part 2 rate-limit rules)', () => {
  test('each demo key gets 200 { data: <string> }', async () => {
    const { app } = await clockedApp()
    for (const secret of [ADMIN, BUDI, SITI]) assertReport(await laporan(app, apiKey(secret)))
  })

  test('defaults (capacity 3, refill 1), frozen clock: 3 x 200, then 429 with Retry-After 1', async () => {
    const { app } = await clockedApp()
    for (let i = 0; i < 3; i++) assertReport(await laporan(app, apiKey(BUDI)), `request ${i + 1}`)
    assertRateLimited(await laporan(app, apiKey(BUDI)), '1')
    assertRateLimited(await laporan(app, apiKey(BUDI)), '1')
  })

  test('after advancing the clock 1000 ms exactly one more 200', async () => {
    const { app, advance } = await clockedApp()
    for (let i = 0; i < 3; i++) await laporan(app, apiKey(BUDI))
    assertRateLimited(await laporan(app, apiKey(BUDI)), '1')
    advance(999)
    assertRateLimited(await laporan(app, apiKey(BUDI)), '1')
    advance(1)
    assertReport(await laporan(app, apiKey(BUDI)))
    assertRateLimited(await laporan(app, apiKey(BUDI)), '1')
  })

  test('capacity 5 and refill 0.5 from the config: 5 admitted, then Retry-After 2', async () => {
    const config = { ...defaults, rateLimitCapacity: 5, rateLimitRefillPerSecond: 0.5 }
    const { app, advance } = await clockedApp({
      capacity: config.rateLimitCapacity,
      refillPerSecond: config.rateLimitRefillPerSecond,
    })
    for (let i = 0; i < 5; i++) {
      const response = await laporan(app, apiKey(SITI))
      assertReport(response, `request ${i + 1}`)
      assert.equal(response.headers['ratelimit-policy'], '"laporan";q=5;w=10')
    }
    const refused = await laporan(app, apiKey(SITI))
    assertRateLimited(refused, '2')
    assert.equal(refused.headers.ratelimit, '"laporan";r=0;t=10')
    advance(1000)
    assertRateLimited(await laporan(app, apiKey(SITI)), '1')
    advance(1000)
    assertReport(await laporan(app, apiKey(SITI)))
  })

  test('without an injected limiter the app builds one from the config: capacity 2 admits 2', async () => {
    const app = await testApp({ config: { rateLimitCapacity: 2 } })
    for (let i = 0; i < 2; i++) {
      const response = await laporan(app, apiKey(BUDI))
      assertReport(response, `request ${i + 1}`)
      assert.equal(response.headers['ratelimit-policy'], '"laporan";q=2;w=2')
    }
    assertRateLimited(await laporan(app, apiKey(BUDI)), '1')
  })

  test('without an injected limiter the refill comes from the config: 0.25/s gives Retry-After 4', async () => {
    const app = await testApp({ config: { rateLimitCapacity: 1, rateLimitRefillPerSecond: 0.25 } })
    const first = await laporan(app, apiKey(BUDI))
    assertReport(first)
    assert.equal(first.headers['ratelimit-policy'], '"laporan";q=1;w=4')
    assertRateLimited(await laporan(app, apiKey(BUDI)), '4')
  })

  test('the default app (no config, no limiter) admits a burst of exactly 3', async () => {
    const app = await testApp()
    for (let i = 0; i < 3; i++) assertReport(await laporan(app, apiKey(ADMIN)), `request ${i + 1}`)
    assertRateLimited(await laporan(app, apiKey(ADMIN)), '1')
  })

  test('RateLimit-Policy and RateLimit on the 200s and the 429; Retry-After only on the 429', async () => {
    const { app } = await clockedApp()
    const expected = ['r=2;t=1', 'r=1;t=2', 'r=0;t=3']
    for (const fields of expected) {
      const response = await laporan(app, apiKey(BUDI))
      assertReport(response, fields)
      assert.equal(response.headers['ratelimit-policy'], '"laporan";q=3;w=3')
      assert.equal(response.headers.ratelimit, `"laporan";${fields}`)
      assert.equal(response.headers['retry-after'], undefined)
    }
    const refused = await laporan(app, apiKey(BUDI))
    assertRateLimited(refused, '1')
    assert.equal(refused.headers['ratelimit-policy'], '"laporan";q=3;w=3')
    assert.equal(refused.headers.ratelimit, '"laporan";r=0;t=3')
  })

  test('keys are independent: siti exhausted, budi still 200 with a full bucket', async () => {
    const { app } = await clockedApp()
    for (let i = 0; i < 3; i++) assertReport(await laporan(app, apiKey(SITI)))
    assertRateLimited(await laporan(app, apiKey(SITI)), '1')
    const budi = await laporan(app, apiKey(BUDI))
    assertReport(budi)
    assert.equal(budi.headers.ratelimit, '"laporan";r=2;t=1')
    assertRateLimited(await laporan(app, apiKey(SITI)), '1')
  })

  test('an admin key is rate-limited too', async () => {
    const { app } = await clockedApp()
    for (let i = 0; i < 3; i++) assertReport(await laporan(app, apiKey(ADMIN)))
    assertRateLimited(await laporan(app, apiKey(ADMIN)), '1')
  })

  test('a refused request costs nothing: refused at t, admitted at t + 1 s', async () => {
    const { app, advance } = await clockedApp()
    for (let i = 0; i < 3; i++) await laporan(app, apiKey(BUDI))
    for (let i = 0; i < 5; i++) assertRateLimited(await laporan(app, apiKey(BUDI)), '1')
    advance(1000)
    assertReport(await laporan(app, apiKey(BUDI)))
  })
})

describe('/laporan and /laporan-penjualan: other methods', () => {
  test('POST /laporan is 405 METHOD_NOT_ALLOWED, Allow: GET, HEAD, before the key is checked', async () => {
    const { app, limiter } = await clockedApp()
    for (const headers of [{}, apiKey(BUDI), apiKey('no-such-key')]) {
      const response = await app.inject({ method: 'POST', url: '/laporan', headers })
      assertE2(response, 405, 'METHOD_NOT_ALLOWED')
      assert.equal(response.headers.allow, 'GET, HEAD')
      assertNoRateLimitHeaders(response)
    }
    assert.equal(limiter.size, 0, 'a 405 costs no token')
  })

  test('POST, PUT and DELETE /laporan-penjualan are 405 METHOD_NOT_ALLOWED, Allow: GET, HEAD', async () => {
    const app = await testApp()
    for (const method of ['POST', 'DELETE', 'PUT'] as const) {
      const response = await app.inject({ method, url: '/laporan-penjualan' })
      assertE2(response, 405, 'METHOD_NOT_ALLOWED')
      assert.equal(response.headers.allow, 'GET, HEAD')
    }
  })
})

describe('GET /laporan-penjualan: the text of LAPORAN_PENJUALAN_FILE (decisions.md 5)', () => {
  const scratch = mkdtemp(join(tmpdir(), 'tugas-laporan-'))
  after(async () => rm(await scratch, { recursive: true, force: true }))

  async function fileApp(file: string, logs?: Record<string, unknown>[]) {
    return testApp({ config: { laporanPenjualanFile: file }, ...(logs && { logs }) })
  }

  test('the default file: 200 { data: <its exact text> }, without any credential', async () => {
    assert.equal(defaults.laporanPenjualanFile, DEFAULT_LAPORAN_PENJUALAN_FILE)
    const text = await readFile(DEFAULT_LAPORAN_PENJUALAN_FILE, 'utf8')
    assert.ok(text.length > 0, 'the shipped sample is not empty')
    const response = await callD(await testApp(), { url: '/laporan-penjualan' })
    assert.equal(response.statusCode, 200)
    assert.match(String(response.headers['content-type']), /^application\/json/)
    assert.deepEqual(response.json(), { data: text })
  })

  test('a configured file: its exact UTF-8 text, non-ASCII and line ends preserved', async () => {
    const file = join(await scratch, 'utf8.txt')
    const text = 'Penjualan — Désember 2026\r\nKopi ☕: Rp 15.000\n東京 🍣 "quoted" \\ tab\there\n'
    await writeFile(file, text, 'utf8')
    const response = await callD(await fileApp(file), { url: '/laporan-penjualan' })
    assert.equal(response.statusCode, 200)
    assert.deepEqual(response.json(), { data: text })
  })

  test('an empty file is 200 { data: "" }', async () => {
    const file = join(await scratch, 'empty.txt')
    await writeFile(file, '')
    const response = await callD(await fileApp(file), { url: '/laporan-penjualan' })
    assert.equal(response.statusCode, 200)
    assert.deepEqual(response.json(), { data: '' })
  })

  test('the file is read on every request: a change shows in the next answer', async () => {
    const file = join(await scratch, 'changing.txt')
    await writeFile(file, 'versi pertama', 'utf8')
    const app = await fileApp(file)
    assert.deepEqual((await callD(app, { url: '/laporan-penjualan' })).json(), {
      data: 'versi pertama',
    })
    await writeFile(file, 'versi kedua: ümlaut', 'utf8')
    assert.deepEqual((await callD(app, { url: '/laporan-penjualan' })).json(), {
      data: 'versi kedua: ümlaut',
    })
  })

  test('credentials are not needed and not consulted', async () => {
    const app = await testApp()
    for (const headers of [{}, bearer(BUDI), apiKey(SITI)]) {
      const response = await callD(app, { url: '/laporan-penjualan', headers })
      assert.equal(response.statusCode, 200)
      assert.equal(typeof response.json().data, 'string')
    }
  })

  /** The 500 of a failed read: generic to the client, the cause in the server log. */
  async function assertReadFailure(file: string, errno: string) {
    const logs: Record<string, unknown>[] = []
    const response = await callD(await fileApp(file, logs), { url: '/laporan-penjualan' })
    const error = assertE2(response, 500, 'INTERNAL_ERROR')
    for (const leak of [file, await scratch, errno, 'no such file', 'directory', ' at ', '.ts']) {
      assert.ok(!response.body.includes(leak), `the 500 body leaks ${leak}: ${response.body}`)
    }
    assert.ok(!error.message.includes('laporan-penjualan.txt'))
    const errorLines = logs.filter((line) => typeof line.level === 'number' && line.level >= 50)
    assert.ok(errorLines.length > 0, `an error line is logged: ${JSON.stringify(logs)}`)
    const cause = errorLines.map((line) => JSON.stringify(line)).join('\n')
    assert.ok(cause.includes(errno), `the error line names ${errno}: ${cause}`)
    assert.ok(cause.includes(file), `the error line names the path ${file}: ${cause}`)
    assert.ok(
      errorLines.some((line) => line.reqId === response.headers['x-request-id']),
      'the error line carries the request id',
    )
  }

  test('a missing file is 500 INTERNAL_ERROR, generic; path and ENOENT only in the log', async () => {
    await assertReadFailure(join(await scratch, 'no-such-file.txt'), 'ENOENT')
  })

  test('a directory is 500 INTERNAL_ERROR, generic; path and EISDIR only in the log', async () => {
    const directory = join(await scratch, 'a-directory')
    await mkdir(directory)
    await assertReadFailure(directory, 'EISDIR')
  })
})
