// Surface B: /api/health and /api/tugas (Part 1 Surface B, Part 2 E3 and E4, decisions.md 2).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { call, callJson, json, testApp } from '../../support/helpers.js'

const PLAIN = 'text/plain; charset=utf-8'

/** Every response is also checked against the app's own /openapi.json. */
async function send(app: FastifyInstance, options: InjectOptions & { url: string }) {
  return call(app, options)
}

async function withTask(judul = 'Pertama') {
  const app = await testApp()
  await send(app, { method: 'POST', url: '/api/tugas', headers: json, payload: { judul } })
  return app
}

function e3(
  response: { statusCode: number; json(): unknown; headers: Record<string, unknown> },
  status: number,
  message: string,
) {
  assert.equal(response.statusCode, status)
  assert.match(String(response.headers['content-type']), /^application\/json/)
  assert.deepEqual(response.json(), { error: message })
}

function plain(
  response: { statusCode: number; body: string; headers: Record<string, unknown> },
  status: number,
) {
  assert.equal(response.statusCode, status)
  assert.equal(response.headers['content-type'], PLAIN)
  assert.ok(response.body.length > 0)
  assert.throws(() => JSON.parse(response.body), 'a plain-text body, not JSON')
}

describe('surface B', () => {
  test('GET /api/health is 200 { status: "ok" }', async () => {
    const response = await send(await testApp(), { url: '/api/health' })
    assert.equal(response.statusCode, 200)
    assert.match(String(response.headers['content-type']), /^application\/json/)
    assert.deepEqual(response.json(), { status: 'ok' })
  })

  test('GET /api/tugas is an empty array at first: surface B has its own data', async () => {
    const response = await send(await testApp(), { url: '/api/tugas' })
    assert.equal(response.statusCode, 200)
    assert.deepEqual(response.json(), [])
  })

  test('POST creates: 201, Location, selesai false, judul stored trimmed', async () => {
    const app = await testApp()
    const response = await callJson(app, 'POST', '/api/tugas', {
      judul: '  Belajar Rust  ',
      selesai: true,
      id: 7,
    })
    assert.equal(response.statusCode, 201)
    assert.equal(response.headers.location, '/api/tugas/1')
    assert.deepEqual(response.json(), { id: 1, judul: 'Belajar Rust', selesai: false })
    assert.deepEqual((await send(app, { url: '/api/tugas' })).json(), [response.json()])
    assert.deepEqual((await send(app, { url: '/api/tugas/1' })).json(), response.json())
  })

  test('judul: non-empty after trimming, at most 140 code points (140 emoji pass, 141 fail)', async () => {
    const app = await testApp()
    const post = (judul: string) =>
      send(app, { method: 'POST', url: '/api/tugas', headers: json, payload: { judul } })
    assert.equal((await post('😀'.repeat(140))).statusCode, 201)
    assert.equal((await post(` ${'a'.repeat(140)} `)).statusCode, 201)
    e3(await post('😀'.repeat(141)), 400, 'judul tidak boleh lebih dari 140 karakter')
    e3(await post('a'.repeat(141)), 400, 'judul tidak boleh lebih dari 140 karakter')
    e3(await post(''), 400, 'judul tidak boleh kosong')
    e3(await post(' \t\n '), 400, 'judul tidak boleh kosong')
  })

  test('ids are unsigned integers; anything else is 400 echoing the value as sent', async () => {
    const app = await withTask()
    for (const id of ['abc', '-1', '1.5', '1e3', '+1', ' 1']) {
      for (const method of ['GET', 'DELETE'] as const) {
        const response = await send(app, { method, url: `/api/tugas/${encodeURIComponent(id)}` })
        e3(response, 400, `Id "${id}" bukan angka yang valid`)
      }
    }
  })

  test('an unsigned integer no task can have (0, past the largest id) is 404 naming it', async () => {
    const app = await withTask()
    for (const id of ['0', '9007199254740991', '9007199254740992', '99999999999999999999']) {
      for (const method of ['GET', 'DELETE'] as const) {
        const response = await send(app, { method, url: `/api/tugas/${id}` })
        e3(response, 404, `Tugas dengan id ${id} tidak ditemukan`)
      }
    }
  })

  test('a missing task is 404 naming the id', async () => {
    const app = await withTask()
    e3(await send(app, { url: '/api/tugas/2' }), 404, 'Tugas dengan id 2 tidak ditemukan')
    e3(
      await send(app, { method: 'DELETE', url: '/api/tugas/2' }),
      404,
      'Tugas dengan id 2 tidak ditemukan',
    )
  })

  test('PUT replaces judul and selesai, both required', async () => {
    const app = await withTask()
    const response = await callJson(app, 'PUT', '/api/tugas/1', { judul: ' Ganti ', selesai: true })
    assert.equal(response.statusCode, 200)
    assert.deepEqual(response.json(), { id: 1, judul: 'Ganti', selesai: true })
    assert.deepEqual((await send(app, { url: '/api/tugas/1' })).json(), response.json())
  })

  test('DELETE is 204 with an empty body; later reads are 404', async () => {
    const app = await withTask()
    const response = await send(app, { method: 'DELETE', url: '/api/tugas/1' })
    assert.equal(response.statusCode, 204)
    assert.equal(response.body, '')
    assert.equal((await send(app, { url: '/api/tugas/1' })).statusCode, 404)
  })

  test('body reader: malformed JSON 400, missing or mistyped field 422, no JSON content type 415, all plain text', async () => {
    const app = await withTask()
    const post = (payload: string, headers: Record<string, string> = json) =>
      send(app, { method: 'POST', url: '/api/tugas', headers, payload })
    plain(await post('{"judul":'), 400)
    plain(await post(''), 400)
    plain(await post('{}'), 422)
    plain(await post('{"judul":5}'), 422)
    plain(await post('{"judul":null}'), 422)
    plain(await post('[]'), 422)
    plain(await post('"judul"'), 422)
    plain(await post('{"judul":"x"}', { 'content-type': 'text/plain' }), 415)
    plain(await post('{"judul":"x"}', {}), 415)
    plain(await send(app, { method: 'POST', url: '/api/tugas' }), 415)
    plain(await send(app, { method: 'PUT', url: '/api/tugas/1' }), 415)
    const put = (payload: string) =>
      send(app, { method: 'PUT', url: '/api/tugas/1', headers: json, payload })
    plain(await put('{"judul":"x"}'), 422)
    plain(await put('{"judul":"x","selesai":"true"}'), 422)
    plain(await put('{"selesai":true}'), 422)
    assert.equal((await send(app, { url: '/api/tugas' })).json().length, 1, 'nothing was created')
  })

  test('a body over 1 MiB is 413, plain text', async () => {
    const app = await testApp()
    const payload = JSON.stringify({ judul: 'x'.repeat(1024 * 1024) })
    plain(await send(app, { method: 'POST', url: '/api/tugas', headers: json, payload }), 413)
  })

  test('PUT checks in order: id, body decoding, judul, existence', async () => {
    const app = await withTask()
    const put = (id: string, payload: string, headers: Record<string, string> = json) =>
      send(app, { method: 'PUT', url: `/api/tugas/${id}`, headers, payload })
    e3(await put('abc', '{'), 400, 'Id "abc" bukan angka yang valid')
    e3(
      await put('abc', 'x', { 'content-type': 'text/plain' }),
      400,
      'Id "abc" bukan angka yang valid',
    )
    plain(await put('9', '{'), 400)
    plain(await put('9', '{"judul":""}'), 422)
    plain(await put('9', '', { 'content-type': 'text/plain' }), 415)
    e3(await put('9', '{"judul":"","selesai":false}'), 400, 'judul tidak boleh kosong')
    e3(await put('9', '{"judul":"ok","selesai":false}'), 404, 'Tugas dengan id 9 tidak ditemukan')
  })

  test('an unknown path under /api/ is 404 with an empty body, whatever the request', async () => {
    const app = await testApp()
    for (const [method, url] of [
      ['GET', '/api/'],
      ['GET', '/api/nope'],
      ['POST', '/api/tugas/1/komentar'],
      ['GET', '/api/%zz'],
      ['GET', '/api/tugas/1/%zz'],
    ] as const) {
      const response = await send(app, {
        method,
        url,
        headers: { 'content-type': 'text/xml' },
        payload: '<x/>',
      })
      assert.equal(response.statusCode, 404, url)
      assert.equal(response.body, '')
      assert.equal(response.headers['content-type'], undefined)
    }
  })

  test('a registered path with another method is 405, empty body, with Allow', async () => {
    const app = await testApp()
    const cases = [
      ['POST', '/api/health', 'GET, HEAD'],
      ['DELETE', '/api/tugas', 'GET, HEAD, POST'],
      ['PATCH', '/api/tugas/1', 'DELETE, GET, HEAD, PUT'],
      ['POST', '/api/tugas/abc', 'DELETE, GET, HEAD, PUT'],
      ['OPTIONS', '/api/tugas', 'GET, HEAD, POST'],
    ] as const
    for (const [method, url, allow] of cases) {
      const response = await send(app, {
        method,
        url,
        headers: { 'content-type': 'text/plain' },
        payload: 'x',
      })
      assert.equal(response.statusCode, 405, `${method} ${url}`)
      assert.equal(response.headers.allow, allow)
      assert.equal(response.body, '')
    }
  })
})
