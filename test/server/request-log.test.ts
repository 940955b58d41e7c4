// The request log's one line per request, and what it counts whether or not the line is written.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import Fastify, { type FastifyInstance } from 'fastify'
import { apiVersion, markApiVersion, trackApiVersions } from '../../src/http/api-version.js'
import { Metrics } from '../../src/metrics/index.js'
import { MemoryVersionCounts, type VersionCounts } from '../../src/metrics/version-counts.js'
import { RequestLog } from '../../src/server/request-log.js'
import { lazyChildren } from '../../src/server/request-logger.js'
import { closedAfter } from '../support/helpers.js'

type Line = Record<string, unknown>

const V2 = apiVersion('tugas', 'v2')

/** An app with the service's request log at `level`: a versioned route, a plain one, a failing one. */
async function loggedApp(level: string, counts: VersionCounts, lines: Line[]) {
  const metrics = new Metrics({ workers: 1 })
  const app = Fastify({
    logger: { level, stream: { write: (line: string) => void lines.push(JSON.parse(line)) } },
    logController: new RequestLog(counts, metrics),
  })
  lazyChildren(app.log)
  trackApiVersions(app)
  app.get('/versioned', async (request) => {
    markApiVersion(request, V2)
    return { ok: true }
  })
  app.get('/plain', async () => ({ ok: true }))
  // What reaches the log as a failed response (an `onResponse` step that failed, or the
  // response stream's error): the log's `error` case.
  app.get('/fails', async () => ({ ok: false }))
  app.addHook('onResponse', (request, _reply, done) => {
    done(request.url === '/fails' ? new Error('broken') : undefined)
  })
  await app.ready()
  closedAfter(app)
  return { app, metrics }
}

/** The request log's lines of `lines`, once the log has had a turn to write them. */
async function completedLines(lines: Line[]): Promise<Line[]> {
  await new Promise((resolve) => setImmediate(resolve))
  return lines.filter((line) => line.method !== undefined)
}

const get = async (app: FastifyInstance, url: string) => (await app.inject({ url })).statusCode

describe('the request log', () => {
  test('at info: one line a request, the versioned one with its running count', async () => {
    const lines: Line[] = []
    const { app } = await loggedApp('info', new MemoryVersionCounts(), lines)
    assert.equal(await get(app, '/versioned'), 200)
    assert.equal(await get(app, '/versioned'), 200)
    assert.equal(await get(app, '/plain'), 200)
    const logged = await completedLines(lines)
    assert.deepEqual(
      logged.map(({ msg, url, statusCode, apiVersion, apiVersionCount }) => ({
        msg,
        url,
        statusCode,
        apiVersion,
        apiVersionCount,
      })),
      [
        { msg: 'request completed', url: '/versioned', statusCode: 200, ...counted(1) },
        { msg: 'request completed', url: '/versioned', statusCode: 200, ...counted(2) },
        { msg: 'request completed', url: '/plain', statusCode: 200, ...counted() },
      ],
    )
    assert.ok(logged.every((line) => typeof line.responseTimeMs === 'number'))
  })

  test('at warn: no line for an answered request, yet every versioned one is counted', async () => {
    const counts = new MemoryVersionCounts()
    const lines: Line[] = []
    const { app, metrics } = await loggedApp('warn', counts, lines)
    assert.equal(await get(app, '/versioned'), 200)
    assert.equal(await get(app, '/versioned'), 200)
    assert.equal(await get(app, '/plain'), 200)
    assert.deepEqual(await completedLines(lines), [])
    // The running count went on: the next request of the version, logged at info, is the third.
    const infoLines: Line[] = []
    const { app: next } = await loggedApp('info', counts, infoLines)
    assert.equal(await get(next, '/versioned'), 200)
    assert.deepEqual(
      (await completedLines(infoLines)).map((line) => line.apiVersionCount),
      [3],
    )
    const text = await metrics.text()
    assert.match(text, /^tugas_api_version_requests_total\{api="tugas",version="v2"\} 2$/m)
    assert.match(
      text,
      /^tugas_http_requests_total\{route="\/plain",method="GET",status_code="200"\} 1$/m,
    )
  })

  test('at warn and at error: a response that failed is written, with its error', async () => {
    for (const level of ['warn', 'error']) {
      const lines: Line[] = []
      const { app } = await loggedApp(level, new MemoryVersionCounts(), lines)
      await app.inject({ url: '/fails' })
      const errored = (await completedLines(lines)).filter((line) => line.url === '/fails')
      assert.equal(errored.length, 1, level)
      assert.equal(errored[0]?.msg, 'request errored')
      assert.equal((errored[0]?.err as { message?: string } | undefined)?.message, 'broken')
    }
  })

  test('at fatal: nothing is written, not even a failure', async () => {
    const lines: Line[] = []
    const { app } = await loggedApp('fatal', new MemoryVersionCounts(), lines)
    await app.inject({ url: '/fails' })
    assert.equal(await get(app, '/plain'), 200)
    assert.deepEqual(await completedLines(lines), [])
  })
})

/** The version fields of a line: `tugas v2` with `count`, or none for an unversioned request. */
function counted(count?: number) {
  return count === undefined
    ? { apiVersion: undefined, apiVersionCount: undefined }
    : { apiVersion: 'tugas v2', apiVersionCount: count }
}
