// What the HTTP parser and the time limits refuse before any route sees the request: answered in
// surface A's E1 shape (decisions.md 2's generic fallback), never Fastify's default body, and
// the connection closed. Over a real socket: none of this exists for app.inject.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { testApp } from '../support/helpers.js'
import { exchange, listenOnLoopback, type RawAnswer, request } from '../support/raw-http.js'

const LIMITS = { requestTimeoutMs: 900, headersTimeoutMs: 450, keepAliveTimeoutMs: 300 }

let app: FastifyInstance
let port: number
const logs: Record<string, unknown>[] = []

before(async () => {
  app = await testApp({ config: LIMITS, logs, closedBy: 'caller' })
  port = await listenOnLoopback(app)
})
after(() => app.close())

function assertE1(answer: RawAnswer, status: number, kode: string, pesan: string) {
  assert.equal(answer.status, status)
  assert.equal(answer.headers['content-type'], 'application/json; charset=utf-8')
  assert.equal(answer.headers.connection, 'close')
  assert.deepEqual(JSON.parse(answer.body), { error: { kode, pesan } })
  // One log line for it, under the id the client was given.
  const id = answer.headers['x-request-id']
  assert.ok(id)
  const line = logs.find((entry) => entry.reqId === id)
  assert.equal(line?.msg, 'request refused')
  assert.equal(line?.statusCode, status)
}

const badRequest = (answer: RawAnswer) =>
  assertE1(answer, 400, 'PERMINTAAN_TIDAK_VALID', 'request is not valid')
const timedOut = (answer: RawAnswer) =>
  assertE1(answer, 408, 'WAKTU_HABIS', 'request was not received in time')

describe('requests the HTTP parser rejects', () => {
  test('a method with spaces in it (G E T) is 400 in E1, and the connection is closed', async () => {
    badRequest(await exchange(port, ['G E T /api/tugas/3 HTTP/1.1\r\nHost: x\r\n\r\n']))
  })

  test('a raw non-ASCII byte in the path is 400 in E1', async () => {
    const head = Buffer.concat([
      Buffer.from('GET /tugas/'),
      Buffer.from([0xff]),
      Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n'),
    ])
    badRequest(await exchange(port, [head]))
  })

  test('a request line of garbage is 400 in E1', async () => {
    badRequest(await exchange(port, ['\u0001\u0002 nonsense \r\n\r\n']))
    badRequest(await exchange(port, ['GET /tugas HTTP/9.9.9\r\n\r\n']))
  })

  test('a bad header line is 400 in E1', async () => {
    badRequest(await exchange(port, ['GET /tugas HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n']))
  })

  test('a 20 KB header is 431 HEADER_TERLALU_BESAR in E1', async () => {
    const answer = await exchange(port, [request('GET', '/tugas', { 'x-big': 'a'.repeat(20_000) })])
    assertE1(answer, 431, 'HEADER_TERLALU_BESAR', 'request headers are too large')
  })

  test('the bytes after a rejected request are not read as another request', async () => {
    const answer = await exchange(port, [
      `G E T / HTTP/1.1\r\nHost: x\r\n\r\n${request('DELETE', '/tugas/1')}`,
    ])
    badRequest(answer)
    assert.equal((await app.inject({ url: '/tugas/1' })).statusCode, 200)
  })
})

describe('time limits', () => {
  test('a head that never ends is 408 WAKTU_HABIS once HEADERS_TIMEOUT_MS has passed', async () => {
    const answer = await exchange(port, ['GET /tugas HTTP/1.1\r\nHost: x\r\n'])
    timedOut(answer)
    assert.ok(answer.closedAfterMs >= LIMITS.headersTimeoutMs, `${answer.closedAfterMs} ms`)
    assert.ok(answer.closedAfterMs < LIMITS.requestTimeoutMs + 1000, `${answer.closedAfterMs} ms`)
  })

  test('a body sent one byte at a time is 408 once REQUEST_TIMEOUT_MS has passed', async () => {
    const body = JSON.stringify({ title: 'x'.repeat(60) })
    const head = request('POST', '/tugas', {
      'content-type': 'application/json',
      'content-length': String(body.length),
    })
    // Sent in full, the body would take 80 x 50 ms = 4 s.
    const answer = await exchange(port, [head, ...body], { gapMs: 50 })
    timedOut(answer)
    assert.ok(answer.closedAfterMs >= LIMITS.requestTimeoutMs, `${answer.closedAfterMs} ms`)
    assert.ok(answer.closedAfterMs < 3000, `${answer.closedAfterMs} ms`)
    // Nothing was created from the half-sent body.
    const list = (await app.inject({ url: '/tugas' })).json() as { title: string }[]
    assert.ok(list.every((task) => task.title !== 'x'.repeat(60)))
  })

  test('a chunk announced as 2^64-1 bytes does not hold the connection: 408', async () => {
    const head = request('POST', '/tugas', {
      'content-type': 'application/json',
      'transfer-encoding': 'chunked',
    })
    const answer = await exchange(port, [`${head}ffffffffffffffff\r\n{"title":`])
    timedOut(answer)
    assert.ok(answer.closedAfterMs >= LIMITS.requestTimeoutMs, `${answer.closedAfterMs} ms`)
  })

  test('an idle keep-alive connection is closed after KEEP_ALIVE_TIMEOUT_MS', async () => {
    const answer = await exchange(port, ['GET /tugas/1 HTTP/1.1\r\nHost: x\r\n\r\n'])
    assert.equal(answer.status, 200)
    assert.equal(answer.headers['keep-alive'], 'timeout=0')
    assert.ok(answer.closedAfterMs >= LIMITS.keepAliveTimeoutMs, `${answer.closedAfterMs} ms`)
    assert.ok(answer.closedAfterMs < 3000, `${answer.closedAfterMs} ms`)
  })

  test('a request that arrives in time is answered as usual, whatever the limits', async () => {
    const answer = await exchange(port, [request('GET', '/tugas/1')])
    assert.equal(answer.status, 200)
    assert.deepEqual(JSON.parse(answer.body), { id: 1, title: 'Belajar REST', status: 'selesai' })
  })
})
