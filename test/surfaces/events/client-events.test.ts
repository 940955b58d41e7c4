// The typed client's `events()` (src/client/events.ts) against the service listening on a
// port, on the test store: through a proxy that drops the connection every few events it
// gives every event once and in order, waiting the stream's `retry` before each reconnection;
// a reset is given to the consumer; a refused stream is an error; aborting ends it.
import assert from 'node:assert/strict'
import { connect, createServer, type Server, type Socket } from 'node:net'
import { test } from 'node:test'
import { events, FeedError, type FeedItem } from '../../../src/client/index.js'
import { createTaskAt, storesOf, testApp } from '../../support/helpers.js'
import { listenOnLoopback } from '../../support/raw-http.js'
import { eventsAfter } from '../../support/sse.js'

/**
 * A TCP proxy to the service that rewrites the stream's `retry: 2000` to `retry: <retry>` (as
 * many bytes, so the chunked framing holds) and cuts each connection in the middle of the
 * event after `every` events: the client sees a stream end mid-frame, as on a dropped link.
 */
class DroppingProxy {
  readonly #server: Server
  readonly #sockets = new Set<Socket>()
  /** When each connection was accepted and when it was cut (performance.now()). */
  readonly accepted: number[] = []
  readonly cuts: number[] = []
  port = 0

  constructor(upstreamPort: number, every: number, retry: string) {
    const replacement = `retry: ${retry.padStart(4, '0')}`
    this.#server = createServer((client) => {
      this.accepted.push(performance.now())
      const upstream = connect(upstreamPort, '127.0.0.1')
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket)
        socket.on('error', () => {})
        socket.on('close', () => this.#sockets.delete(socket))
      }
      client.pipe(upstream)
      let frames = 0
      upstream.on('data', (chunk: Buffer) => {
        // latin1: one character per byte, so positions in the text are positions in the bytes.
        const text = chunk.toString('latin1').replace('retry: 2000', replacement)
        let cut = -1
        for (let at = text.indexOf('\nid: '); at !== -1; at = text.indexOf('\nid: ', at + 1)) {
          frames += 1
          if (frames > every) {
            cut = at + 6
            break
          }
        }
        if (cut === -1) {
          client.write(Buffer.from(text, 'latin1'))
          return
        }
        client.write(Buffer.from(text.slice(0, cut), 'latin1'), () => {
          this.cuts.push(performance.now())
          client.destroy()
          upstream.destroy()
        })
        upstream.removeAllListeners('data')
      })
      upstream.on('close', () => client.destroy())
      client.on('close', () => upstream.destroy())
    })
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve))
    this.port = (this.#server.address() as { port: number }).port
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy()
    await new Promise<void>((resolve) => this.#server.close(() => resolve()))
  }
}

/** Reads `events(options)` until `count` items came, then aborts; resolves once it ended. */
async function collect(
  options: Omit<Parameters<typeof events>[0], 'signal'>,
  count: number,
): Promise<FeedItem[]> {
  const stop = new AbortController()
  const items: FeedItem[] = []
  for await (const item of events({ ...options, signal: stop.signal })) {
    items.push(item)
    if (items.length === count) stop.abort()
  }
  return items
}

test('through a link dropped every three events, every event comes once, in order, each reconnection after the stream’s retry', {
  timeout: 60_000,
}, async () => {
  const app = await testApp()
  const port = await listenOnLoopback(app)
  const url = `http://127.0.0.1:${port}`
  const proxy = new DroppingProxy(port, 3, '200')
  await proxy.listen()
  const subjects: number[] = []
  for (let n = 0; n < 10; n += 1) subjects.push(await createTaskAt(url, `Sebelum ${n}`))
  let opened = 0
  const reading = collect(
    {
      baseUrl: `http://127.0.0.1:${proxy.port}`,
      after: 0,
      types: ['tugas.*'],
      onOpen: () => {
        opened += 1
      },
    },
    30,
  )
  // Written while the feed is read: replayed or live, whichever each is when it comes.
  for (let n = 0; n < 20; n += 1) subjects.push(await createTaskAt(url, `Sesudah ${n}`))
  const items = await reading
  await proxy.close()
  const kept = await eventsAfter(storesOf(app).events, 0, 30)
  assert.deepEqual(
    items.map((item) => item.id),
    kept.map((event) => String(event.id)),
  )
  assert.deepEqual(
    items.map((item) => (item.type === 'tugas.created' ? item.data.id : undefined)),
    subjects,
  )
  assert.ok(proxy.cuts.length >= 9, `cut ${proxy.cuts.length} times`)
  assert.equal(opened, proxy.accepted.length)
  // Each reconnection waited the `retry` the stream sent (200 ms), not the default 2 s.
  for (const [n, cut] of proxy.cuts.entries()) {
    const next = proxy.accepted[n + 1]
    if (next === undefined) continue
    assert.ok(next - cut >= 195 && next - cut < 1500, `reconnected ${next - cut} ms after a cut`)
  }
})

test('a resume from events no longer kept gives the reset, then every kept event', {
  timeout: 30_000,
}, async () => {
  const app = await testApp({ config: { eventsRetain: 2 } })
  const url = `http://127.0.0.1:${await listenOnLoopback(app)}`
  const created = []
  for (let n = 0; n < 4; n += 1) created.push(await createTaskAt(url, `Tugas ${n}`))
  const log = storesOf(app).events
  const deadline = Date.now() + 10_000
  while ((await log.bounds()).newest < 4 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  const [reset, ...rest] = await collect({ baseUrl: url, after: '0' }, 3)
  const oldest = rest[0]?.id as string
  assert.deepEqual(reset, { type: 'reset', id: String(Number(oldest) - 1), data: { oldest } })
  assert.deepEqual(
    rest.map((item) => (item.type === 'tugas.created' ? item.data.id : item.type)),
    created.slice(2),
  )
})

test('a stream the service refuses is an error: a bad credential, an unknown type', async () => {
  const app = await testApp()
  const url = `http://127.0.0.1:${await listenOnLoopback(app)}`
  const refusal = async (options: Partial<Parameters<typeof events>[0]>) => {
    try {
      for await (const _ of events({ baseUrl: url, ...options })) assert.fail('an event came')
    } catch (error) {
      assert.ok(error instanceof FeedError, String(error))
      return { status: error.status, code: JSON.parse(error.body).error.code }
    }
    assert.fail('the feed ended')
  }
  assert.deepEqual(await refusal({ credential: 'not-a-credential' }), {
    status: 401,
    code: 'UNAUTHENTICATED',
  })
  assert.deepEqual(await refusal({ types: ['tugas.dibuat'] }), {
    status: 400,
    code: 'VALIDATION_ERROR',
  })
})

test('aborting ends the iteration while it waits, without an error', async () => {
  const app = await testApp()
  const url = `http://127.0.0.1:${await listenOnLoopback(app)}`
  const stop = new AbortController()
  const items: FeedItem[] = []
  // Aborted once open: the stream is live and has nothing to send, so the read is waiting.
  const onOpen = () => setTimeout(() => stop.abort(), 100)
  for await (const item of events({ baseUrl: url, signal: stop.signal, onOpen })) {
    items.push(item)
  }
  assert.deepEqual(items, [])
})
