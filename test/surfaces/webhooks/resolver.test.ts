// Name resolution for deliveries (docs/webhooks.md#name-resolution): by c-ares, at the servers
// WEBHOOK_DNS_SERVERS names, given up at the attempt's deadline, counted within the attempt's
// WEBHOOK_TIMEOUT_MS; `localhost` and IP literals need no server. A resolver that never answers
// (a UDP socket that takes queries and drops them) neither holds an attempt past its timeout
// nor slows POST /users, whose scrypt runs on libuv's pool beside what getaddrinfo would take.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { resolveDestination } from '../../../src/surfaces/webhooks/address.js'
import { NameResolver } from '../../../src/surfaces/webhooks/resolver.js'
import { call, callJson, storesOf, testApp } from '../../support/helpers.js'
import { SilentDns } from '../../support/silent-dns.js'
import { ADMIN, bearer } from '../../support/supporting.js'

const json = { 'content-type': 'application/json' }
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'

let dns: SilentDns
before(async () => {
  dns = await SilentDns.start()
})
after(() => dns?.close())

test('a resolver that never answers: timed out at the deadline, its queries sent to it', async () => {
  const resolver = new NameResolver([dns.server])
  const before = dns.queries
  const started = performance.now()
  assert.equal(await resolver.resolve('hook.example', 300), 'timeout')
  const took = performance.now() - started
  assert.ok(took >= 280 && took < 600, `${Math.round(took)} ms`)
  assert.ok(dns.queries > before, 'the queries went to the server named')
})

test('a lookup in flight ends at once when the service stops', async () => {
  const stopping = new AbortController()
  const started = performance.now()
  const lookup = new NameResolver([dns.server]).resolve('hook.example', 10_000, stopping.signal)
  setTimeout(() => stopping.abort(), 50)
  assert.equal(await lookup, 'timeout')
  assert.ok(performance.now() - started < 500)
})

test('localhost and IP literals need no server', async () => {
  const resolver = new NameResolver([dns.server])
  const lookup = { resolver, timeoutMs: 300 }
  const before = dns.queries
  assert.deepEqual(await resolver.resolve('localhost', 300), [
    { address: '127.0.0.1', family: 4 },
    { address: '::1', family: 6 },
  ])
  assert.deepEqual(await resolveDestination('LocalHost.', true, lookup), {
    address: '127.0.0.1',
    family: 4,
  })
  assert.deepEqual(await resolveDestination('127.0.0.1', true, lookup), {
    address: '127.0.0.1',
    family: 4,
  })
  assert.deepEqual(await resolveDestination('[::1]', true, lookup), { address: '::1', family: 6 })
  assert.deepEqual(await resolveDestination('localhost', false, lookup), { refused: 'private' })
  assert.equal(dns.queries, before)
})

test('POST /webhooks with a host the resolver does not answer for: 400 within the timeout', async () => {
  const app = await testApp({
    config: { webhookDnsServers: [dns.server], webhookTimeoutMs: 300 },
  })
  const started = performance.now()
  const response = await call(app, {
    method: 'POST',
    url: '/webhooks',
    headers: { ...bearer(ADMIN), ...json },
    payload: JSON.stringify({ url: 'http://hook.example/', types: ['tugas.*'] }),
  })
  assert.equal(response.statusCode, 400)
  assert.deepEqual(response.json().error.details, { url: 'url host did not resolve in time' })
  assert.ok(performance.now() - started < 1000)
})

/** Times `count` concurrent POST /users (a scrypt each, on libuv's pool). */
async function timeUsers(app: Awaited<ReturnType<typeof testApp>>, from: number, count: number) {
  const started = performance.now()
  const answers = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      call(app, {
        method: 'POST',
        url: '/users',
        headers: json,
        payload: JSON.stringify({
          name: `Pengguna ${from + i}`,
          email: `p${from + i}@contoh.id`,
          password: 'rahasia-sekali',
        }),
      }),
    ),
  )
  for (const answer of answers) assert.equal(answer.statusCode, 201, answer.body)
  return performance.now() - started
}

test('deliveries to hosts the resolver never answers for: each a timeout within WEBHOOK_TIMEOUT_MS, POST /users as fast', async () => {
  const timeoutMs = 1500
  const app = await testApp({
    config: { webhookDnsServers: [dns.server], webhookTimeoutMs: timeoutMs },
  })
  const baseline = await timeUsers(app, 0, 8)
  // Through the store: the API refuses a host that does not resolve. Eight subscriptions, so
  // that more lookups are in flight (72) than libuv's pool has threads (4) many times over.
  const { webhooks } = storesOf(app)
  const ids: number[] = []
  for (let i = 0; i < 8; i++) {
    const url = `http://hook-${i}.example/`
    ids.push((await webhooks.create({ url, types: ['tugas.*'], secret: SECRET })).id)
  }
  const queriesBefore = dns.queries
  for (let i = 0; i < 20; i++) {
    const task = await callJson(
      app,
      'POST',
      '/tugas',
      JSON.stringify({ title: `Tugas ${i}`, status: 'belum' }),
    )
    assert.equal(task.statusCode, 201)
  }
  await new Promise((resolve) => setTimeout(resolve, 100))
  assert.ok(dns.queries - queriesBefore >= 16, `${dns.queries - queriesBefore} queries`)
  const during = await timeUsers(app, 100, 8)
  assert.ok(
    during < baseline * 3 + 200,
    `8 POST /users took ${Math.round(during)} ms with lookups hanging, ${Math.round(baseline)} ms before`,
  )
  // Each attempt ended at its timeout, resolution included, as a timeout.
  let kept: { error: string | null; duration_ms: number; result: string }[] = []
  for (let waited = 0; kept.length === 0 && waited < timeoutMs * 3; waited += 50) {
    kept = await webhooks.attempts(ids[0] as number)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const [first] = kept
  assert.equal(first?.error, 'timeout: the host did not resolve in time')
  assert.equal(first?.result, 'retrying')
  assert.ok(
    (first?.duration_ms ?? 0) >= timeoutMs * 0.9 && (first?.duration_ms ?? 0) < timeoutMs + 300,
    `${first?.duration_ms} ms`,
  )
})
