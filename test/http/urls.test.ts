// Ids of any length and URLs the router cannot percent-decode, on every surface with item routes,
// over a real socket (the HTTP parser included): each gets its own surface's answer, its id
// error, its 404 or its 405, never another surface's (decisions.md 2).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { testApp } from '../support/helpers.js'
import { exchange, listenOnLoopback, request } from '../support/raw-http.js'

let app: FastifyInstance
let port: number

before(async () => {
  app = await testApp({ closedBy: 'caller' })
  port = await listenOnLoopback(app)
})
after(() => app.close())

const digits = (n: number) => '9'.repeat(n)
const letters = (n: number) => 'a'.repeat(n)
/** Past the router's default limit of 100 characters a segment, and far past it. */
const LONG = [101, 113, 500, 5000]
const UNDECODABLE = ['%', '%zz', '%c0%ae', '%e0%a4%a', '1%', '%41%zz']

interface Expected {
  status: number
  /** The exact JSON body, the exact text, or '' for an empty body. */
  body: unknown
  allow?: string
  headers?: Record<string, string>
}

async function check(
  method: string,
  target: string,
  expected: Expected,
  extra: { headers?: Record<string, string>; body?: string } = {},
) {
  const headers = { ...extra.headers }
  if (extra.body !== undefined) {
    headers['content-type'] = 'application/json'
    headers['content-length'] = String(Buffer.byteLength(extra.body))
  }
  const answer = await exchange(port, [request(method, target, headers) + (extra.body ?? '')])
  const what = `${method} ${target.slice(0, 60)}`
  assert.equal(answer.status, expected.status, what)
  if (typeof expected.body === 'string') {
    assert.equal(answer.body, expected.body, what)
  } else {
    assert.match(answer.headers['content-type'] ?? '', /^application\/json/, what)
    assert.deepEqual(JSON.parse(answer.body), expected.body, what)
  }
  assert.equal(answer.headers.allow, expected.allow, what)
  for (const [name, value] of Object.entries(expected.headers ?? {})) {
    assert.equal(answer.headers[name], value, what)
  }
}

const e1 = (status: number, kode: string, pesan: string): Expected => ({
  status,
  body: { error: { kode, pesan } },
})
const e2 = (status: number, code: string, message: string, allow?: string): Expected => ({
  status,
  body: { error: { code, message } },
  ...(allow && { allow }),
})
const e3 = (status: number, error: string): Expected => ({ status, body: { error } })
const TASK = JSON.stringify({ title: 'Judul yang sah', status: 'belum' })
const TODO = JSON.stringify({ title: 'beli susu' })
const JUDUL = JSON.stringify({ judul: 'ok', selesai: false })

describe('surface A: /tugas/<id>', () => {
  test('an id of digits of any length is a task that does not exist, named as sent', async () => {
    for (const n of LONG) {
      const id = digits(n)
      const missing = e1(404, 'TIDAK_ADA', `task ${id} not found`)
      await check('GET', `/tugas/${id}`, missing)
      await check('PUT', `/tugas/${id}`, missing, { body: TASK })
      await check('PATCH', `/tugas/${id}`, missing, { body: '{}' })
      await check('DELETE', `/tugas/${id}`, missing)
      await check('GET', `/tugas/${id}/komentar`, missing)
      await check('POST', `/tugas/${id}/komentar`, missing, { body: '{"isi":"halo"}' })
      await check('GET', `/tugas/1/komentar/${id}`, e1(404, 'TIDAK_ADA', `comment ${id} not found`))
      await check('GET', `/v1/tugas/${id}`, missing)
    }
  })

  test('a long id that is not all digits, or one that cannot be decoded, names no endpoint', async () => {
    const noEndpoint = e1(404, 'TIDAK_ADA', 'endpoint not found')
    for (const id of [...LONG.map(letters), ...UNDECODABLE]) {
      for (const method of ['GET', 'PUT', 'PATCH', 'DELETE', 'NOTIFY']) {
        await check(method, `/tugas/${id}`, noEndpoint)
      }
      await check('GET', `/tugas/${id}/komentar`, noEndpoint)
      await check('GET', `/tugas/1/komentar/${id}`, noEndpoint)
    }
  })
})

describe('surface B: /api/tugas/<id>', () => {
  const allow = 'DELETE, GET, HEAD, PUT'
  test('an id of any length that is not an unsigned integer is 400, echoed as sent', async () => {
    for (const id of [...LONG.map(letters), ...UNDECODABLE]) {
      const invalid = e3(400, `Id "${id}" bukan angka yang valid`)
      await check('GET', `/api/tugas/${id}`, invalid)
      await check('DELETE', `/api/tugas/${id}`, invalid)
      // The id is checked before the body (Part 1, B rule 1).
      await check('PUT', `/api/tugas/${id}`, invalid, { body: JUDUL })
      await check('PUT', `/api/tugas/${id}`, invalid, { body: '{' })
    }
  })

  test('digits of any length are an id that names no task: 404 after the body checks', async () => {
    for (const n of LONG) {
      const id = digits(n)
      const missing = e3(404, `Tugas dengan id ${id} tidak ditemukan`)
      await check('GET', `/api/tugas/${id}`, missing)
      await check('DELETE', `/api/tugas/${id}`, missing)
      await check('PUT', `/api/tugas/${id}`, missing, { body: JUDUL })
      // Order (Part 1, B rule 1): id, body, judul, then existence.
      await check('PUT', `/api/tugas/${id}`, e3(400, 'judul tidak boleh kosong'), {
        body: '{"judul":" ","selesai":true}',
      })
    }
  })

  test('a method the item path does not register is 405, empty, with Allow', async () => {
    for (const id of [letters(500), digits(500), ...UNDECODABLE]) {
      for (const method of ['PATCH', 'POST', 'NOTIFY']) {
        await check(method, `/api/tugas/${id}`, { status: 405, body: '', allow })
      }
    }
  })

  test('an undecodable segment elsewhere under /api/ is an unknown path: 404, empty', async () => {
    for (const id of UNDECODABLE) {
      await check('GET', `/api/${id}`, { status: 404, body: '' })
      await check('GET', `/api/tugas/1/${id}`, { status: 404, body: '' })
    }
  })
})

describe('surface C: /todos/<id>', () => {
  const allow = 'DELETE, GET, HEAD, PUT'
  const notAllowed: Expected = {
    status: 405,
    body: 'Method Not Allowed',
    allow,
    headers: { 'content-type': 'text/plain; charset=utf-8' },
  }
  test('digits of any length are an id that names no todo: 404 after the body checks', async () => {
    for (const n of LONG) {
      const id = digits(n)
      const missing = e3(404, 'tugas tidak ditemukan')
      await check('GET', `/todos/${id}`, missing)
      await check('DELETE', `/todos/${id}`, missing)
      await check('PUT', `/todos/-${id}`, missing, { body: TODO })
      await check('PUT', `/todos/${id}`, e3(400, 'title wajib diisi'), { body: '{"title":" "}' })
    }
  })

  test('an id of any length that is not an integer is 400 id harus angka', async () => {
    for (const id of [...LONG.map(letters), ...UNDECODABLE]) {
      const invalid = e3(400, 'id harus angka')
      await check('GET', `/todos/${id}`, invalid)
      await check('DELETE', `/todos/${id}`, invalid)
      await check('PUT', `/todos/${id}`, invalid, { body: TODO })
      await check('PUT', `/todos/${id}`, invalid, { body: '{' })
    }
  })

  test('a method the item path does not register is the plain-text 405 with Allow', async () => {
    for (const id of [letters(500), digits(500), ...UNDECODABLE]) {
      for (const method of ['PATCH', 'POST', 'NOTIFY']) {
        await check(method, `/todos/${id}`, notAllowed)
      }
    }
  })
})

describe('surface D: /users, /pesanan, /produk, /dokumen', () => {
  const admin = { authorization: 'Bearer demo-admin-token' }
  const budi = { 'x-api-key': 'demo-budi-token' }

  test('digits of any length are well-formed ids that name nothing: 404, named as sent', async () => {
    for (const n of LONG) {
      const id = digits(n)
      await check('GET', `/users/${id}`, e2(404, 'NOT_FOUND', `user ${id} not found`))
      await check('GET', `/pesanan/${id}`, e2(404, 'NOT_FOUND', `order ${id} not found`))
      await check('POST', `/pesanan/${id}/bayar`, e2(404, 'NOT_FOUND', `order ${id} not found`))
      await check('GET', `/produk/${id}`, e2(404, 'NOT_FOUND', `product ${id} not found`))
      await check('GET', `/dokumen/${id}`, e2(404, 'NOT_FOUND', `document ${id} not found`), {
        headers: admin,
      })
      await check('DELETE', `/dokumen/${id}`, e2(404, 'NOT_FOUND', `document ${id} not found`), {
        headers: admin,
      })
    }
  })

  test('anything else, of any length or undecodable, is 400 INVALID_ID after the access checks', async () => {
    for (const id of [...LONG.map(letters), ...UNDECODABLE]) {
      const invalid = e2(400, 'INVALID_ID', `id ${JSON.stringify(id)} is not an integer`)
      await check('GET', `/users/${id}`, invalid)
      await check('GET', `/pesanan/${id}`, invalid)
      await check('POST', `/pesanan/${id}/bayar`, invalid)
      await check('GET', `/produk/${id}`, invalid)
      await check('GET', `/dokumen/${id}`, invalid, { headers: admin })
      // Credential (401), then role policy (403), before the id.
      await check('GET', `/dokumen/${id}`, {
        ...e2(
          401,
          'UNAUTHENTICATED',
          'a valid credential is required: Authorization: Bearer <token> or X-API-Key',
        ),
        headers: { 'www-authenticate': 'Bearer realm="api"' },
      })
      await check(
        'DELETE',
        `/dokumen/${id}`,
        e2(403, 'FORBIDDEN', 'role "user" is not allowed to call DELETE /dokumen/{id}'),
        { headers: budi },
      )
    }
  })

  test('a method the path does not register is 405 METHOD_NOT_ALLOWED with Allow', async () => {
    const notAllowed = (allow: string) =>
      e2(405, 'METHOD_NOT_ALLOWED', 'method not allowed on this endpoint', allow)
    for (const id of [letters(500), digits(500), ...UNDECODABLE]) {
      for (const method of ['PATCH', 'PUT', 'NOTIFY']) {
        await check(method, `/users/${id}`, notAllowed('GET, HEAD'))
        await check(method, `/pesanan/${id}`, notAllowed('GET, HEAD'))
        await check(method, `/produk/${id}`, notAllowed('GET, HEAD'))
        await check(method, `/dokumen/${id}`, notAllowed('DELETE, GET, HEAD'))
      }
      await check('GET', `/pesanan/${id}/bayar`, notAllowed('POST'))
    }
  })
})
