// Fault test: the service on PostgreSQL, reached through a TCP proxy this file controls. The
// proxy can cut every connection (reset the open ones, close new ones at once), black-hole them
// (accept, never answer), or stop listening; meanwhile every surface answers 503 in its own
// shape with `Retry-After: 1` within a bounded time, writes nothing, and the process survives;
// once the proxy lets traffic through again, the same app answers normally.
import assert from 'node:assert/strict'
import { performance } from 'node:perf_hooks'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { FaultyLink } from './support/faulty-link.js'
import { DEMO_TASKS, testApp } from './support/helpers.js'
import { freshDatabaseUrl, skipWithoutPostgres } from './support/postgres.js'

/** A fresh database, reached through `link` (a new one when not given): host and port rewritten. */
async function linkedDatabase(link?: FaultyLink): Promise<{ link: FaultyLink; url: string }> {
  const url = new URL(await freshDatabaseUrl())
  let through = link
  if (through === undefined) {
    through = new FaultyLink({ host: url.hostname, port: Number(url.port || 5432) })
    await through.listen()
  }
  url.hostname = '127.0.0.1'
  url.port = String(through.port)
  return { link: through, url: url.toString() }
}

interface Answer {
  status: number
  retryAfter: string | undefined
  body: unknown
  ms: number
}

async function ask(app: FastifyInstance, options: InjectOptions & { url: string }) {
  const start = performance.now()
  const response = await app.inject(options)
  const ms = performance.now() - start
  const text = response.body
  let body: unknown = text
  try {
    body = text === '' ? undefined : JSON.parse(text)
  } catch {
    // Plain text.
  }
  const retryAfter = response.headers['retry-after'] as string | undefined
  return { status: response.statusCode, retryAfter, body, ms } satisfies Answer
}

const json = { 'content-type': 'application/json' }
const budi = { authorization: 'Bearer demo-budi-token' }
const admin = { authorization: 'Bearer demo-admin-token' }

/** A request, and the error shape of the surface it is sent to. */
type Probe = InjectOptions & { url: string; shape: 'E1' | 'E2' | 'E3' }

/** Every kind of request, on every surface, that needs PostgreSQL to be answered. */
const needsTheDatabase: Probe[] = [
  // Surface A
  { shape: 'E1', method: 'GET', url: '/tugas/1' },
  // The flat list (no list parameter), and its /v1 alias.
  { shape: 'E1', method: 'GET', url: '/tugas' },
  { shape: 'E1', method: 'GET', url: '/v1/tugas' },
  { shape: 'E1', method: 'GET', url: '/tugas?halaman=1' },
  { shape: 'E1', method: 'GET', url: '/v2/tugas?status=belum' },
  { shape: 'E1', method: 'POST', url: '/tugas', headers: json, payload: { title: 'Saat padam' } },
  {
    shape: 'E1',
    method: 'PUT',
    url: '/tugas/1',
    headers: json,
    payload: { title: 'Diganti saat padam', status: 'belum' },
  },
  { shape: 'E1', method: 'PATCH', url: '/tugas/1', headers: json, payload: { status: 'belum' } },
  { shape: 'E1', method: 'DELETE', url: '/tugas/2' },
  { shape: 'E1', method: 'GET', url: '/tugas/1/komentar' },
  { shape: 'E1', method: 'GET', url: '/tugas/1/komentar/1' },
  {
    shape: 'E1',
    method: 'POST',
    url: '/tugas/1/komentar',
    headers: json,
    payload: { isi: 'Saat padam' },
  },
  // Surface B
  { shape: 'E3', method: 'GET', url: '/api/tugas' },
  { shape: 'E3', method: 'GET', url: '/api/tugas/1' },
  { shape: 'E3', method: 'POST', url: '/api/tugas', headers: json, payload: { judul: 'Padam' } },
  {
    shape: 'E3',
    method: 'PUT',
    url: '/api/tugas/1',
    headers: json,
    payload: { judul: 'Padam', selesai: true },
  },
  { shape: 'E3', method: 'DELETE', url: '/api/tugas/1' },
  // Surface C (basic)
  { shape: 'E3', method: 'GET', url: '/todos' },
  { shape: 'E3', method: 'GET', url: '/todos/1' },
  { shape: 'E3', method: 'POST', url: '/todos', headers: json, payload: { title: 'Padam' } },
  { shape: 'E3', method: 'PUT', url: '/todos/1', headers: json, payload: { title: 'Padam' } },
  { shape: 'E3', method: 'DELETE', url: '/todos/1' },
  // Surface D
  { shape: 'E2', method: 'GET', url: '/users' },
  { shape: 'E2', method: 'GET', url: '/users/1' },
  {
    shape: 'E2',
    method: 'POST',
    url: '/users',
    headers: json,
    payload: { name: 'Padam', email: 'padam@contoh.id', password: 'rahasia-sekali' },
  },
  {
    shape: 'E2',
    method: 'POST',
    url: '/pesanan',
    headers: json,
    payload: { email: 'padam@contoh.id', jumlah: 2 },
  },
  { shape: 'E2', method: 'GET', url: '/pesanan/1' },
  { shape: 'E2', method: 'POST', url: '/pesanan/1/bayar' },
  { shape: 'E2', method: 'GET', url: '/produk' },
  { shape: 'E2', method: 'GET', url: '/produk/1' },
  { shape: 'E2', method: 'GET', url: '/v2/produk' },
  // The credential lookup itself needs the database: 503, not 401.
  { shape: 'E2', method: 'GET', url: '/dokumen', headers: budi },
  { shape: 'E2', method: 'GET', url: '/dokumen/1', headers: { 'x-api-key': 'demo-budi-token' } },
  { shape: 'E2', method: 'DELETE', url: '/dokumen/4', headers: admin },
  { shape: 'E2', method: 'GET', url: '/profil', headers: budi },
  { shape: 'E2', method: 'GET', url: '/panel-admin', headers: admin },
  { shape: 'E2', method: 'GET', url: '/laporan', headers: { 'x-api-key': 'demo-budi-token' } },
]

const LIMIT_MS = 5000

/** 503 in the surface's own shape, `Retry-After: 1`, within the time limit. */
function assertUnavailable(answer: Answer, shape: 'E1' | 'E2' | 'E3', what: string): void {
  const seen = `${what}: ${answer.status} ${JSON.stringify(answer.body)} in ${Math.round(answer.ms)} ms`
  assert.equal(answer.status, 503, seen)
  assert.equal(answer.retryAfter, '1', seen)
  assert.ok(answer.ms < LIMIT_MS, seen)
  const body = answer.body as { error: Record<string, unknown> }
  assert.deepEqual(Object.keys(body), ['error'], seen)
  if (shape === 'E3') {
    assert.deepEqual(body, { error: 'layanan sedang tidak tersedia' }, seen)
    return
  }
  const [code, message] = shape === 'E1' ? ['kode', 'pesan'] : ['code', 'message']
  assert.deepEqual(Object.keys(body.error), [code, message], seen)
  assert.equal(
    body.error[code],
    shape === 'E1' ? 'LAYANAN_TIDAK_TERSEDIA' : 'SERVICE_UNAVAILABLE',
    seen,
  )
  assert.equal(typeof body.error[message], 'string', seen)
  assert.ok((body.error[message] as string).length > 0, seen)
}

/** Each answer checked by assertUnavailable; every one that is not is reported together. */
function assertAllUnavailable(requests: Probe[], answers: Answer[]): void {
  const wrong: string[] = []
  answers.forEach((answer, i) => {
    const { shape, method, url } = requests[i] as Probe
    try {
      assertUnavailable(answer, shape, `${method} ${url}`)
    } catch (error) {
      wrong.push((error as Error).message.split('\n')[0] as string)
    }
  })
  assert.deepEqual(wrong, [], 'every answer is a 503 of its own surface')
}

async function assertEverySurfaceUnavailable(app: FastifyInstance): Promise<void> {
  const answers: Answer[] = []
  for (const { shape: _, ...request } of needsTheDatabase) answers.push(await ask(app, request))
  assertAllUnavailable(needsTheDatabase, answers)
  const ready = await ask(app, { method: 'GET', url: '/health/ready' })
  assert.equal(ready.status, 503)
  assert.equal(ready.retryAfter, '1')
  assert.ok(ready.ms < LIMIT_MS, `${ready.ms} ms`)
  assert.deepEqual(ready.body, { status: 'unavailable', checks: { postgres: 'unavailable' } })
}

/** Retries `GET url` until 200, for up to `ms`: the time the first 200 took. */
async function untilOk(app: FastifyInstance, url: string, ms = 5000): Promise<number> {
  const start = performance.now()
  for (;;) {
    const answer = await ask(app, { method: 'GET', url })
    if (answer.status === 200) return performance.now() - start
    assert.ok(performance.now() - start < ms, `${url} still ${answer.status} after ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const demoTasks = DEMO_TASKS

describe('PostgreSQL out of reach at run time', { skip: await skipWithoutPostgres() }, () => {
  // An error the pool or a client could not handle would end a real process: none may occur.
  const crashes: unknown[] = []
  const crash = (error: unknown) => void crashes.push(error)
  const links: FaultyLink[] = []
  const apps: FastifyInstance[] = []
  let link: FaultyLink
  let app: FastifyInstance
  let priority: FastifyInstance

  /** An app on a fresh database behind `through`, or behind a link of its own. */
  async function linkedApp(config: Record<string, unknown> = {}, through?: FaultyLink) {
    const linked = await linkedDatabase(through)
    if (through === undefined) links.push(linked.link)
    const built = await testApp({
      config: { databaseUrl: linked.url, ...config },
      closedBy: 'caller',
    })
    apps.push(built)
    return { link: linked.link, app: built }
  }

  before(async () => {
    process.on('uncaughtException', crash)
    process.on('unhandledRejection', crash)
    ;({ link, app } = await linkedApp())
    // The priority todo variant, on a database of its own behind the same link.
    priority = (await linkedApp({ todosVariant: 'priority' }, link)).app
  })

  after(async () => {
    for (const built of apps) await built.close()
    for (const one of links) await one.close()
    process.off('uncaughtException', crash)
    process.off('unhandledRejection', crash)
  })

  test('through an open link every surface answers normally and /health/ready is 200', async () => {
    assert.deepEqual((await ask(app, { method: 'GET', url: '/tugas' })).body, demoTasks)
    assert.equal((await ask(app, { method: 'GET', url: '/api/tugas' })).status, 200)
    assert.equal((await ask(app, { method: 'GET', url: '/todos' })).status, 200)
    assert.equal((await ask(app, { method: 'GET', url: '/dokumen', headers: budi })).status, 200)
    const ready = await ask(app, { method: 'GET', url: '/health/ready' })
    assert.equal(ready.status, 200)
    assert.equal(ready.retryAfter, undefined)
    assert.deepEqual(ready.body, { status: 'ok', checks: { postgres: 'ok' } })
    assert.equal((await ask(priority, { method: 'GET', url: '/todos' })).status, 200)
    assert.ok(link.open > 0, 'the pool holds connections through the link')
  })

  test('cut: every surface answers 503 in its own shape with Retry-After: 1, each within 5 s', async () => {
    link.cut()
    // At once: the pool still holds the connections that were just reset.
    await assertEverySurfaceUnavailable(app)
    assert.deepEqual(crashes, [])
  })

  test('cut: the priority todo variant answers its POST /todos 503 in E2', async () => {
    const created = await ask(priority, {
      method: 'POST',
      url: '/todos',
      headers: json,
      payload: { title: 'Rapat saat padam', priority: 2 },
    })
    assertUnavailable(created, 'E2', 'POST /todos (priority)')
    assertUnavailable(await ask(priority, { method: 'GET', url: '/todos/1' }), 'E3', 'GET /todos/1')
  })

  test('cut: more requests at once than the pool has connections, none waits past the limit', async () => {
    const requests = Array.from(
      { length: 30 },
      (_, i) => needsTheDatabase[i % needsTheDatabase.length] as Probe,
    )
    const answers = await Promise.all(requests.map(({ shape: _, ...request }) => ask(app, request)))
    assertAllUnavailable(requests, answers)
    assert.deepEqual(crashes, [])
  })

  test('cut: what needs no database still answers', async () => {
    assert.deepEqual((await ask(app, { method: 'GET', url: '/api/health' })).body, { status: 'ok' })
    assert.equal((await ask(app, { method: 'GET', url: '/openapi.json' })).status, 200)
    // The rules come before the store: a bad task is 422 whether or not the database answers.
    const invalid = await ask(app, {
      method: 'POST',
      url: '/tugas',
      headers: json,
      payload: { title: 'x' },
    })
    assert.equal(invalid.status, 422)
    const noKey = await ask(app, { method: 'GET', url: '/laporan' })
    assert.equal(noKey.status, 401)
  })

  test('restore: the same app answers normally again, and nothing was written during the cut', async () => {
    await link.restore()
    await untilOk(app, '/tugas/1')
    await untilOk(priority, '/todos')

    // The PUT, PATCH and DELETE sent during the cut changed nothing; the POST created nothing.
    assert.deepEqual((await ask(app, { method: 'GET', url: '/tugas' })).body, demoTasks)
    const meta = (await ask(app, { method: 'GET', url: '/tugas?halaman=1' })).body
    assert.equal((meta as { meta: { total: number } }).meta.total, 5)
    const task = await ask(app, {
      method: 'POST',
      url: '/tugas',
      headers: json,
      payload: { title: 'Sesudah padam' },
    })
    assert.equal(task.status, 201)
    assert.deepEqual(task.body, { id: 6, title: 'Sesudah padam', status: 'belum' })
    const comment = await ask(app, {
      method: 'POST',
      url: '/tugas/1/komentar',
      headers: json,
      payload: { isi: 'Sesudah padam' },
    })
    assert.deepEqual(comment.body, { id: 4, tugasId: 1, isi: 'Sesudah padam' })
    assert.deepEqual((await ask(app, { method: 'GET', url: '/api/tugas' })).body, [])
    const compact = await ask(app, {
      method: 'POST',
      url: '/api/tugas',
      headers: json,
      payload: { judul: 'Sesudah' },
    })
    assert.deepEqual(compact.body, { id: 1, judul: 'Sesudah', selesai: false })
    assert.deepEqual((await ask(app, { method: 'GET', url: '/todos' })).body, [])
    const todo = await ask(app, {
      method: 'POST',
      url: '/todos',
      headers: json,
      payload: { title: 'Sesudah' },
    })
    assert.equal((todo.body as { id: number }).id, 1)
    // The email sent during the cut was not registered.
    const user = await ask(app, {
      method: 'POST',
      url: '/users',
      headers: json,
      payload: { name: 'Padam', email: 'padam@contoh.id', password: 'rahasia-sekali' },
    })
    assert.equal(user.status, 201, JSON.stringify(user.body))
    assert.equal((user.body as { data: { id: number } }).data.id, 1)
    const order = await ask(app, {
      method: 'POST',
      url: '/pesanan',
      headers: json,
      payload: { email: 'padam@contoh.id', jumlah: 2 },
    })
    assert.deepEqual(order.body, {
      data: { id: 1, email: 'padam@contoh.id', jumlah: 2, status: 'MENUNGGU' },
    })
    const paid = await ask(app, { method: 'POST', url: '/pesanan/1/bayar' })
    assert.equal((paid.body as { data: { status: string } }).data.status, 'LUNAS')
    const documents = await ask(app, { method: 'GET', url: '/dokumen', headers: admin })
    assert.equal(
      (documents.body as { data: unknown[] }).data.length,
      4,
      'document 4 is still there',
    )
    assert.equal((await ask(app, { method: 'GET', url: '/produk' })).status, 200)
    assert.deepEqual((await ask(app, { method: 'GET', url: '/profil', headers: budi })).body, {
      data: { nama: 'budi', peran: 'user' },
    })
    const ready = await ask(app, { method: 'GET', url: '/health/ready' })
    assert.equal(ready.status, 200)
    assert.deepEqual(ready.body, { status: 'ok', checks: { postgres: 'ok' } })

    const rapat = await ask(priority, {
      method: 'POST',
      url: '/todos',
      headers: json,
      payload: { title: 'Rapat', priority: 2 },
    })
    assert.deepEqual(rapat.body, { id: 1, title: 'Rapat', priority: 2 })
    assert.deepEqual(crashes, [])
  })

  test('connections cut while the pool is idle: no crash, and the next request after restore is normal', async () => {
    // Fill the pool with idle connections.
    await Promise.all(Array.from({ length: 8 }, () => ask(app, { method: 'GET', url: '/tugas/1' })))
    assert.ok(link.open > 1, `${link.open} idle connections`)
    link.cut()
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.deepEqual(crashes, [], 'an idle connection dying is no uncaught error')
    await link.restore()
    // The pool dropped the dead connections: the very first request opens a new one.
    const first = await ask(app, { method: 'GET', url: '/tugas/1' })
    assert.equal(first.status, 200, JSON.stringify(first.body))
    assert.equal((await ask(app, { method: 'GET', url: '/health/ready' })).status, 200)
    assert.deepEqual(crashes, [])
  })

  test('nothing listens (connection refused): 503 at once, then normal again', async () => {
    link.refuse()
    assertUnavailable(await ask(app, { method: 'GET', url: '/tugas/1' }), 'E1', 'GET /tugas/1')
    assertUnavailable(await ask(app, { method: 'GET', url: '/todos/1' }), 'E3', 'GET /todos/1')
    assertUnavailable(await ask(app, { method: 'GET', url: '/produk' }), 'E2', 'GET /produk')
    const ready = await ask(app, { method: 'GET', url: '/health/ready' })
    assert.equal(ready.status, 503)
    await link.restore()
    await untilOk(app, '/tugas/1')
    assert.equal((await ask(app, { method: 'GET', url: '/health/ready' })).status, 200)
    assert.deepEqual(crashes, [])
  })

  test('black hole (packets go nowhere): every answer is a 503 within the time limit, nothing is written', async () => {
    // Its own app: a 1 s statement timeout bounds a statement on a connection that went silent
    // (the driver gives up 1 s after it); a new connection is given up after 2 s.
    const silent = await linkedApp({ databaseStatementTimeoutMs: 1000 })
    const quiet = silent.app
    await Promise.all(Array.from({ length: 4 }, () => ask(quiet, { method: 'GET', url: '/tugas' })))
    assert.ok(silent.link.open > 0)
    silent.link.stall()
    // More requests at once than the pool has connections, on idle connections gone silent,
    // on new ones never answered, and waiting for the pool.
    const requests = [...needsTheDatabase, ...needsTheDatabase.slice(0, 6)]
    const [ready, ...answers] = await Promise.all([
      ask(quiet, { method: 'GET', url: '/health/ready' }),
      ...requests.map(({ shape: _, ...request }) => ask(quiet, request)),
    ])
    assertAllUnavailable(requests, answers)
    assert.equal(ready.status, 503)
    assert.equal(ready.retryAfter, '1')
    assert.deepEqual(ready.body, { status: 'unavailable', checks: { postgres: 'unavailable' } })
    assert.ok(ready.ms < LIMIT_MS, `${ready.ms} ms`)
    assert.deepEqual(crashes, [])

    await silent.link.restore()
    await untilOk(quiet, '/tugas/1')
    assert.deepEqual((await ask(quiet, { method: 'GET', url: '/tugas' })).body, demoTasks)
    const next = await ask(quiet, {
      method: 'POST',
      url: '/tugas',
      headers: json,
      payload: { title: 'Sesudah sunyi' },
    })
    assert.deepEqual(next.body, { id: 6, title: 'Sesudah sunyi', status: 'belum' })
    assert.deepEqual(crashes, [])
  })
})
