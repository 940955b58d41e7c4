// Fault test: the /laporan token buckets in Redis, reached through a TCP proxy this file
// controls. While Redis cannot be reached, /laporan answers 503 in the E2 shape with
// `Retry-After: 1` (fail closed: never unlimited) within a bounded time, every other endpoint
// answers as usual (a versioned list too, its log line without a count), and /health/ready
// says so; once the link is back, the same app limits and counts again.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { defaults } from '../src/config.js'
import { createInfrastructure } from '../src/infrastructure.js'
import { demoSeed } from '../src/seed.js'
import { StartUpError } from '../src/start-up-error.js'
import { FaultyLink } from './support/faulty-link.js'
import { testApp } from './support/helpers.js'
import { freshPrefix, REDIS_URL, skipWithoutRedis } from './support/redis.js'

const REPORT = {
  method: 'GET' as const,
  url: '/laporan',
  headers: { 'x-api-key': 'demo-admin-token' },
}

describe('Redis out of reach at run time', { skip: await skipWithoutRedis() }, () => {
  let link: FaultyLink
  let app: FastifyInstance
  const logs: Record<string, unknown>[] = []

  /** The log line of one GET /v2/tugas, once written (after Redis counted it, or failed to). */
  async function versionedLine(): Promise<Record<string, unknown>> {
    const before = logs.length
    assert.equal((await app.inject({ method: 'GET', url: '/v2/tugas' })).statusCode, 200)
    const line = () => logs.slice(before).find((entry) => entry.url === '/v2/tugas')
    const deadline = performance.now() + 3000
    while (line() === undefined && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    return line() ?? assert.fail('no log line for /v2/tugas within 3 s')
  }

  before(async () => {
    const upstream = new URL(REDIS_URL)
    link = new FaultyLink({ host: upstream.hostname, port: Number(upstream.port || 6379) })
    await link.listen()
    const config = {
      redisUrl: `redis://127.0.0.1:${link.port}`,
      redisKeyPrefix: freshPrefix(),
      tugasVersioning: 'path' as const,
    }
    app = await testApp({ config, logs, closedBy: 'caller' })
  })

  after(async () => {
    await app.close()
    await link.close()
  })

  test('through an open link: the bucket in Redis admits 3, then 429; ready reports redis ok', async () => {
    const statuses = []
    for (let i = 0; i < 4; i++) statuses.push((await app.inject(REPORT)).statusCode)
    assert.deepEqual(statuses, [200, 200, 200, 429])
    const ready = await app.inject({ method: 'GET', url: '/health/ready' })
    assert.equal(ready.statusCode, 200)
    // With TUGAS_TEST_STORE=postgres the checks also name postgres.
    assert.equal(ready.json().status, 'ok')
    assert.equal(ready.json().checks.redis, 'ok')
    const line = await versionedLine()
    assert.equal(line.apiVersion, 'tugas v2')
    assert.equal(line.apiVersionCount, 1)
  })

  for (const fault of ['cut', 'stall'] as const) {
    test(`${fault}: /laporan is 503 SERVICE_UNAVAILABLE with Retry-After: 1 within 3 s; the rest answers`, async () => {
      link[fault]()
      try {
        for (let i = 0; i < 3; i++) {
          const started = performance.now()
          const response = await app.inject(REPORT)
          assert.ok(performance.now() - started < 3000, 'answered within 3 s')
          assert.equal(response.statusCode, 503)
          assert.equal(response.headers['retry-after'], '1')
          assert.equal(response.json().error.code, 'SERVICE_UNAVAILABLE')
        }
        assert.equal((await app.inject({ method: 'GET', url: '/tugas/1' })).statusCode, 200)
        assert.equal(
          (
            await app.inject({
              method: 'GET',
              url: '/dokumen/1',
              headers: { authorization: 'Bearer demo-budi-token' },
            })
          ).statusCode,
          200,
        )
        // The throttle of failed credentials lets them through uncounted: 401, each of its
        // check and count waiting half a second at most (docs/decisions.md).
        const started = performance.now()
        const unknown = await app.inject({
          method: 'GET',
          url: '/profil',
          headers: { authorization: 'Bearer tidak-dikenal' },
        })
        assert.equal(unknown.statusCode, 401)
        assert.ok(performance.now() - started < 1500, 'an unknown credential answered within 1.5 s')
        const ready = await app.inject({ method: 'GET', url: '/health/ready' })
        assert.equal(ready.statusCode, 503)
        assert.equal(ready.json().checks.redis, 'unavailable')
        // Counting is best effort: the list answers, its line tells the version without a count.
        const line = await versionedLine()
        assert.equal(line.apiVersion, 'tugas v2')
        assert.equal(line.apiVersionCount, undefined)
      } finally {
        await link.restore()
      }
    })

    test(`after the ${fault}: the same app limits again, without a restart`, async () => {
      const deadline = performance.now() + 5000
      let status = 503
      while (status === 503 && performance.now() < deadline) {
        status = (await app.inject(REPORT)).statusCode
        if (status === 503) await new Promise((resolve) => setTimeout(resolve, 100))
      }
      assert.ok(status === 200 || status === 429, `answered ${status} after the link came back`)
      const ready = await app.inject({ method: 'GET', url: '/health/ready' })
      assert.equal(ready.statusCode, 200)
      assert.equal(typeof (await versionedLine()).apiVersionCount, 'number')
    })
  }
})

test('a Redis that cannot be reached refuses start-up in one line, without the password', async () => {
  const config = { ...defaults, redisUrl: 'redis://:s3cret@127.0.0.1:1/0' }
  await assert.rejects(
    createInfrastructure(config, demoSeed),
    (error: unknown) =>
      error instanceof StartUpError &&
      error.message ===
        'REDIS_URL: cannot use Redis at 127.0.0.1:1 (connect ECONNREFUSED 127.0.0.1:1)',
  )
})
