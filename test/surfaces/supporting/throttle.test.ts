// Guessing credentials, throttled (decisions.md 10, docs/supporting.md#guessing-credentials-
// throttled): past AUTH_FAILURES_MAX unknown credentials from one client address within 60 s,
// every request from it that carries a credential is 429 until the window has passed, a valid
// one included; other addresses and requests without a credential are answered as before. The
// address is the socket's peer, or X-Forwarded-For behind TRUST_PROXY; with REDIS_URL every
// process shares the counts.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { FastifyInstance, InjectOptions } from 'fastify'
import {
  FAILURE_WINDOW_MS,
  MemoryAuthThrottle,
} from '../../../src/surfaces/supporting/access/throttle.js'
import { testApp } from '../../support/helpers.js'
import { freshPrefix, REDIS_URL, skipWithoutRedis } from '../../support/redis.js'
import { ADMIN, assertE2, BUDI, bearer } from '../../support/supporting.js'

const MAX = 3

describe('MemoryAuthThrottle', () => {
  test('a window of 60 s from the first failure; refused from the MAXth failure until it ends', async () => {
    let now = 1000
    const throttle = new MemoryAuthThrottle(MAX, () => now)
    await throttle.failed('a')
    await throttle.failed('a')
    assert.equal(await throttle.retryAfter('a'), 0)
    now += 10_000
    await throttle.failed('a')
    assert.equal(await throttle.retryAfter('a'), 50)
    assert.equal(await throttle.retryAfter('b'), 0)
    now += 49_001
    assert.equal(await throttle.retryAfter('a'), 1)
    now += 999
    assert.equal(await throttle.retryAfter('a'), 0)
    // A new window begins with the next failure.
    await throttle.failed('a')
    assert.equal(await throttle.retryAfter('a'), 0)
  })

  test('at most `capacity` addresses: the oldest window is forgotten first', async () => {
    const now = 0
    const throttle = new MemoryAuthThrottle(1, () => now, 2)
    for (const address of ['a', 'b', 'c']) await throttle.failed(address)
    assert.deepEqual(
      await Promise.all(['a', 'b', 'c'].map((address) => throttle.retryAfter(address))),
      [0, FAILURE_WINDOW_MS / 1000, FAILURE_WINDOW_MS / 1000],
    )
  })
})

const from = (remoteAddress: string, options: InjectOptions & { url: string }) => ({
  ...options,
  remoteAddress,
})

async function fail(app: FastifyInstance, address: string, times: number, headers = {}) {
  for (let n = 0; n < times; n++) {
    const refused = await app.inject(
      from(address, { url: '/profil', headers: { ...bearer('salah'), ...headers } }),
    )
    assertE2(refused, 401, 'UNAUTHENTICATED')
  }
}

function assertThrottled(response: Awaited<ReturnType<FastifyInstance['inject']>>, what: string) {
  assert.equal(response.statusCode, 429, `${what}: ${response.statusCode} ${response.body}`)
  assert.equal(response.json().error.code, 'RATE_LIMIT_EXCEEDED', what)
  const wait = Number(response.headers['retry-after'])
  assert.ok(wait >= 1 && wait <= 60, `${what}: Retry-After ${response.headers['retry-after']}`)
}

describe('the throttle in the service (AUTH_FAILURES_MAX=3)', async () => {
  const app = await testApp({ config: { authFailuresMax: MAX } })

  test('past MAX failures every credentialed endpoint refuses the address, valid credentials included', async () => {
    const address = '10.1.0.1'
    await fail(app, address, MAX)
    const credentialed: (InjectOptions & { url: string })[] = [
      { url: '/profil', headers: bearer(BUDI) },
      { url: '/dokumen/1', headers: bearer(BUDI) },
      { url: '/panel-admin', headers: bearer(ADMIN) },
      { url: '/laporan', headers: { 'x-api-key': BUDI } },
      { url: '/kredensial', headers: bearer(ADMIN) },
      { url: '/webhooks', headers: bearer(ADMIN) },
      { url: '/events?after=x', headers: bearer(BUDI) },
      { url: '/profil', headers: bearer('salah') },
    ]
    for (const options of credentialed) {
      assertThrottled(await app.inject(from(address, options)), options.url)
    }
    const metrics = (await app.inject({ url: '/metrics' })).body
    assert.match(
      metrics,
      new RegExp(
        `^tugas_credentials_refused_total\\{reason="throttled"\\} ${credentialed.length}$`,
        'm',
      ),
    )
    // Without a credential: answered as before.
    assert.equal((await app.inject(from(address, { url: '/tugas/1' }))).statusCode, 200)
    assertE2(await app.inject(from(address, { url: '/profil' })), 401, 'UNAUTHENTICATED')
    // Another address is not concerned.
    assert.equal(
      (await app.inject(from('10.1.0.2', { url: '/profil', headers: bearer(BUDI) }))).statusCode,
      200,
    )
  })

  test('a success between failures does not reset the count', async () => {
    const address = '10.1.0.3'
    await fail(app, address, MAX - 1)
    assert.equal(
      (await app.inject(from(address, { url: '/profil', headers: bearer(BUDI) }))).statusCode,
      200,
    )
    await fail(app, address, 1)
    assertThrottled(
      await app.inject(from(address, { url: '/profil', headers: bearer(BUDI) })),
      'after',
    )
  })

  test('X-Forwarded-For counts for nothing without TRUST_PROXY: the socket is the address', async () => {
    const address = '10.1.0.4'
    await fail(app, address, MAX, { 'x-forwarded-for': '203.0.113.1' })
    const other = { url: '/profil', headers: { ...bearer(BUDI), 'x-forwarded-for': '203.0.113.2' } }
    assertThrottled(await app.inject(from(address, other)), 'another forwarded address')
  })
})

describe('behind a proxy (TRUST_PROXY=127.0.0.1)', async () => {
  const app = await testApp({ config: { authFailuresMax: MAX, trustProxy: ['127.0.0.1'] } })
  const via = (client: string, secret: string) =>
    app.inject(
      from('127.0.0.1', {
        url: '/profil',
        headers: { ...bearer(secret), 'x-forwarded-for': client },
      }),
    )

  test('the client address is the one the proxy forwards', async () => {
    for (let n = 0; n < MAX; n++)
      assertE2(await via('203.0.113.7', 'salah'), 401, 'UNAUTHENTICATED')
    assertThrottled(await via('203.0.113.7', BUDI), 'the guessing client')
    assert.equal((await via('203.0.113.8', BUDI)).statusCode, 200)
    // A proxy not trusted cannot name the client.
    const untrusted = await app.inject(
      from('10.9.9.9', {
        url: '/profil',
        headers: { ...bearer(BUDI), 'x-forwarded-for': '203.0.113.7' },
      }),
    )
    assert.equal(untrusted.statusCode, 200)
  })
})

describe('two processes sharing the counts through Redis', {
  skip: await skipWithoutRedis(),
}, async () => {
  test('failures on one are counted by the other', async () => {
    const config = { authFailuresMax: MAX, redisUrl: REDIS_URL, redisKeyPrefix: freshPrefix() }
    const [one, two] = [await testApp({ config }), await testApp({ config })] as const
    await fail(one, '10.2.0.1', MAX - 1)
    await fail(two, '10.2.0.1', 1)
    for (const app of [one, two]) {
      assertThrottled(
        await app.inject(from('10.2.0.1', { url: '/profil', headers: bearer(BUDI) })),
        'shared',
      )
    }
    assert.equal(
      (await two.inject(from('10.2.0.2', { url: '/profil', headers: bearer(BUDI) }))).statusCode,
      200,
    )
  })
})
