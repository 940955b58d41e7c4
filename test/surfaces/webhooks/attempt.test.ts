// One delivery attempt against a real receiver on loopback: the status kept, redirects not
// followed, a receiver that never answers timed out, a closed port refused, and the
// connection made to the address given, never to a second answer of the resolver.
import assert from 'node:assert/strict'
import { getEventListeners } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, test } from 'node:test'
import { attempt, delivered } from '../../../src/surfaces/webhooks/attempt.js'

interface Seen {
  url: string
  headers: IncomingMessage['headers']
  body: string
}

const seen: Seen[] = []
const answers = new Map<string, (response: ServerResponse) => void>()
const receiver = createServer((request, response) => {
  let body = ''
  request.setEncoding('utf8')
  request.on('data', (chunk: string) => {
    body += chunk
  })
  request.on('end', () => {
    seen.push({ url: request.url ?? '', headers: request.headers, body })
    const answer = answers.get(request.url ?? '')
    if (answer) answer(response)
    else response.writeHead(404).end()
  })
})
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
after(() => receiver.close())
const { port } = receiver.address() as AddressInfo
const loopback = { address: '127.0.0.1', family: 4 as const }
const at = (path: string) => new URL(`http://127.0.0.1:${port}${path}`)

answers.set('/ok', (response) => response.writeHead(204).end())
answers.set('/fails', (response) => response.writeHead(500).end('no'))
answers.set('/moved', (response) => response.writeHead(302, { location: '/ok' }).end())
answers.set('/silent', () => {})

test('a 2xx is delivered; the headers and the body arrive as given', async () => {
  seen.length = 0
  const body = '{"id":"1"}'
  const outcome = await attempt(at('/ok'), loopback, { 'webhook-id': '1' }, body, 2000)
  assert.equal(outcome.statusCode, 204)
  assert.equal(outcome.error, null)
  assert.ok(delivered(outcome))
  assert.equal(seen[0]?.body, body)
  assert.equal(seen[0]?.headers['webhook-id'], '1')
  assert.equal(seen[0]?.headers['content-length'], String(body.length))
})

test('another status is kept and not delivered; a redirect is not followed', async () => {
  seen.length = 0
  const failed = await attempt(at('/fails'), loopback, {}, '{}', 2000)
  assert.deepEqual([failed.statusCode, failed.error, delivered(failed)], [500, null, false])
  const moved = await attempt(at('/moved'), loopback, {}, '{}', 2000)
  assert.deepEqual([moved.statusCode, delivered(moved)], [302, false])
  assert.deepEqual(
    seen.map((request) => request.url),
    ['/fails', '/moved'],
  )
})

test('a receiver that never answers is given up on after the timeout', async () => {
  const outcome = await attempt(at('/silent'), loopback, {}, '{}', 200)
  assert.deepEqual([outcome.statusCode, outcome.error], [null, 'timeout'])
  assert.ok(outcome.durationMs >= 190 && outcome.durationMs < 2000, String(outcome.durationMs))
})

test('an aborted signal gives the attempt up at once; a settled one leaves no listener', async () => {
  const stopping = new AbortController()
  for (let i = 0; i < 12; i++) await attempt(at('/ok'), loopback, {}, '{}', 2000, stopping.signal)
  assert.equal(getEventListeners(stopping.signal, 'abort').length, 0)
  const pending = attempt(at('/silent'), loopback, {}, '{}', 60_000, stopping.signal)
  setTimeout(() => stopping.abort(), 50)
  const outcome = await pending
  assert.deepEqual([outcome.statusCode, outcome.error], [null, 'aborted'])
  assert.ok(outcome.durationMs < 5000, String(outcome.durationMs))
})

test('a closed port is a refused connection', async () => {
  const closed = createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  const free = (closed.address() as AddressInfo).port
  await new Promise((resolve) => closed.close(resolve))
  const outcome = await attempt(new URL(`http://127.0.0.1:${free}/`), loopback, {}, '{}', 2000)
  assert.deepEqual([outcome.statusCode, outcome.error], [null, 'connection refused'])
})

test("the connection goes to the address given, whatever the URL's host resolves to", async () => {
  seen.length = 0
  const url = new URL(`http://tugas-receiver.invalid:${port}/ok`)
  const outcome = await attempt(url, loopback, {}, '{}', 2000)
  assert.equal(outcome.statusCode, 204)
  assert.equal(seen[0]?.headers.host, `tugas-receiver.invalid:${port}`)
})
