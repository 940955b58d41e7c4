// GET /metrics: Prometheus text of the app's own registry. Requests by route pattern (never the
// raw URL), method and status; their latency; per-version counts; the /laporan limiter's
// decisions; the PostgreSQL pool when the stores are there; Node's process metrics.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { LATENCY_BUCKETS } from '../../../src/metrics/requests.js'
import type { RateLimiter } from '../../../src/rate-limit/limiter.js'
import { ServiceUnavailableError } from '../../../src/store/unavailable.js'
import { json, TEST_STORE, testApp } from '../../support/helpers.js'
import { parseMetrics, sampleOf, samplesOf } from '../../support/metrics-text.js'
import { freshDatabaseUrl, skipWithoutPostgres } from '../../support/postgres.js'

const ADMIN_KEY = { 'x-api-key': 'demo-admin-token' }

async function scrape(app: FastifyInstance) {
  const response = await app.inject({ method: 'GET', url: '/metrics' })
  assert.equal(response.statusCode, 200)
  assert.equal(response.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8')
  return parseMetrics(response.body)
}

describe('GET /metrics', () => {
  test('counts requests by route pattern, method and status code', async () => {
    const app = await testApp({ config: { tugasVersioning: 'path' } })
    const sent: [string, string, number][] = [
      ['GET', '/tugas/1', 200],
      ['GET', '/tugas/002', 200],
      ['GET', '/tugas/99', 404],
      ['GET', '/tidak-ada', 404],
      ['GET', '/tugas/abc', 404],
      ['POST', '/tugas', 201],
      ['GET', '/v2/tugas', 200],
      ['GET', '/api/tugas/abc', 400],
    ]
    for (const [method, url, status] of sent) {
      const response = await app.inject({
        method: method as 'GET' | 'POST',
        url,
        ...(method === 'POST' && { headers: json, payload: { title: 'Belajar metrik' } }),
      })
      assert.equal(response.statusCode, status, `${method} ${url}`)
    }
    // A body the JSON parser refuses: the framework's error, counted on its route.
    const malformed = await app.inject({
      method: 'POST',
      url: '/tugas',
      headers: json,
      payload: '{',
    })
    assert.equal(malformed.statusCode, 400)
    // A target the router cannot read: Fastify's framework-error path, counted all the same.
    assert.equal((await app.inject({ method: 'OPTIONS', url: '*' })).statusCode, 404)

    const metrics = await scrape(app)
    const requests = (route: string, method: string, status: string) =>
      sampleOf(metrics, 'tugas_http_requests_total', { route, method, status_code: status })
    assert.equal(requests('/tugas/:id', 'GET', '200'), 2)
    assert.equal(requests('/tugas/:id', 'GET', '404'), 1)
    // Unknown paths, and paths whose form no route accepts, are one label.
    assert.equal(requests('unmatched', 'GET', '404'), 2)
    assert.equal(requests('unmatched', 'OPTIONS', '404'), 1)
    assert.equal(requests('/tugas', 'POST', '201'), 1)
    assert.equal(requests('/tugas', 'POST', '400'), 1)
    assert.equal(requests('/v2/tugas', 'GET', '200'), 1)
    assert.equal(requests('/api/tugas/:id', 'GET', '400'), 1)

    const all = samplesOf(metrics, 'tugas_http_requests_total')
    assert.equal(all.length, 8, 'no other series')
    assert.equal(
      all.reduce((total, sample) => total + sample.value, 0),
      sent.length + 2,
    )
    // Bounded label values: patterns, never a raw URL.
    assert.deepEqual([...new Set(all.map(({ labels }) => labels.route))].sort(), [
      '/api/tugas/:id',
      '/tugas',
      '/tugas/:id',
      '/v2/tugas',
      'unmatched',
    ])
  })

  test('the latency histogram counts every request, in seconds, by route and method', async () => {
    const app = await testApp()
    for (let i = 0; i < 3; i++) await app.inject({ method: 'GET', url: '/tugas/1' })
    await app.inject({ method: 'GET', url: '/tugas/9999' })
    await app.inject({ method: 'POST', url: '/tugas', headers: json, payload: { title: 'Tiga' } })
    await app.inject({ method: 'GET', url: '/tidak-ada' })
    const metrics = await scrape(app)

    const name = 'tugas_http_request_duration_seconds'
    const count = (route: string, method: string) =>
      sampleOf(metrics, `${name}_count`, { route, method })
    assert.equal(count('/tugas/:id', 'GET'), 4)
    assert.equal(count('/tugas', 'POST'), 1)
    assert.equal(count('unmatched', 'GET'), 1)
    const counts = samplesOf(metrics, `${name}_count`)
    assert.equal(
      counts.reduce((total, sample) => total + sample.value, 0),
      6,
      'the histogram counts as many requests as were sent',
    )
    assert.deepEqual(
      counts.reduce((total, sample) => total + sample.value, 0),
      samplesOf(metrics, 'tugas_http_requests_total').reduce((total, s) => total + s.value, 0),
    )

    // Buckets are cumulative, in seconds, and end with +Inf equal to the count.
    const buckets = samplesOf(metrics, `${name}_bucket`).filter(
      ({ labels }) => labels.route === '/tugas/:id' && labels.method === 'GET',
    )
    assert.deepEqual(
      buckets.map(({ labels }) => labels.le),
      [...LATENCY_BUCKETS.map(String), '+Inf'],
    )
    assert.ok(LATENCY_BUCKETS[0] !== undefined && LATENCY_BUCKETS[0] <= 0.0001)
    for (let i = 1; i < buckets.length; i++) {
      assert.ok((buckets[i]?.value ?? 0) >= (buckets[i - 1]?.value ?? 0), 'cumulative')
    }
    assert.equal(buckets.at(-1)?.value, 4)
    const sum = sampleOf(metrics, `${name}_sum`, { route: '/tugas/:id', method: 'GET' }) ?? -1
    assert.ok(sum > 0 && sum < 4, `the sum is in seconds: ${sum}`)
    assert.equal(metrics.types.get(name), 'histogram')
    assert.equal(metrics.types.get('tugas_http_requests_total'), 'counter')
  })

  test('counts the requests each API version answered', async () => {
    const app = await testApp({ config: { tugasVersioning: 'path' } })
    for (const url of ['/v2/tugas', '/v2/tugas?batas=2', '/v1/tugas', '/v1/produk', '/tugas']) {
      await app.inject({ method: 'GET', url })
    }
    const metrics = await scrape(app)
    // One label per dimension: the API, and its version.
    const version = (api: string, version: string) =>
      sampleOf(metrics, 'tugas_api_version_requests_total', { api, version })
    assert.equal(version('tugas', 'v2'), 2)
    assert.equal(version('tugas', 'v1'), 1)
    assert.equal(version('produk', 'v1'), 1)
    // Path mode's plain /tugas is a 404 that counts for no version.
    const samples = samplesOf(metrics, 'tugas_api_version_requests_total')
    assert.equal(samples.length, 3)
    for (const { labels } of samples)
      assert.deepEqual(Object.keys(labels).sort(), ['api', 'version'])
    // So a query can sum by version across APIs, or by API across versions.
    const sumWhere = (label: string, value: string) =>
      samples.filter(({ labels }) => labels[label] === value).reduce((sum, s) => sum + s.value, 0)
    assert.equal(sumWhere('version', 'v1'), 2)
    assert.equal(sumWhere('api', 'tugas'), 3)
    assert.equal(metrics.types.get('tugas_api_version_requests_total'), 'counter')
  })

  test('counts the /laporan limiter decisions: admitted and refused', async () => {
    const app = await testApp({ config: { rateLimitCapacity: 3 } })
    const statuses: number[] = []
    for (let i = 0; i < 5; i++) {
      statuses.push(
        (await app.inject({ method: 'GET', url: '/laporan', headers: ADMIN_KEY })).statusCode,
      )
    }
    assert.deepEqual(statuses, [200, 200, 200, 429, 429])
    // No key, or an unknown one: refused before the limiter, no decision.
    assert.equal((await app.inject({ method: 'GET', url: '/laporan' })).statusCode, 401)
    const unknown = { 'x-api-key': 'tidak-dikenal' }
    assert.equal(
      (await app.inject({ method: 'GET', url: '/laporan', headers: unknown })).statusCode,
      401,
    )

    const metrics = await scrape(app)
    const decisions = (result: string) =>
      sampleOf(metrics, 'tugas_laporan_rate_limit_decisions_total', { result })
    assert.equal(decisions('admitted'), 3)
    assert.equal(decisions('refused'), 2)
    assert.equal(decisions('unavailable'), 0)
    const requests = (status: string) =>
      sampleOf(metrics, 'tugas_http_requests_total', {
        route: '/laporan',
        method: 'GET',
        status_code: status,
      })
    assert.equal(requests('200'), 3)
    assert.equal(requests('429'), 2)
    assert.equal(requests('401'), 2)
  })

  test('counts a limiter that cannot decide (its store out of reach) as unavailable', async () => {
    const limiter: RateLimiter = {
      policy: { capacity: 3, refillPerSecond: 1 },
      take: async () => {
        throw new ServiceUnavailableError('redis')
      },
    }
    const app = await testApp({ limiter })
    const response = await app.inject({ method: 'GET', url: '/laporan', headers: ADMIN_KEY })
    assert.equal(response.statusCode, 503)
    const metrics = await scrape(app)
    const decisions = (result: string) =>
      sampleOf(metrics, 'tugas_laporan_rate_limit_decisions_total', { result })
    assert.deepEqual(
      [decisions('admitted'), decisions('refused'), decisions('unavailable')],
      [0, 0, 1],
    )
  })

  test('is open, not counted itself, and shows the process metrics with the tugas_ prefix', async () => {
    const app = await testApp()
    await app.inject({ method: 'GET', url: '/tugas/1' })
    await scrape(app)
    await scrape(app)
    const head = await app.inject({ method: 'HEAD', url: '/metrics' })
    assert.equal(head.statusCode, 200)
    const metrics = await scrape(app)
    const routes = samplesOf(metrics, 'tugas_http_requests_total').map(({ labels }) => labels.route)
    assert.deepEqual(routes, ['/tugas/:id'])
    for (const name of [
      'tugas_process_cpu_user_seconds_total',
      'tugas_process_resident_memory_bytes',
      'tugas_nodejs_heap_size_used_bytes',
      'tugas_nodejs_eventloop_lag_seconds',
    ]) {
      assert.equal(samplesOf(metrics, name).length, 1, name)
    }
    for (const name of metrics.types.keys()) assert.match(name, /^tugas_/)
    if (TEST_STORE === 'memory') {
      assert.equal(samplesOf(metrics, 'tugas_postgres_pool_connections').length, 0)
    }
  })

  test('each app counts in a registry of its own', async () => {
    const first = await testApp()
    const second = await testApp()
    await first.inject({ method: 'GET', url: '/tugas/1' })
    await first.inject({ method: 'GET', url: '/tugas/1' })
    await second.inject({ method: 'GET', url: '/tugas/2' })
    const labels = { route: '/tugas/:id', method: 'GET', status_code: '200' }
    assert.equal(sampleOf(await scrape(first), 'tugas_http_requests_total', labels), 2)
    assert.equal(sampleOf(await scrape(second), 'tugas_http_requests_total', labels), 1)
  })
})

describe('GET /metrics on PostgreSQL', { skip: await skipWithoutPostgres() }, () => {
  test('shows the pool: connections open, idle, and statements waiting', async () => {
    const app = await testApp({ config: { databaseUrl: await freshDatabaseUrl() } })
    assert.equal((await app.inject({ method: 'GET', url: '/tugas/1' })).statusCode, 200)
    const metrics = await scrape(app)
    const gauge = (name: string) => {
      assert.equal(metrics.types.get(name), 'gauge', name)
      return sampleOf(metrics, name, {}) ?? assert.fail(`no ${name}`)
    }
    const total = gauge('tugas_postgres_pool_connections')
    const idle = gauge('tugas_postgres_pool_idle_connections')
    const waiting = gauge('tugas_postgres_pool_waiting_requests')
    assert.ok(total >= 1 && total <= 10, `total ${total}`)
    assert.ok(idle >= 0 && idle <= total, `idle ${idle}`)
    assert.equal(waiting, 0)
    assert.equal(
      sampleOf(metrics, 'tugas_http_requests_total', {
        route: '/tugas/:id',
        method: 'GET',
        status_code: '200',
      }),
      1,
    )
  })
})
