// Surface A, one task at a time: create, read, replace, patch, delete (Part 1 Surface A,
// Part 2 E1, decisions.md section 6).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { call, callJson, json, testApp } from '../../support/helpers.js'

const seed = { tugas: [{ title: 'Belajar REST', status: 'selesai' }, { title: 'Kedua' }] }

function e1(body: unknown, kode: string, detail?: string[]) {
  const error = (body as { error: Record<string, unknown> }).error
  assert.deepEqual(Object.keys(body as object), ['error'])
  assert.equal(error.kode, kode)
  assert.equal(typeof error.pesan, 'string')
  if (detail === undefined) assert.equal('detail' in error, false, 'detail only on 422')
  else assert.deepEqual(error.detail, detail)
}

describe('POST /tugas', () => {
  test('201 with Location /tugas/<id> and the task; status defaults to belum', async () => {
    const app = await testApp({ seed })
    const response = await callJson(app, 'POST', '/tugas', { title: 'Baru' })
    assert.equal(response.statusCode, 201)
    assert.equal(response.headers.location, '/tugas/3')
    assert.match(String(response.headers['content-type']), /^application\/json/)
    assert.deepEqual(response.json(), { id: 3, title: 'Baru', status: 'belum' })
    assert.deepEqual((await call(app, { url: '/tugas/3' })).json(), response.json())
  })

  test('the title is trimmed before checking and before storing', async () => {
    const app = await testApp({ seed })
    const created = await callJson(app, 'POST', '/tugas', {
      title: '   abc \n\t',
      status: 'selesai',
    })
    assert.deepEqual(created.json(), { id: 3, title: 'abc', status: 'selesai' })
    const tooShort = await callJson(app, 'POST', '/tugas', { title: '  ab  ' })
    assert.equal(tooShort.statusCode, 422)
    e1(tooShort.json(), 'VALIDASI_GAGAL', ['title is under 3 characters'])
  })

  test('an id sent by the client is ignored, like every unknown field', async () => {
    const app = await testApp({ seed })
    const response = await callJson(app, 'POST', '/tugas', { id: 99, title: 'Abc', prioritas: 1 })
    assert.equal(response.statusCode, 201)
    assert.deepEqual(response.json(), { id: 3, title: 'Abc', status: 'belum' })
    assert.equal((await call(app, { url: '/tugas/99' })).statusCode, 404)
  })

  test('two identical POSTs create two tasks', async () => {
    const app = await testApp({ seed })
    const post = () =>
      call(app, { method: 'POST', url: '/tugas', headers: json, payload: { title: 'Sama' } })
    assert.equal((await post()).json().id, 3)
    assert.equal((await post()).json().id, 4)
  })

  test('80 characters pass and 81 fail, counted in code points (80 emoji are valid)', async () => {
    const app = await testApp({ seed })
    const post = (title: string) =>
      call(app, { method: 'POST', url: '/tugas', headers: json, payload: { title } })
    assert.equal((await post('a'.repeat(80))).statusCode, 201)
    assert.equal((await post('😀'.repeat(80))).statusCode, 201)
    assert.equal((await post('😀😀😀')).statusCode, 201)
    const long = await post('😀'.repeat(81))
    assert.equal(long.statusCode, 422)
    e1(long.json(), 'VALIDASI_GAGAL', ['title is over 80 characters'])
    e1((await post('a'.repeat(81))).json(), 'VALIDASI_GAGAL', ['title is over 80 characters'])
    e1((await post('😀😀')).json(), 'VALIDASI_GAGAL', ['title is under 3 characters'])
  })

  test('every violation is listed, in the order of Part 2', async () => {
    const app = await testApp({ seed })
    const cases: [unknown, string[]][] = [
      [[], ['body is not a JSON object', 'title is not text']],
      ['abc', ['body is not a JSON object', 'title is not text']],
      [null, ['body is not a JSON object', 'title is not text']],
      [{}, ['title is not text']],
      [{ title: null }, ['title is not text']],
      [{ title: 123, status: 'x' }, ['title is not text', 'status is not one of belum, selesai']],
      [
        { title: 'ab', status: 'SELESAI' },
        ['title is under 3 characters', 'status is not one of belum, selesai'],
      ],
      [
        { title: 'x'.repeat(81), status: null },
        ['title is over 80 characters', 'status is not one of belum, selesai'],
      ],
      [{ title: 'abc', status: true }, ['status is not one of belum, selesai']],
    ]
    for (const [body, detail] of cases) {
      const response = await callJson(app, 'POST', '/tugas', JSON.stringify(body))
      assert.equal(response.statusCode, 422, JSON.stringify(body))
      e1(response.json(), 'VALIDASI_GAGAL', detail)
    }
    assert.equal((await call(app, { url: '/tugas' })).json().length, 2, 'nothing was created')
  })

  test('a body that is not JSON is 400 JSON_TIDAK_VALID, before the rules', async () => {
    const app = await testApp({ seed })
    for (const payload of ['{"title": "abc"', '', "{'title': 'abc'}", 'undefined', '{"a":1}x']) {
      const response = await call(app, { method: 'POST', url: '/tugas', headers: json, payload })
      assert.equal(response.statusCode, 400, payload)
      e1(response.json(), 'JSON_TIDAK_VALID')
    }
  })

  test('a body not sent as JSON is 415 MEDIA_TIDAK_DUKUNG; +json types and charset pass', async () => {
    const app = await testApp({ seed })
    const payload = JSON.stringify({ title: 'abc' })
    const postAs = (type: string) =>
      call(app, { method: 'POST', url: '/tugas', headers: { 'content-type': type }, payload })
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const response = await postAs(type)
      assert.equal(response.statusCode, 415, type)
      e1(response.json(), 'MEDIA_TIDAK_DUKUNG')
    }
    for (const type of ['application/json; charset=utf-8', 'application/merge-patch+json']) {
      const response = await postAs(type)
      assert.equal(response.statusCode, 201, type)
    }
  })
})

describe('GET /tugas/<id>', () => {
  test('200 with the task; 404 TIDAK_ADA naming the id when it is missing', async () => {
    const app = await testApp({ seed })
    const found = await call(app, { url: '/tugas/1' })
    assert.equal(found.statusCode, 200)
    assert.deepEqual(found.json(), { id: 1, title: 'Belajar REST', status: 'selesai' })
    const missing = await call(app, { url: '/tugas/42' })
    assert.equal(missing.statusCode, 404)
    e1(missing.json(), 'TIDAK_ADA')
    assert.equal(missing.json().error.pesan, 'task 42 not found')
  })

  test('an id that is not all digits does not match: 404 endpoint not found', async () => {
    const app = await testApp({ seed })
    for (const id of ['abc', '-1', '1e3', '1.5', '%00', '%20', '0x1', '1%2F2', '+1']) {
      const response = await call(app, { url: `/tugas/${id}` })
      assert.equal(response.statusCode, 404, id)
      e1(response.json(), 'TIDAK_ADA')
      assert.equal(response.json().error.pesan, 'endpoint not found', id)
    }
  })

  test('digits past the safe-integer range are a well-formed id that names no task', async () => {
    const app = await testApp({ seed })
    const response = await call(app, { url: '/tugas/99999999999999999999' })
    assert.equal(response.statusCode, 404)
    assert.equal(response.json().error.pesan, 'task 99999999999999999999 not found')
  })

  test('GET never changes data', async () => {
    const app = await testApp({ seed })
    const before = (await call(app, { url: '/tugas' })).body
    await call(app, { url: '/tugas/1' })
    await call(app, { url: '/tugas?urut=-title&halaman=1' })
    assert.equal((await call(app, { url: '/tugas' })).body, before)
  })
})

describe('PUT /tugas/<id>', () => {
  test('replaces the whole task; status left out is reset to belum', async () => {
    const app = await testApp({ seed })
    const replaced = await callJson(app, 'PUT', '/tugas/1', { title: '  Judul baru  ' })
    assert.equal(replaced.statusCode, 200)
    assert.deepEqual(replaced.json(), { id: 1, title: 'Judul baru', status: 'belum' })
    assert.deepEqual((await call(app, { url: '/tugas/1' })).json(), replaced.json())
  })

  test('is idempotent', async () => {
    const app = await testApp({ seed })
    const put = () => callJson(app, 'PUT', '/tugas/2', { title: 'Tetap', status: 'selesai' })
    const first = await put()
    const second = await put()
    assert.deepEqual(second.json(), first.json())
    assert.equal((await call(app, { url: '/tugas' })).json().length, 2)
  })

  test('checks run in order: malformed JSON 400, then rules 422, then existence 404', async () => {
    const app = await testApp({ seed })
    const put = (url: string, payload: string) =>
      call(app, { method: 'PUT', url, headers: json, payload })
    const malformed = await put('/tugas/42', '{')
    assert.equal(malformed.statusCode, 400)
    e1(malformed.json(), 'JSON_TIDAK_VALID')
    const invalid = await put('/tugas/42', '{"status":"x"}')
    assert.equal(invalid.statusCode, 422)
    e1(invalid.json(), 'VALIDASI_GAGAL', [
      'title is not text',
      'status is not one of belum, selesai',
    ])
    const missing = await put('/tugas/42', '{"title":"abc"}')
    assert.equal(missing.statusCode, 404)
    assert.equal(missing.json().error.pesan, 'task 42 not found')
  })
})

describe('PATCH /tugas/<id>', () => {
  test('changes only the fields sent, each checked with the create rules', async () => {
    const app = await testApp({ seed })
    const patch = (payload: unknown) => callJson(app, 'PATCH', '/tugas/1', JSON.stringify(payload))
    assert.deepEqual((await patch({ status: 'belum' })).json(), {
      id: 1,
      title: 'Belajar REST',
      status: 'belum',
    })
    assert.deepEqual((await patch({ title: ' Ganti ' })).json(), {
      id: 1,
      title: 'Ganti',
      status: 'belum',
    })
    const invalid = await patch({ title: 'ab', status: 'x' })
    assert.equal(invalid.statusCode, 422)
    e1(invalid.json(), 'VALIDASI_GAGAL', [
      'title is under 3 characters',
      'status is not one of belum, selesai',
    ])
    e1((await patch({ title: null })).json(), 'VALIDASI_GAGAL', ['title is not text'])
    e1((await patch([])).json(), 'VALIDASI_GAGAL', ['body is not a JSON object'])
    assert.deepEqual((await call(app, { url: '/tugas/1' })).json(), {
      id: 1,
      title: 'Ganti',
      status: 'belum',
    })
  })

  test('{} changes nothing and answers 200', async () => {
    const app = await testApp({ seed })
    const response = await callJson(app, 'PATCH', '/tugas/1', {})
    assert.equal(response.statusCode, 200)
    assert.deepEqual(response.json(), { id: 1, title: 'Belajar REST', status: 'selesai' })
  })

  test('same order as PUT: 400, then 422, then 404', async () => {
    const app = await testApp({ seed })
    const patch = (payload: string) =>
      call(app, { method: 'PATCH', url: '/tugas/42', headers: json, payload })
    assert.equal((await patch('{')).statusCode, 400)
    assert.equal((await patch('{"title":""}')).statusCode, 422)
    assert.equal((await patch('{}')).statusCode, 404)
  })
})

describe('DELETE /tugas/<id>', () => {
  test('204 with an empty body; later reads are 404; deleting again is 404', async () => {
    const app = await testApp({ seed })
    const deleted = await call(app, { method: 'DELETE', url: '/tugas/1' })
    assert.equal(deleted.statusCode, 204)
    assert.equal(deleted.body, '')
    assert.equal(deleted.headers['content-type'], undefined)
    assert.equal((await call(app, { url: '/tugas/1' })).statusCode, 404)
    const again = await call(app, { method: 'DELETE', url: '/tugas/1' })
    assert.equal(again.statusCode, 404)
    e1(again.json(), 'TIDAK_ADA')
  })

  test('a stray body or content type does not matter to a route that reads none', async () => {
    const app = await testApp({ seed })
    const response = await call(app, {
      method: 'DELETE',
      url: '/tugas/1',
      headers: { 'content-type': 'text/plain' },
      payload: 'x'.repeat(2 * 1024 * 1024),
    })
    assert.equal(response.statusCode, 204)
  })
})
