// GET /events over HTTP/1.1 on a listening app, on the test store: framing, resume, reset,
// filters, who sees documents' events, errors, limits, slow readers and shutdown.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { storesOf, TEST_STORE, testApp } from '../../support/helpers.js'
import { freshDatabaseUrl } from '../../support/postgres.js'
import { listenOnLoopback } from '../../support/raw-http.js'
import { type Frame, openStream } from '../../support/sse.js'

interface Listening {
  app: FastifyInstance
  url: string
}

async function listeningApp(config: Parameters<typeof testApp>[0] = {}): Promise<Listening> {
  const app = await testApp(config)
  const port = await listenOnLoopback(app)
  return { app, url: `http://127.0.0.1:${port}` }
}

const admin = { authorization: 'Bearer demo-admin-token' }

async function send(url: string, method: string, body?: unknown, headers = {}) {
  const response = await fetch(url, {
    method,
    headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  })
  const text = await response.text()
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) }
}

const createTask = (url: string, title: string) => send(`${url}/tugas`, 'POST', { title })

const eventsOf = (frames: Frame[]) => frames.filter((frame) => frame.data !== undefined)
const withEvents = (count: number) => (frames: Frame[]) => eventsOf(frames).length >= count
const dataOf = (frame: Frame) => JSON.parse(frame.data as string)
/** The E2 `code` of an error answer. */
const codeOf = async (response: Response) =>
  ((await response.json()) as { error: { code: string } }).error.code

test('a stream: retry first, then each write as an event with its id, type and the answer as data', async () => {
  const { url } = await listeningApp()
  const stream = await openStream(`${url}/events`, { origin: 'https://app.example' })
  assert.equal(stream.status, 200)
  assert.equal(stream.headers['content-type'], 'text/event-stream; charset=utf-8')
  assert.equal(stream.headers['cache-control'], 'no-store')
  assert.equal(stream.headers['access-control-allow-origin'], '*')
  await stream.until((frames) => frames.length >= 1)
  assert.deepEqual(stream.frames[0], { retry: '2000' })
  const created = await createTask(url, 'Dari aliran')
  const patched = await send(`${url}/tugas/${created.body.id}`, 'PATCH', {})
  const [first, second] = eventsOf(await stream.until(withEvents(2)))
  stream.close()
  assert.equal(first?.event, 'tugas.created')
  assert.equal(second?.event, 'tugas.updated')
  const event = dataOf(first as Frame)
  assert.equal(event.id, first?.id)
  assert.equal(event.type, 'tugas.created')
  assert.equal(event.source, '/tugas')
  assert.equal(event.subject, String(created.body.id))
  assert.deepEqual(event.data, created.body)
  assert.deepEqual(dataOf(second as Frame).data, patched.body)
  assert.ok(Number(second?.id) > Number(first?.id))
})

test('resuming with after, or Last-Event-ID which wins, gives every event after it once, then live', async () => {
  const { url } = await listeningApp()
  const live = await openStream(`${url}/events`)
  for (let n = 0; n < 5; n += 1) await createTask(url, `Tugas ${n}`)
  const all = eventsOf(await live.until(withEvents(5)))
  const firstId = all[0]?.id as string
  // Writes keep landing while the resumed stream replays: nothing missed or repeated at the seam.
  const burst = Promise.all(Array.from({ length: 20 }, (_, n) => createTask(url, `Serbu ${n}`)))
  const resumed = await openStream(`${url}/events?after=999999&types=tugas.*`, {
    'last-event-id': firstId,
  })
  await burst
  const everything = eventsOf(await live.until(withEvents(25)))
  const replayed = eventsOf(await resumed.until(withEvents(24)))
  live.close()
  resumed.close()
  assert.deepEqual(
    replayed.map((frame) => frame.id),
    everything.slice(1).map((frame) => frame.id),
  )
  // A replayed event is the same JSON as when it was first sent.
  assert.deepEqual(replayed.slice(0, 4), everything.slice(1, 5))
})

test('an id older than what is kept starts with a reset naming the oldest kept, then every kept event', async () => {
  const { url } = await listeningApp({ config: { eventsRetain: 2 } })
  const live = await openStream(`${url}/events`)
  const created = []
  for (let n = 0; n < 4; n += 1) created.push((await createTask(url, `Tugas ${n}`)).body.id)
  const subjectOf = (frame: Frame) => JSON.parse(frame.data as string).subject
  const last = String(created.at(-1))
  await live.until((frames) => eventsOf(frames).some((frame) => subjectOf(frame) === last))
  live.close()
  const resumed = await openStream(`${url}/events?after=0`)
  const [reset, ...kept] = eventsOf(await resumed.until(withEvents(3)))
  resumed.close()
  assert.deepEqual(
    kept.map(subjectOf),
    created.slice(2).map((id) => String(id)),
  )
  const oldest = kept[0]?.id as string
  assert.deepEqual(reset, {
    id: String(Number(oldest) - 1),
    event: 'reset',
    data: JSON.stringify({ oldest }),
  })
  assert.equal(kept[1]?.id, String(Number(oldest) + 1))
})

test('an id past any given (from before a restart) starts with a reset too', async () => {
  const { url } = await listeningApp()
  await createTask(url, 'Satu')
  const resumed = await openStream(`${url}/events`, { 'last-event-id': '123456789012345678901' })
  const [reset, event] = eventsOf(await resumed.until(withEvents(2)))
  resumed.close()
  assert.equal(reset?.event, 'reset')
  const oldest = JSON.parse(reset?.data as string).oldest
  assert.equal(event?.id, oldest)
  assert.equal(reset?.id, String(Number(oldest) - 1))
})

test('the seed publishes nothing, nor does an answer replayed for an Idempotency-Key', async () => {
  const { url } = await listeningApp()
  const key = { 'idempotency-key': 'feed-1' }
  const first = await send(`${url}/tugas`, 'POST', { title: 'Sekali saja' }, key)
  const again = await send(`${url}/tugas`, 'POST', { title: 'Sekali saja' }, key)
  assert.deepEqual(again, first)
  await createTask(url, 'Penanda')
  const everything = await openStream(`${url}/events?after=0`)
  const events = eventsOf(await everything.until(withEvents(2)))
  everything.close()
  assert.deepEqual(
    events.map((frame) => [frame.id, dataOf(frame).data.title]),
    [
      ['1', 'Sekali saja'],
      ['2', 'Penanda'],
    ],
  )
})

test('types: only the types asked for, ids keeping their values', async () => {
  const { url } = await listeningApp()
  const todosOnly = await openStream(`${url}/events?types=todos.created,api-tugas.*`)
  await createTask(url, 'Bukan ini')
  await send(`${url}/todos`, 'POST', { title: 'Ini' })
  await send(`${url}/api/tugas`, 'POST', { judul: 'Ini juga' })
  const [todo, compact, ...more] = eventsOf(await todosOnly.until(withEvents(2)))
  todosOnly.close()
  assert.equal(more.length, 0)
  assert.equal(todo?.event, 'todos.created')
  assert.equal(compact?.event, 'api-tugas.created')
  assert.ok(Number(compact?.id) > Number(todo?.id))
})

test('malformed after, Last-Event-ID and types: 400 VALIDATION_ERROR naming each', async () => {
  const { url } = await listeningApp()
  const response = await fetch(`${url}/events?after=-1&types=tugas.created,tugas.dibuat`, {
    headers: { 'last-event-id': '1e3' },
  })
  assert.equal(response.status, 400)
  const body = (await response.json()) as { error: { code: string; details: object } }
  assert.equal(body.error.code, 'VALIDATION_ERROR')
  assert.deepEqual(Object.keys(body.error.details).sort(), ['Last-Event-ID', 'after', 'types'])
  for (const query of ['types=', 'types=tugas', 'types=foo.*', 'after=', 'after=1.5']) {
    const one = await fetch(`${url}/events?${query}`)
    assert.equal(one.status, 400, query)
    await one.body?.cancel()
  }
})

test('dokumen events reach only streams whose credential may read the document; a bad one is 401', async () => {
  const { url } = await listeningApp()
  const open = (headers: Record<string, string>) => openStream(`${url}/events`, headers)
  const streams = {
    anonymous: await open({}),
    budi: await open({ authorization: 'Bearer demo-budi-token' }),
    siti: await open({ 'x-api-key': 'demo-siti-token' }),
    admin: await open(admin),
  }
  // Document 1 is budi's, 3 is siti's (the demo data); a task after them marks the end.
  for (const id of [1, 3]) {
    assert.equal((await send(`${url}/dokumen/${id}`, 'DELETE', undefined, admin)).status, 204)
  }
  await createTask(url, 'Penanda')
  const seen: Record<string, string[]> = {}
  for (const [who, stream] of Object.entries(streams)) {
    const frames = await stream.until((all) =>
      eventsOf(all).some((f) => f.event === 'tugas.created'),
    )
    stream.close()
    seen[who] = eventsOf(frames)
      .filter((frame) => frame.event === 'dokumen.deleted')
      .map((frame) => dataOf(frame).subject)
  }
  assert.deepEqual(seen, { anonymous: [], budi: ['1'], siti: ['3'], admin: ['1', '3'] })

  const refused = await fetch(`${url}/events`, { headers: { authorization: 'Bearer nope' } })
  assert.equal(refused.status, 401)
  assert.equal(refused.headers.get('www-authenticate'), 'Bearer realm="api"')
  assert.equal(await codeOf(refused), 'UNAUTHENTICATED')
})

test('HEAD /events answers the headers and opens no stream; other methods are 405 with Allow', async () => {
  const { url } = await listeningApp({ config: { eventsMaxStreams: 1 } })
  const head = await fetch(`${url}/events`, { method: 'HEAD' })
  assert.equal(head.status, 200)
  assert.equal(head.headers.get('content-type'), 'text/event-stream; charset=utf-8')
  // The one stream allowed is still free.
  const stream = await openStream(`${url}/events`)
  assert.equal(stream.status, 200)
  stream.close()
  const post = await fetch(`${url}/events`, { method: 'POST' })
  assert.equal(post.status, 405)
  assert.equal(post.headers.get('allow'), 'GET, HEAD')
  assert.equal(await codeOf(post), 'METHOD_NOT_ALLOWED')
})

test('past EVENTS_MAX_STREAMS open in the process: 503 SERVICE_UNAVAILABLE with Retry-After', async () => {
  const { url } = await listeningApp({ config: { eventsMaxStreams: 1 } })
  const first = await openStream(`${url}/events`)
  const second = await fetch(`${url}/events`)
  assert.equal(second.status, 503)
  assert.equal(second.headers.get('retry-after'), '1')
  assert.equal(await codeOf(second), 'SERVICE_UNAVAILABLE')
  first.close()
  await first.ended
  // Its place is free again once it closed.
  for (let tries = 0; ; tries += 1) {
    const third = await openStream(`${url}/events`)
    third.close()
    if (third.status === 200) break
    assert.ok(tries < 50, 'the closed stream still counted')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
})

test('a keep-alive comment after EVENTS_HEARTBEAT_MS without an event', async () => {
  const { url } = await listeningApp({ config: { eventsHeartbeatMs: 1000 } })
  const stream = await openStream(`${url}/events`)
  const started = Date.now()
  await stream.until((frames) => frames.some((frame) => frame.comment === 'keep-alive'), 3000)
  stream.close()
  assert.ok(Date.now() - started >= 900)
})

test('a client that does not read is closed once 1 MiB waits for it; the others go on', async () => {
  const { app, url } = await listeningApp()
  const stalled = await openStream(`${url}/events`, {}, { read: false })
  const reading = await openStream(`${url}/events?types=tugas.*`)
  const stores = storesOf(app)
  // Events of 25 kB, written through the store (titles no route would take), a megabyte at a
  // time until the service has dropped the stalled stream: first the socket buffers on both
  // sides fill (megabytes on loopback), then what waits in the process passes 1 MiB.
  const big = 'x'.repeat(25_000)
  const openStreams = async () =>
    /^tugas_event_streams (\d+)$/m.exec(await (await fetch(`${url}/metrics`)).text())?.[1]
  assert.equal(await openStreams(), '2')
  for (let megabytes = 0; (await openStreams()) !== '1'; megabytes += 1) {
    assert.ok(megabytes < 64, 'the stalled stream stayed open past 64 MB')
    for (let n = 0; n < 40; n += 1) await stores.compact.create(`${big}${n}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  // The client learns it was dropped (a reset) as soon as it reads, without all that was sent.
  stalled.read()
  await stalled.ended
  assert.ok((await stalled.text()).length < 64 * 25_000)
  await createTask(url, 'Masih jalan')
  await reading.until(withEvents(1))
  reading.close()
})

test('closing the app ends open streams at once, so the drain is not held up', async () => {
  const { app, url } = await listeningApp()
  const streams = await Promise.all([
    openStream(`${url}/events`),
    openStream(`${url}/events?after=0`),
  ])
  await Promise.all(streams.map((stream) => stream.until((frames) => frames.length >= 1)))
  const started = Date.now()
  await app.close()
  await Promise.all(streams.map((stream) => stream.ended))
  assert.ok(Date.now() - started < 2000, `closing took ${Date.now() - started} ms`)
})

test('two hundred streams opened at once with EVENTS_MAX_STREAMS=100: exactly 100 open, 100 are 503', async () => {
  const { app, url } = await listeningApp({ config: { eventsMaxStreams: 100 } })
  // Finding where a resumed stream starts takes a while: the streams opening meanwhile all
  // pass a check that only counts the streams already open.
  const log = storesOf(app).events
  const bounds = log.bounds.bind(log)
  log.bounds = async () => {
    await new Promise((resolve) => setTimeout(resolve, 50))
    return bounds()
  }
  const streams = await Promise.all(
    Array.from({ length: 200 }, () => openStream(`${url}/events?after=0`)),
  )
  const statuses = streams.map((stream) => stream.status)
  for (const stream of streams) stream.close()
  assert.equal(statuses.filter((status) => status === 200).length, 100)
  assert.equal(statuses.filter((status) => status === 503).length, 100)
})

/**
 * Streams opened on `streamAt` with a credential that is then revoked, and with one that
 * expires: a document's event written on `url` a second after reaches neither.
 */
async function credentialsEndOnOpenStreams(streamAt: string, url: string) {
  const credential = async (kedaluwarsa?: string) => {
    const created = await send(
      `${url}/kredensial`,
      'POST',
      { nama: 'Pengamat', peran: 'admin', ...(kedaluwarsa && { kedaluwarsa }) },
      admin,
    )
    assert.equal(created.status, 201)
    return created.body.data as { id: number; secret: string }
  }
  const expiresAt = Date.now() + 1500
  const [revoked, expiring] = await Promise.all([
    credential(),
    credential(new Date(expiresAt).toISOString()),
  ])
  const bearer = ({ secret }: { secret: string }) => ({ authorization: `Bearer ${secret}` })
  const streams = [
    await openStream(`${streamAt}/events`, bearer(revoked)),
    await openStream(`${streamAt}/events`, bearer(expiring)),
  ]
  // While both credentials hold, both streams see a document's event.
  assert.equal((await send(`${url}/dokumen/1`, 'DELETE', undefined, admin)).status, 204)
  for (const stream of streams) {
    await stream.until((frames) => eventsOf(frames).some((f) => f.event === 'dokumen.deleted'))
  }
  const revokedAt = Date.now()
  assert.equal(
    (await send(`${url}/kredensial/${revoked.id}`, 'DELETE', undefined, admin)).status,
    204,
  )
  const wait = Math.max(revokedAt, expiresAt) + 1100 - Date.now()
  await new Promise((resolve) => setTimeout(resolve, wait))
  assert.equal((await send(`${url}/dokumen/3`, 'DELETE', undefined, admin)).status, 204)
  await createTask(url, 'Penanda')
  for (const stream of streams) {
    // Ended, or at least past the document's event without it.
    const marked = stream.until(
      (frames) => eventsOf(frames).some((f) => f.event === 'tugas.created'),
      1500,
    )
    await Promise.race([stream.ended, marked.catch(() => {})])
    stream.close()
    const subjects = eventsOf(stream.frames)
      .filter((frame) => frame.event === 'dokumen.deleted')
      .map((frame) => dataOf(frame).subject)
    assert.deepEqual(subjects, ['1'])
  }
  // Reconnecting with either: 401.
  for (const gone of [revoked, expiring]) {
    const again = await fetch(`${streamAt}/events`, { headers: bearer(gone) })
    assert.equal(again.status, 401)
    assert.equal(await codeOf(again), 'UNAUTHENTICATED')
  }
}

test('a revoked and an expired credential: no dokumen event written a second after reaches their streams', async () => {
  const { url } = await listeningApp()
  await credentialsEndOnOpenStreams(url, url)
})

test('a credential revoked through another process: no dokumen event written a second after reaches its stream', {
  skip:
    TEST_STORE !== 'postgres' &&
    'two processes share credentials only on PostgreSQL: the PostgreSQL pass runs it',
}, async () => {
  const databaseUrl = await freshDatabaseUrl()
  const streaming = await listeningApp({ config: { databaseUrl } })
  const writing = await listeningApp({ config: { databaseUrl } })
  await credentialsEndOnOpenStreams(streaming.url, writing.url)
})
