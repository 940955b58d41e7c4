// Guessing credentials, throttled (decisions.md 10, docs/supporting.md#guessing-credentials-
// throttled): past AUTH_FAILURES_MAX unknown credentials from one client address within 60 s,
// every request from it that carries a credential (any Authorization scheme, or X-API-Key) is
// 429 until the window has passed, a valid one included; other addresses and requests without a
// credential are answered as before. The address is the socket's peer, or X-Forwarded-For behind
// TRUST_PROXY, an IPv6 one counted by its /64; with REDIS_URL every process shares the counts.
// Counting and deciding are one step: a burst of concurrent failures gets at most MAX 401s, on
// every store, with and without Redis.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { throttleKey } from '../../src/access/client-address.js'
import { FAILURE_WINDOW_MS, MemoryAuthThrottle } from '../../src/access/throttle.js'
import type { Config } from '../../src/config.js'
import { TEST_STORE, testApp } from '../support/helpers.js'
import { migratedSchema, skipWithoutPostgres } from '../support/postgres.js'
import { freshPrefix, REDIS_URL, skipWithoutRedis } from '../support/redis.js'
import { ADMIN, assertE2, BUDI, bearer } from '../support/supporting.js'

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

  test('a failure answers from the count it brought: 0 up to MAX, then the seconds left', async () => {
    let now = 0
    const throttle = new MemoryAuthThrottle(MAX, () => now)
    const answers = []
    for (let n = 0; n < MAX + 2; n++) answers.push(await throttle.failed('a'))
    assert.deepEqual(answers, [0, 0, 0, 60, 60])
    now += 30_500
    assert.equal(await throttle.failed('a'), 30)
    now += 29_500
    assert.equal(await throttle.failed('a'), 0, 'a new window')
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

describe('throttleKey: an IPv4 client by its address, an IPv6 client by its /64', () => {
  test('IPv4, and IPv4-mapped IPv6 as the IPv4 address', () => {
    for (const address of [
      '192.0.2.7',
      '::ffff:192.0.2.7',
      '::FFFF:c000:207',
      '0:0:0:0:0:ffff:192.0.2.7',
    ]) {
      assert.equal(throttleKey(address), '192.0.2.7', address)
    }
  })

  test('every address of one /64 alike, however written; another /64 apart', () => {
    const key = '2001:db8:0:a::/64'
    for (const address of [
      '2001:db8:0:a::1',
      '2001:DB8::A:1234:5678:9abc:def0',
      '2001:0db8:0000:000a:ffff:ffff:ffff:ffff',
      '2001:db8:0:a::',
      '2001:db8:0:a:0:0:192.0.2.1',
      '2001:db8:0:a::1%eth0',
    ]) {
      assert.equal(throttleKey(address), key, address)
    }
    assert.equal(throttleKey('2001:db8:0:b::1'), '2001:db8:0:b::/64')
    assert.equal(throttleKey('::1'), '0:0:0:0::/64')
    assert.equal(throttleKey('64:ff9b::192.0.2.7'), '64:ff9b:0:0::/64')
  })

  test('what is not an address is its own key', () => {
    for (const text of ['unknown', 'a:b', '1:2:3:4:5:6:7:8:9', '']) {
      assert.equal(throttleKey(text), text)
    }
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

  test('the forwarded addresses of one /64 share a count', async () => {
    for (let n = 1; n <= MAX; n++) {
      assertE2(await via(`2001:db8:8:1::${n}`, 'salah'), 401, 'UNAUTHENTICATED')
    }
    assertThrottled(await via('2001:db8:8:1:1:2:3:4', BUDI), 'another address of the /64')
    assert.equal((await via('2001:db8:8:2::1', BUDI)).statusCode, 200)
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

const BURST_MAX = 5
const BURST = 60

/**
 * The stores the burst runs on: this pass's, and PostgreSQL beside the memory store where it
 * can be reached, each with the counts in process memory and in Redis.
 */
const stores: { store: string; skip: false | string }[] = [
  { store: TEST_STORE, skip: false },
  ...(TEST_STORE === 'memory' ? [{ store: 'postgres', skip: await skipWithoutPostgres() }] : []),
]
const redisSkip = await skipWithoutRedis()

for (const { store, skip } of stores) {
  for (const counts of ['memory', 'redis'] as const) {
    describe(`a burst of ${BURST} concurrent failures (AUTH_FAILURES_MAX=${BURST_MAX}, ${store} store, counts in ${counts})`, {
      skip: skip || (counts === 'redis' && redisSkip),
    }, () => {
      test(`exactly ${BURST_MAX} are 401, the rest 429 with Retry-After; then a valid credential is 429`, async () => {
        const lease = store === TEST_STORE ? undefined : await migratedSchema()
        const config: Partial<Config> = {
          authFailuresMax: BURST_MAX,
          ...(counts === 'redis' && { redisUrl: REDIS_URL, redisKeyPrefix: freshPrefix() }),
          ...(lease && { databaseUrl: lease.url, databaseDirectUrl: lease.directUrl }),
        }
        const app = await testApp({ config, closedBy: 'caller' })
        try {
          const answers = await Promise.all(
            Array.from({ length: BURST }, (_, n) =>
              app.inject(from('10.3.0.1', { url: '/profil', headers: bearer(`salah-${n}`) })),
            ),
          )
          const statuses = answers.map(({ statusCode }) => statusCode)
          assert.equal(statuses.filter((status) => status === 401).length, BURST_MAX, `${statuses}`)
          for (const answer of answers) {
            if (answer.statusCode !== 401) assertThrottled(answer, 'in the burst')
          }
          assertThrottled(
            await app.inject(from('10.3.0.1', { url: '/profil', headers: bearer(BUDI) })),
            'after the burst',
          )
        } finally {
          await app.close()
          await lease?.release()
        }
      })
    })
  }
}

describe('IPv6 clients (AUTH_FAILURES_MAX=3)', async () => {
  const app = await testApp({ config: { authFailuresMax: MAX } })

  test('the addresses of one /64 share a count; another /64 is not concerned', async () => {
    for (const address of ['2001:db8:7:1::1', '2001:db8:7:1::2', '2001:db8:7:1:ffff::9']) {
      await fail(app, address, 1)
    }
    assertThrottled(
      await app.inject(from('2001:db8:7:1:abcd::1', { url: '/profil', headers: bearer(BUDI) })),
      'another address of the /64',
    )
    assert.equal(
      (await app.inject(from('2001:db8:7:2::1', { url: '/profil', headers: bearer(BUDI) })))
        .statusCode,
      200,
    )
  })

  test('an IPv4-mapped IPv6 peer counts as its IPv4 address', async () => {
    await fail(app, '::ffff:10.4.0.1', MAX - 1)
    await fail(app, '10.4.0.1', 1)
    assertThrottled(
      await app.inject(from('::ffff:10.4.0.1', { url: '/profil', headers: bearer(BUDI) })),
      'mapped',
    )
  })
})

describe('any Authorization scheme carries a credential (AUTH_FAILURES_MAX=3)', async () => {
  const app = await testApp({ config: { authFailuresMax: MAX } })

  test('before the limit, another scheme alone is 401 as before and is not counted', async () => {
    const address = '10.5.0.1'
    for (let n = 0; n < MAX + 2; n++) {
      const basic = { authorization: 'Basic YnVkaTpzYWxhaA==' }
      assertE2(
        await app.inject(from(address, { url: '/profil', headers: basic })),
        401,
        'UNAUTHENTICATED',
      )
    }
    assert.equal(
      (await app.inject(from(address, { url: '/profil', headers: bearer(BUDI) }))).statusCode,
      200,
    )
  })

  test('once throttled, every scheme is 429, on every credentialed endpoint and on /events', async () => {
    const address = '10.5.0.2'
    await fail(app, address, MAX)
    const schemes = [
      { authorization: 'Basic YnVkaTpzYWxhaA==' },
      { authorization: 'Digest username="budi"' },
      { authorization: 'Token' },
      { authorization: '' },
      { authorization: `bearer ${BUDI}` },
      { 'x-api-key': BUDI },
      { authorization: 'Basic YnVkaTpzYWxhaA==', 'x-api-key': BUDI },
    ]
    for (const headers of schemes) {
      for (const url of ['/profil', '/dokumen', '/laporan', '/events?after=x']) {
        assertThrottled(
          await app.inject(from(address, { url, headers })),
          `${url} ${JSON.stringify(headers)}`,
        )
      }
    }
    // With no credential at all: answered as before.
    assertE2(await app.inject(from(address, { url: '/laporan' })), 401, 'MISSING_API_KEY')
  })
})
