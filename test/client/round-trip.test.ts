// The typed client (src/client, `tugas/client`) against the real service listening on a port:
// every operation of the served /openapi.json is called through it, on every surface. The calls
// are type-checked against the generated types (npm test runs tsc on this file), so a path, a
// parameter or a body the document does not have fails the build; each answer is also checked
// against the document (test/support/conformance.ts), and the last test fails when an operation of the
// document was never called here.

import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { createTugasClient, type Schemas, type TugasClient } from '../../src/client/index.js'
import { conformanceChecker } from '../support/conformance.js'
import { DEMO_TASKS, testApp } from '../support/helpers.js'

const ADMIN = 'demo-admin-token'
const BUDI = 'demo-budi-token'
const SITI = 'demo-siti-token'
const bearer = (secret: string) => ({ Authorization: `Bearer ${secret}` })

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']

let app: FastifyInstance
let client: TugasClient
let documented: string[]
/** `GET /tugas/{id}`...: the operations called through the client, by their document path. */
const called = new Set<string>()

before(async () => {
  app = await testApp({ closedBy: 'caller' })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as AddressInfo
  const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json()
  documented = Object.entries(document.paths as Record<string, Record<string, unknown>>)
    .flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => METHODS.includes(key))
        .map((method) => `${method.toUpperCase()} ${path}`),
    )
    .sort()
  const check = conformanceChecker(document)
  client = createTugasClient(`http://127.0.0.1:${port}`)
  client.use({
    onRequest({ request, schemaPath }) {
      called.add(`${request.method} ${schemaPath}`)
    },
    async onResponse({ request, response }) {
      const url = new URL(request.url)
      // A stream never ends: its headers are checked, its body read by the test that asked.
      const stream = response.headers.get('content-type')?.startsWith('text/event-stream')
      check(
        { method: request.method, url: `${url.pathname}${url.search}` },
        {
          statusCode: response.status,
          headers: Object.fromEntries(response.headers),
          body: stream ? '' : await response.clone().text(),
        },
      )
    },
  })
})

after(() => app.close())

describe('surface A: /tugas', () => {
  test('create, read, list with parameters, patch, put, comments, delete', async () => {
    const all = await client.GET('/tugas')
    assert.equal(all.response.status, 200)
    assert.deepEqual(all.data, DEMO_TASKS)

    const created = await client.POST('/tugas', { body: { title: '  Coba klien  ' } })
    assert.equal(created.response.status, 201)
    assert.equal(created.response.headers.get('location'), '/tugas/6')
    const task: Schemas['Tugas'] | undefined = created.data
    assert.deepEqual(task, { id: 6, title: 'Coba klien', status: 'belum' })
    const id = 6

    const read = await client.GET('/tugas/{id}', { params: { path: { id } } })
    assert.equal(read.response.status, 200)
    assert.deepEqual(read.data, { id, title: 'Coba klien', status: 'belum' })

    const page = await client.GET('/tugas', {
      params: { query: { status: 'belum', urut: '-id', batas: 2 } },
    })
    assert.equal(page.response.status, 200)
    assert.ok(page.data !== undefined && !Array.isArray(page.data), 'a page envelope')
    assert.deepEqual(
      page.data.data.map((t) => t.id),
      [6, 4],
    )
    assert.deepEqual(page.data.meta, { halaman: 1, batas: 2, total: 4, totalHalaman: 2 })

    const v2 = await client.GET('/v2/tugas', { params: { query: { halaman: 2, batas: 4 } } })
    assert.equal(v2.response.status, 200)
    assert.deepEqual(
      v2.data?.data.map((t) => t.id),
      [5, 6],
    )
    assert.deepEqual(v2.data?.meta, { halaman: 2, batas: 4, total: 6, totalHalaman: 2 })

    const patched = await client.PATCH('/tugas/{id}', {
      params: { path: { id } },
      body: { status: 'selesai' },
    })
    assert.equal(patched.response.status, 200)
    assert.deepEqual(patched.data, { id, title: 'Coba klien', status: 'selesai' })

    const replaced = await client.PUT('/tugas/{id}', {
      params: { path: { id } },
      body: { title: 'Coba klien lagi' },
    })
    assert.equal(replaced.response.status, 200)
    assert.deepEqual(replaced.data, { id, title: 'Coba klien lagi', status: 'belum' })

    const comment = await client.POST('/tugas/{id}/komentar', {
      params: { path: { id } },
      body: { isi: ' Sudah bab 3 ' },
    })
    assert.equal(comment.response.status, 201)
    assert.equal(comment.response.headers.get('location'), '/tugas/6/komentar/4')
    assert.deepEqual(comment.data, { id: 4, tugasId: id, isi: 'Sudah bab 3' })
    const comments = await client.GET('/tugas/{id}/komentar', { params: { path: { id } } })
    assert.deepEqual(comments.data, [{ id: 4, tugasId: id, isi: 'Sudah bab 3' }])
    const one = await client.GET('/tugas/{id}/komentar/{kid}', {
      params: { path: { id, kid: 4 } },
    })
    assert.deepEqual(one.data, { id: 4, tugasId: id, isi: 'Sudah bab 3' })

    const deleted = await client.DELETE('/tugas/{id}', { params: { path: { id } } })
    assert.equal(deleted.response.status, 204)
    assert.equal(deleted.data, undefined)
    assert.equal(deleted.error, undefined)
  })

  test('error answers are read as the typed E1 body', async () => {
    const missing = await client.GET('/tugas/{id}', { params: { path: { id: 6 } } })
    assert.equal(missing.response.status, 404)
    assert.equal(missing.data, undefined)
    const notFound: Schemas['Error'] | undefined = missing.error
    assert.deepEqual(notFound, { error: { kode: 'TIDAK_ADA', pesan: 'task 6 not found' } })

    const invalid = await client.POST('/tugas', { body: { title: 'ab', status: 'selesai' } })
    assert.equal(invalid.response.status, 422)
    assert.equal(invalid.error?.error.kode, 'VALIDASI_GAGAL')
    assert.deepEqual(invalid.error?.error.detail, ['title is under 3 characters'])
  })
})

describe('surface B: /api', () => {
  test('health, create, list, read, replace, delete, and a 404', async () => {
    const health = await client.GET('/api/health')
    assert.equal(health.response.status, 200)
    assert.deepEqual(health.data, { status: 'ok' })

    const created = await client.POST('/api/tugas', { body: { judul: '  Belajar Rust  ' } })
    assert.equal(created.response.status, 201)
    assert.equal(created.response.headers.get('location'), '/api/tugas/1')
    assert.deepEqual(created.data, { id: 1, judul: 'Belajar Rust', selesai: false })

    const list = await client.GET('/api/tugas')
    assert.deepEqual(list.data, [{ id: 1, judul: 'Belajar Rust', selesai: false }])
    const read = await client.GET('/api/tugas/{id}', { params: { path: { id: 1 } } })
    assert.deepEqual(read.data, { id: 1, judul: 'Belajar Rust', selesai: false })

    const replaced = await client.PUT('/api/tugas/{id}', {
      params: { path: { id: 1 } },
      body: { judul: 'Belajar Rust', selesai: true },
    })
    assert.equal(replaced.response.status, 200)
    assert.deepEqual(replaced.data, { id: 1, judul: 'Belajar Rust', selesai: true })

    const deleted = await client.DELETE('/api/tugas/{id}', { params: { path: { id: 1 } } })
    assert.equal(deleted.response.status, 204)

    const gone = await client.GET('/api/tugas/{id}', { params: { path: { id: 1 } } })
    assert.equal(gone.response.status, 404)
    assert.deepEqual(gone.error, { error: 'Tugas dengan id 1 tidak ditemukan' })
  })
})

describe('surface C: /todos (TODOS_VARIANT=basic)', () => {
  test('create, list, read, replace, delete, and a 400', async () => {
    const created = await client.POST('/todos', { body: { title: ' Beli susu ' } })
    assert.equal(created.response.status, 201)
    assert.equal(created.response.headers.get('location'), '/todos/1')
    const todo = created.data
    assert.ok(todo !== undefined)
    assert.deepEqual(
      { id: todo.id, title: todo.title, done: todo.done },
      { id: 1, title: 'Beli susu', done: false },
    )
    assert.match(todo.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)

    const list = await client.GET('/todos')
    assert.deepEqual(list.data, [todo])
    const read = await client.GET('/todos/{id}', { params: { path: { id: 1 } } })
    assert.deepEqual(read.data, todo)

    const replaced = await client.PUT('/todos/{id}', {
      params: { path: { id: 1 } },
      body: { title: 'Beli susu', done: true },
    })
    assert.equal(replaced.response.status, 200)
    assert.deepEqual(replaced.data, { ...todo, done: true })

    const deleted = await client.DELETE('/todos/{id}', { params: { path: { id: 1 } } })
    assert.equal(deleted.response.status, 204)

    const blank = await client.POST('/todos', { body: { title: '   ' } })
    assert.equal(blank.response.status, 400)
    assert.deepEqual(blank.error, { error: 'title wajib diisi' })
  })
})

describe('surface D: supporting endpoints', () => {
  test('users (USERS_VARIANT=enveloped): register, read, list, and a taken email', async () => {
    const registered = await client.POST('/users', {
      body: { name: ' Budi ', email: 'budi@contoh.id', password: 'rahasia123' },
    })
    assert.equal(registered.response.status, 201)
    assert.equal(registered.response.headers.get('location'), '/users/1')
    const user = registered.data?.data
    assert.ok(user !== undefined)
    assert.deepEqual(
      { id: user.id, name: user.name, email: user.email },
      { id: 1, name: 'Budi', email: 'budi@contoh.id' },
    )
    assert.equal('password' in user, false)

    const read = await client.GET('/users/{id}', { params: { path: { id: 1 } } })
    assert.deepEqual(read.data, { data: user })
    const list = await client.GET('/users')
    assert.deepEqual(list.data, { data: [user], meta: { page: 1, total: 1 } })

    const taken = await client.POST('/users', {
      body: { name: 'Budi lagi', email: 'BUDI@contoh.id', password: 'rahasia456' },
    })
    assert.equal(taken.response.status, 409)
    assert.equal(taken.error?.error.code, 'EMAIL_TELAH_DIPAKAI')
  })

  test('orders: create, read, pay, and pay again (409)', async () => {
    const created = await client.POST('/pesanan', {
      body: { email: 'budi@contoh.id', jumlah: 2 },
    })
    assert.equal(created.response.status, 201)
    assert.equal(created.response.headers.get('location'), '/pesanan/1')
    const order = { id: 1, email: 'budi@contoh.id', jumlah: 2 }
    assert.deepEqual(created.data, { data: { ...order, status: 'MENUNGGU' } })

    const read = await client.GET('/pesanan/{id}', { params: { path: { id: 1 } } })
    assert.deepEqual(read.data, { data: { ...order, status: 'MENUNGGU' } })

    const paid = await client.POST('/pesanan/{id}/bayar', { params: { path: { id: 1 } } })
    assert.equal(paid.response.status, 200)
    assert.equal(paid.data?.data.status, 'LUNAS')

    const again = await client.POST('/pesanan/{id}/bayar', { params: { path: { id: 1 } } })
    assert.equal(again.response.status, 409)
    assert.equal(again.error?.error.code, 'SUDAH_DIBAYAR')
    assert.deepEqual(again.error?.error.details, { status: 'LUNAS' })
  })

  test('products: the list, one product, v1 (deprecated) and v2', async () => {
    const products: Schemas['Produk'][] = [
      { id: 1, nama: 'Buku', harga: 50000, stok: 12 },
      { id: 2, nama: 'Pensil', harga: 3000, stok: 150 },
      { id: 3, nama: 'Penghapus', harga: 2000, stok: 0 },
    ]
    const list = await client.GET('/produk')
    assert.equal(list.response.status, 200)
    assert.deepEqual(list.data, products)

    const one = await client.GET('/produk/{id}', { params: { path: { id: 2 } } })
    assert.deepEqual(one.data, products[1])
    const missing = await client.GET('/produk/{id}', { params: { path: { id: 9 } } })
    assert.equal(missing.response.status, 404)
    assert.equal(missing.error?.error.code, 'NOT_FOUND')

    const v1 = await client.GET('/v1/produk')
    assert.deepEqual(
      v1.data,
      products.map(({ id, nama }) => ({ id, nama })),
    )
    assert.equal(v1.response.headers.get('sunset'), 'Wed, 30 Jun 2027 00:00:00 GMT')

    const v2 = await client.GET('/v2/produk')
    assert.deepEqual(v2.data, {
      data: products.map(({ id, nama, harga }) => ({ id, nama, harga })),
      meta: { versi: '2', jumlah: 3 },
    })
  })

  test('documents, identity and reports with the demo credentials', async () => {
    const own = await client.GET('/dokumen', { headers: bearer(BUDI) })
    assert.equal(own.response.status, 200)
    assert.deepEqual(own.data, {
      data: [
        { id: 1, judul: 'Rencana', pemilik: 'budi' },
        { id: 2, judul: 'Anggaran', pemilik: 'budi' },
      ],
    })
    const mine = await client.GET('/dokumen/{id}', {
      params: { path: { id: 1 } },
      headers: { 'X-API-Key': BUDI },
    })
    assert.deepEqual(mine.data, { data: { id: 1, judul: 'Rencana', pemilik: 'budi' } })
    const notMine = await client.GET('/dokumen/{id}', {
      params: { path: { id: 3 } },
      headers: bearer(BUDI),
    })
    assert.equal(notMine.response.status, 403)
    assert.equal(notMine.error?.error.code, 'FORBIDDEN')

    const anonymous = await client.GET('/dokumen')
    assert.equal(anonymous.response.status, 401)
    assert.equal(anonymous.error?.error.code, 'UNAUTHENTICATED')
    assert.equal(anonymous.response.headers.get('www-authenticate'), 'Bearer realm="api"')

    const deleted = await client.DELETE('/dokumen/{id}', {
      params: { path: { id: 4 } },
      headers: bearer(ADMIN),
    })
    assert.equal(deleted.response.status, 204)

    const profile = await client.GET('/profil', { headers: bearer(SITI) })
    assert.deepEqual(profile.data, { data: { nama: 'siti', peran: 'user' } })
    const panel = await client.GET('/panel-admin', { headers: bearer(ADMIN) })
    assert.deepEqual(panel.data, { data: { nama: 'admin', peran: 'admin' } })
    const refused = await client.GET('/panel-admin', { headers: bearer(SITI) })
    assert.equal(refused.response.status, 403)

    const report = await client.GET('/laporan', { headers: { 'X-API-Key': BUDI } })
    assert.equal(report.response.status, 200)
    assert.deepEqual(report.data, { data: 'laporan untuk budi' })
    assert.equal(report.response.headers.get('ratelimit'), '"laporan";r=2;t=1')

    const sales = await client.GET('/laporan-penjualan')
    assert.equal(sales.response.status, 200)
    assert.match(sales.data?.data ?? '', /^Laporan penjualan/)
  })
})

describe('the change feed', () => {
  test('GET /events: read as a stream, a write arriving as its event', async () => {
    const stop = new AbortController()
    const feed = await client.GET('/events', {
      params: { query: { types: 'todos.*' } },
      parseAs: 'stream',
      signal: stop.signal,
    })
    assert.equal(feed.response.status, 200)
    const created = await client.POST('/todos', { body: { title: 'Lewat klien' } })
    const reader = (feed.data as ReadableStream<Uint8Array>)
      .pipeThrough(new TextDecoderStream())
      .getReader()
    let text = ''
    while (!text.includes('event: todos.created')) text += (await reader.read()).value ?? ''
    stop.abort()
    assert.match(text, /^retry: 2000\n\n/)
    const data = /^data: (.*)$/m.exec(text)?.[1] as string
    assert.deepEqual(JSON.parse(data).data, created.data)
  })
})

describe('credentials managed at run time', () => {
  test('issue, read, list, use, revoke (admin only)', async () => {
    const body = { nama: 'lewat-klien', peran: 'user' as const }
    const created = await client.POST('/kredensial', { body, headers: bearer(ADMIN) })
    assert.equal(created.response.status, 201)
    const credential = created.data?.data
    assert.ok(credential)
    const path = { params: { path: { id: credential.id } }, headers: bearer(ADMIN) }
    const profile = await client.GET('/profil', { headers: bearer(credential.secret) })
    assert.deepEqual(profile.data, { data: body })
    const read = await client.GET('/kredensial/{id}', path)
    assert.equal(read.data?.data.nama, 'lewat-klien')
    const list = await client.GET('/kredensial', { headers: bearer(ADMIN) })
    assert.ok(list.data?.data.some(({ id }) => id === credential.id))
    const deleted = await client.DELETE('/kredensial/{id}', path)
    assert.equal(deleted.response.status, 204)
    const refused = await client.GET('/profil', { headers: bearer(credential.secret) })
    assert.equal(refused.response.status, 401)
  })
})

describe('the webhooks', () => {
  test('subscribe, read, list, see the deliveries, unsubscribe (admin only)', async () => {
    const body = { url: 'https://203.0.113.10/hooks/klien', types: ['users.created' as const] }
    const created = await client.POST('/webhooks', { body, headers: bearer(ADMIN) })
    assert.equal(created.response.status, 201)
    const subscription = created.data?.data
    assert.ok(subscription)
    assert.match(subscription.secret, /^whsec_/)
    const path = { params: { path: { id: subscription.id } }, headers: bearer(ADMIN) }
    const read = await client.GET('/webhooks/{id}', path)
    assert.deepEqual(read.data?.data, {
      ...body,
      id: subscription.id,
      created_at: subscription.created_at,
    })
    const list = await client.GET('/webhooks', { headers: bearer(ADMIN) })
    assert.ok(list.data?.data.some(({ id }) => id === subscription.id))
    const deliveries = await client.GET('/webhooks/{id}/deliveries', path)
    assert.deepEqual(deliveries.data, { data: [] })
    // A range that holds no users.created event queues nothing; ids are strings, as the feed's.
    const replayed = await client.POST('/webhooks/{id}/replay', {
      ...path,
      body: { after: '0', until: '0' },
    })
    assert.equal(replayed.response.status, 202)
    assert.deepEqual(replayed.data, { data: { queued: 0 } })
    const badRange = await client.POST('/webhooks/{id}/replay', {
      ...path,
      body: { after: '5', until: '4' },
    })
    assert.equal(badRange.response.status, 400)
    assert.equal(badRange.error?.error.code, 'VALIDATION_ERROR')
    const refused = await client.GET('/webhooks', { headers: bearer(SITI) })
    assert.equal(refused.response.status, 403)
    const deleted = await client.DELETE('/webhooks/{id}', path)
    assert.equal(deleted.response.status, 204)
  })
})

describe("the service's own endpoints", () => {
  test('GET /health/ready: ready, with no backing service configured', async () => {
    const ready = await client.GET('/health/ready')
    assert.equal(ready.response.status, 200)
    assert.deepEqual(ready.data, { status: 'ok', checks: {} })
  })

  test('GET /openapi.json: the document, its origin the address the client called', async () => {
    const described = await client.GET('/openapi.json')
    assert.equal(described.response.status, 200)
    assert.equal(described.data?.openapi, '3.1.0')
    assert.ok(described.data !== undefined && '/metrics' in described.data.paths)
    assert.equal(described.data.servers[0]?.url, '{origin}/v1')
    // The server variable `origin` defaults to where the document was fetched from.
    const { origin } = new URL(described.response.url)
    assert.equal(JSON.stringify(described.data).includes(`"default":"${origin}"`), true)
  })

  test('GET /asyncapi.json: the events as AsyncAPI 3.0.0, its server the address called', async () => {
    const described = await client.GET('/asyncapi.json')
    assert.equal(described.response.status, 200)
    assert.equal(described.data?.asyncapi, '3.0.0')
    assert.ok(described.data !== undefined && 'events' in described.data.channels)
    const { host } = new URL(described.response.url)
    assert.equal(JSON.stringify(described.data.servers.service).includes(`"host":"${host}"`), true)
  })

  test('GET /docs: the HTML page, read as text', async () => {
    const page = await client.GET('/docs', { parseAs: 'text' })
    assert.equal(page.response.status, 200)
    assert.match(page.response.headers.get('content-type') ?? '', /^text\/html\b/)
    assert.match(page.data ?? '', /<title>tugas: API reference<\/title>/)
  })

  test('GET /metrics: the Prometheus text, counting the calls made through the client', async () => {
    const metrics = await client.GET('/metrics', { parseAs: 'text' })
    assert.equal(metrics.response.status, 200)
    assert.equal(
      metrics.response.headers.get('content-type'),
      'text/plain; version=0.0.4; charset=utf-8',
    )
    assert.match(metrics.data ?? '', /^# HELP tugas_/)
    assert.match(
      metrics.data ?? '',
      /^tugas_api_version_requests_total\{api="produk",version="v1"\} 1$/m,
    )
  })
})

test('every operation of the served document was called through the client', () => {
  assert.deepEqual(
    documented.filter((operation) => !called.has(operation)),
    [],
    'operations of /openapi.json that no test here calls through the typed client',
  )
})
