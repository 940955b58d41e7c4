// GET /metrics under WORKERS=2: whichever worker a scrape lands on, it answers the metrics of
// both, summed (the worker asks the primary, which gathers every worker's over IPC). Each
// request goes on a connection of its own, so both workers serve some; their log lines say
// which worker (pid) served which.
import assert from 'node:assert/strict'
import type { ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { setTimeout as pause } from 'node:timers/promises'
import { type Metrics, parseMetrics, sampleOf, samplesOf } from './support/metrics-text.js'
import { skipWithoutPostgres } from './support/postgres.js'
import { inRounds, listening, send, startTwoWorkers } from './support/processes.js'
import { skipWithoutRedis } from './support/redis.js'

type Line = Record<string, unknown>

const skip = (await skipWithoutPostgres()) || (await skipWithoutRedis())

describe('GET /metrics under WORKERS=2', { skip }, () => {
  const lines: Line[] = []
  let child: ChildProcess
  let base: string

  before(async () => {
    child = await startTwoWorkers()
    base = await listening(child, lines)
  })

  after(() => {
    child.kill('SIGKILL')
  })

  /** The pid of the worker that served the request with this X-Request-Id, once logged. */
  async function servedBy(id: string): Promise<number> {
    for (let i = 0; i < 100; i++) {
      const line = lines.find((entry) => entry.reqId === id)
      if (line) return line.pid as number
      await pause(20)
    }
    return assert.fail(`no log line for request ${id}`)
  }

  /** A request on a connection of its own: its answer and the worker that served it. */
  async function traced(method: string, path: string, headers: Record<string, string> = {}) {
    const id = `m-${randomBytes(6).toString('hex')}`
    const answer = await send(base, method, path, { id, headers })
    return { ...answer, pid: await servedBy(id) }
  }

  async function scrape(): Promise<Metrics & { pid: number }> {
    const answer = await traced('GET', '/metrics')
    assert.equal(answer.status, 200, answer.body)
    assert.equal(answer.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8')
    return { ...parseMetrics(answer.body), pid: answer.pid }
  }

  const taskReads = (metrics: Metrics) =>
    sampleOf(metrics, 'tugas_http_requests_total', {
      route: '/tugas/:id',
      method: 'GET',
      status_code: '200',
    })

  test('every scrape, on either worker, reports the requests of both, summed', async () => {
    // Requests until both workers have served some, and at least twenty in all.
    const reads = await inRounds(
      () => traced('GET', '/tugas/1'),
      (answers) => answers.length >= 20 && new Set(answers.map(({ pid }) => pid)).size === 2,
    )
    assert.deepEqual(new Set(reads.map(({ status }) => status)), new Set([200]))
    const servers = new Set(reads.map(({ pid }) => pid))
    const sent = reads.length
    assert.equal(servers.size, 2, `both workers served GET /tugas/1: ${[...servers]}`)
    const versioned = [await traced('GET', '/v2/tugas'), await traced('GET', '/v2/tugas')]
    assert.deepEqual(
      versioned.map(({ status }) => status),
      [200, 200],
    )
    // The /laporan bucket is shared in Redis: 3 admitted, then refused, whichever worker.
    const key = { 'x-api-key': 'demo-admin-token' }
    const laporan = []
    for (let i = 0; i < 5; i++) laporan.push((await traced('GET', '/laporan', key)).status)
    assert.deepEqual(laporan, [200, 200, 200, 429, 429])

    // A request's count lands when its response is done; allow the last one a moment.
    let metrics = await scrape()
    for (let i = 0; i < 50 && taskReads(metrics) !== sent; i++) {
      await pause(20)
      metrics = await scrape()
    }

    const scrapes = await inRounds(
      scrape,
      (answers) => new Set(answers.map(({ pid }) => pid)).size === 2 && answers.length >= 8,
    )
    const scrapedBy = new Set<number>()
    for (const [i, each] of scrapes.entries()) {
      metrics = each
      scrapedBy.add(metrics.pid)
      assert.equal(taskReads(metrics), sent, `scrape ${i} by worker ${metrics.pid}`)
      assert.equal(
        sampleOf(metrics, 'tugas_http_request_duration_seconds_count', {
          route: '/tugas/:id',
          method: 'GET',
        }),
        sent,
      )
      assert.equal(
        sampleOf(metrics, 'tugas_api_version_requests_total', { api: 'tugas', version: 'v2' }),
        2,
      )
      const decisions = (result: string) =>
        sampleOf(metrics, 'tugas_laporan_rate_limit_decisions_total', { result })
      assert.deepEqual(
        [decisions('admitted'), decisions('refused'), decisions('unavailable')],
        [3, 2, 0],
      )
      // The scrapes themselves are not counted.
      assert.ok(
        samplesOf(metrics, 'tugas_http_requests_total').every(
          ({ labels }) => labels.route !== '/metrics',
        ),
      )
    }
    assert.equal(scrapedBy.size, 2, 'both workers answered scrapes')

    // Pool gauges summed over the workers; process metrics one series per worker (pid).
    const connections = sampleOf(metrics, 'tugas_postgres_pool_connections', {})
    assert.ok(connections !== undefined && connections >= 0 && connections <= 20)
    const pids = samplesOf(metrics, 'tugas_process_resident_memory_bytes').map(({ labels }) =>
      Number(labels.pid),
    )
    assert.deepEqual(pids.sort(), [...servers.keys()].sort())
    assert.equal(samplesOf(metrics, 'tugas_process_start_time_seconds').length, 2)
  })
})
