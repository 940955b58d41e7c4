// Surface C: /todos, both TODOS_VARIANT values (Part 1 Surface C, Part 2 E2 and E3,
// decisions.md sections 2, 3, 6).
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { connect } from 'node:net'
import { describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { call, callJson, json, testApp } from '../../support/helpers.js'

const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/

function e3(response: { statusCode: number; json(): unknown }, status: number, message: string) {
  assert.equal(response.statusCode, status)
  assert.deepEqual(response.json(), { error: message })
}

const basic = () => testApp({ config: { todosVariant: 'basic' } })
const priority = () => testApp({ config: { todosVariant: 'priority' } })

async function create(app: FastifyInstance, payload: unknown) {
  return callJson(app, 'POST', '/todos', JSON.stringify(payload))
}

for (const [variant, build] of [
  ['basic', basic],
  ['priority', priority],
] as const) {
  describe(`surface C, ${variant} variant: what both variants share`, () => {
    test('GET /todos lists todos; an empty array at first', async () => {
      const response = await call(await build(), { url: '/todos' })
      assert.equal(response.statusCode, 200)
      assert.deepEqual(response.json(), [])
    })

    test('ids are integers: text is 400 id harus angka; a missing todo is 404', async () => {
      const app = await build()
      for (const id of ['abc', '1.5', '1e3', '%20', '--1']) {
        for (const method of ['GET', 'DELETE'] as const) {
          e3(await call(app, { method, url: `/todos/${id}` }), 400, 'id harus angka')
        }
        e3(
          await call(app, { method: 'PUT', url: `/todos/${id}`, headers: json, payload: '{' }),
          400,
          'id harus angka',
        )
      }
      // Integers no todo can have (0, negative, past the largest id) are 404 as well.
      for (const id of ['1', '-1', '0', '+2', '9007199254740992', '99999999999999999999']) {
        e3(await call(app, { url: `/todos/${id}` }), 404, 'tugas tidak ditemukan')
        e3(
          await callJson(app, 'PUT', `/todos/${id}`, '{"title":"x"}'),
          404,
          'tugas tidak ditemukan',
        )
      }
    })

    test('an unregistered method on /todos or /todos/<id> is 405 plain text with Allow', async () => {
      const app = await build()
      for (const [method, url, allow] of [
        ['PATCH', '/todos', 'GET, HEAD, POST'],
        ['DELETE', '/todos', 'GET, HEAD, POST'],
        ['PATCH', '/todos/1', 'DELETE, GET, HEAD, PUT'],
        ['POST', '/todos/abc', 'DELETE, GET, HEAD, PUT'],
      ] as const) {
        const response = await call(app, { method, url, headers: json, payload: '{' })
        assert.equal(response.statusCode, 405, `${method} ${url}`)
        assert.equal(response.headers['content-type'], 'text/plain; charset=utf-8')
        assert.equal(response.headers.allow, allow)
        assert.equal(response.body, 'Method Not Allowed')
      }
    })

    test('other paths below /todos are the service 404', async () => {
      const response = await call(await build(), { url: '/todos/1/x' })
      assert.equal(response.statusCode, 404)
      assert.equal(response.json().error.kode, 'TIDAK_ADA')
    })
  })
}

describe('surface C, basic variant', () => {
  test('POST creates: 201, Location, done default false, title trimmed, created_at RFC 3339 UTC', async () => {
    const app = await basic()
    const before = Date.now()
    const response = await create(app, {
      title: '  Beli susu  ',
      id: 9,
      created_at: '1999-01-01T00:00:00Z',
    })
    assert.equal(response.statusCode, 201)
    assert.equal(response.headers.location, '/todos/1')
    const todo = response.json()
    assert.deepEqual(
      { ...todo, created_at: undefined },
      { id: 1, title: 'Beli susu', done: false, created_at: undefined },
    )
    assert.match(todo.created_at, RFC3339_UTC)
    const stamp = Date.parse(todo.created_at)
    assert.ok(stamp >= before - 1 && stamp <= Date.now() + 1)
    assert.equal((await create(app, { title: 'Dua', done: true })).json().done, true)
  })

  test('PUT sets title and done (done left out is false); created_at never changes', async () => {
    const app = await basic()
    const created = (await create(app, { title: 'Satu', done: true })).json()
    await new Promise((resolve) => setTimeout(resolve, 5))
    const put = await callJson(app, 'PUT', '/todos/1', { title: ' Baru ' })
    assert.equal(put.statusCode, 200)
    assert.deepEqual(put.json(), {
      id: 1,
      title: 'Baru',
      done: false,
      created_at: created.created_at,
    })
    const again = await callJson(app, 'PUT', '/todos/1', { title: 'Lagi', done: true })
    assert.deepEqual(again.json(), {
      id: 1,
      title: 'Lagi',
      done: true,
      created_at: created.created_at,
    })
    assert.deepEqual((await call(app, { url: '/todos/1' })).json(), again.json())
  })

  test('DELETE is 204 with an empty body; later reads are 404', async () => {
    const app = await basic()
    await create(app, { title: 'Satu' })
    const response = await call(app, { method: 'DELETE', url: '/todos/1' })
    assert.equal(response.statusCode, 204)
    assert.equal(response.body, '')
    e3(await call(app, { url: '/todos/1' }), 404, 'tugas tidak ditemukan')
    e3(await call(app, { method: 'DELETE', url: '/todos/1' }), 404, 'tugas tidak ditemukan')
  })

  test('title missing, null or blank is "title wajib diisi"', async () => {
    const app = await basic()
    for (const payload of [
      {},
      { title: null },
      { title: '' },
      { title: '  \n ' },
      { done: true },
      null,
    ]) {
      e3(await create(app, payload), 400, 'title wajib diisi')
    }
  })

  test('a body that is not JSON, or whose fields have the wrong type, is "body bukan JSON yang valid"', async () => {
    const app = await basic()
    for (const payload of [
      '{',
      '',
      'nope',
      '[]',
      '"title"',
      '5',
      '{"title":5}',
      '{"title":"x","done":"true"}',
      '{"title":["x"]}',
    ]) {
      e3(
        await call(app, { method: 'POST', url: '/todos', headers: json, payload }),
        400,
        'body bukan JSON yang valid',
      )
    }
    e3(await call(app, { method: 'POST', url: '/todos' }), 400, 'body bukan JSON yang valid')
    assert.deepEqual((await call(app, { url: '/todos' })).json(), [], 'nothing was created')
  })

  test('PUT checks in order: id, body, title, existence', async () => {
    const app = await basic()
    const put = (id: string, payload: string) =>
      call(app, { method: 'PUT', url: `/todos/${id}`, headers: json, payload })
    e3(await put('x', '{'), 400, 'id harus angka')
    e3(await put('9', '{'), 400, 'body bukan JSON yang valid')
    e3(await put('9', '{"title":""}'), 400, 'title wajib diisi')
    e3(await put('9', '{"title":"ok"}'), 404, 'tugas tidak ditemukan')
  })

  test('a body over 1 MiB is 413 in the E3 shape', async () => {
    const response = await call(await basic(), {
      method: 'POST',
      url: '/todos',
      headers: json,
      payload: JSON.stringify({ title: 'x'.repeat(1024 * 1024) }),
    })
    e3(response, 413, 'body melebihi batas 1048576 byte')
  })
})

describe('surface C, priority variant: POST /todos', () => {
  function e2(
    response: { statusCode: number; json(): unknown },
    status: number,
    code: string,
    fields?: Record<string, string>,
  ) {
    assert.equal(response.statusCode, status)
    const { error } = response.json() as { error: Record<string, unknown> }
    assert.deepEqual(Object.keys(response.json() as object), ['error'])
    assert.equal(error.code, code)
    assert.equal(typeof error.message, 'string')
    if (fields === undefined) assert.equal('fields' in error, false)
    else {
      assert.deepEqual(error.fields, fields)
      assert.deepEqual(
        Object.keys(error.fields as object),
        Object.keys(fields).sort(),
        'keys in alphabetical order',
      )
    }
    assert.equal('details' in error, false, 'this variant names the map fields')
  }

  test('201 with exactly { id, title, priority } and Location', async () => {
    const app = await priority()
    const response = await create(app, {
      title: '  Rapat  ',
      priority: 5,
      due_date: '2024-02-29',
      done: true,
    })
    assert.equal(response.statusCode, 201)
    assert.equal(response.headers.location, '/todos/1')
    assert.deepEqual(response.json(), { id: 1, title: 'Rapat', priority: 5 })
    const stored = (await call(app, { url: '/todos/1' })).json()
    assert.equal(stored.title, 'Rapat')
    assert.equal(stored.done, false)
    assert.match(stored.created_at, RFC3339_UTC)
  })

  test('step 1: a content type that does not start with application/json is 415', async () => {
    const app = await priority()
    for (const headers of [
      { 'content-type': 'text/plain' },
      {},
      { 'content-type': '' },
      { 'content-type': 'application/xml' },
    ]) {
      e2(
        await call(app, {
          method: 'POST',
          url: '/todos',
          headers,
          payload: '{"title":"abc","priority":1}',
        }),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      )
    }
    e2(
      await call(app, {
        method: 'POST',
        url: '/todos',
        headers: { 'content-type': 'text/plain' },
        payload: 'x'.repeat(5000),
      }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    )
    const withCharset = await call(app, {
      method: 'POST',
      url: '/todos',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      payload: '{"title":"abc","priority":1}',
    })
    assert.equal(withCharset.statusCode, 201)
  })

  test('steps 2 and 3: over 1024 bytes is 413 BODY_TOO_LARGE naming the limit; malformed is 400 INVALID_JSON', async () => {
    const app = await priority()
    const exact = JSON.stringify({ title: 'abc', priority: 1, pad: 'x'.repeat(1024 - 37) })
    assert.equal(Buffer.byteLength(exact), 1024)
    assert.equal(
      (await call(app, { method: 'POST', url: '/todos', headers: json, payload: exact }))
        .statusCode,
      201,
    )
    const over = await callJson(app, 'POST', '/todos', `${exact} `)
    e2(over, 413, 'BODY_TOO_LARGE')
    assert.match(over.json().error.message, /1024 bytes/)
    e2(
      await call(app, { method: 'POST', url: '/todos', headers: json, payload: '{"title":' }),
      400,
      'INVALID_JSON',
    )
    e2(await call(app, { method: 'POST', url: '/todos', headers: json }), 400, 'INVALID_JSON')
    e2(await callJson(app, 'POST', '/todos', `{${' '.repeat(2000)}`), 413, 'BODY_TOO_LARGE')
  })

  test('step 4: every violation together, 400 VALIDATION_ERROR, fields in alphabetical order', async () => {
    const app = await priority()
    const t = 'title is required: text of at least 3 bytes'
    const p = 'priority is required: an integer from 1 to 5'
    const d = 'due_date must be a real calendar date in the form YYYY-MM-DD'
    e2(await create(app, {}), 400, 'VALIDATION_ERROR', { priority: p, title: t })
    e2(
      await create(app, { title: 'ab', priority: 0, due_date: '2024-02-30' }),
      400,
      'VALIDATION_ERROR',
      { due_date: d, priority: p, title: t },
    )
    for (const value of [0, 6, 2.5, '3', null, true, -1]) {
      e2(await create(app, { title: 'abc', priority: value }), 400, 'VALIDATION_ERROR', {
        priority: p,
      })
    }
    for (const value of [
      '2024-13-01',
      '2023-02-29',
      '2024-2-1',
      '24-01-01',
      '2024-01-01T00:00:00Z',
      20240101,
      '',
    ]) {
      e2(
        await create(app, { title: 'abc', priority: 1, due_date: value }),
        400,
        'VALIDATION_ERROR',
        { due_date: d },
      )
    }
    e2(await create(app, [1, 2]), 400, 'VALIDATION_ERROR', { priority: p, title: t })
    assert.deepEqual((await call(app, { url: '/todos' })).json(), [], 'nothing was created')
  })

  test('title is counted in UTF-8 bytes after trimming: "é" (2 bytes) fails, "éa" (3 bytes) passes', async () => {
    const app = await priority()
    assert.equal((await create(app, { title: ' é ', priority: 1 })).statusCode, 400)
    assert.equal((await create(app, { title: 'éa', priority: 1 })).statusCode, 201)
    assert.equal((await create(app, { title: '😀', priority: 1 })).statusCode, 201)
    assert.equal((await create(app, { title: 'ab', priority: 1 })).statusCode, 400)
  })

  test('the other endpoints behave as in the basic variant', async () => {
    const app = await priority()
    await create(app, { title: 'abc', priority: 2 })
    const put = await callJson(app, 'PUT', '/todos/1', { title: 'x', done: true })
    assert.equal(put.statusCode, 200)
    assert.equal(put.json().title, 'x')
    e3(
      await call(app, { method: 'PUT', url: '/todos/1', headers: json, payload: '{' }),
      400,
      'body bukan JSON yang valid',
    )
    assert.equal((await call(app, { method: 'DELETE', url: '/todos/1' })).statusCode, 204)
  })

  test('a 100 MB upload is refused after the first 1024 bytes, on a real socket', async () => {
    const app = await priority()
    await app.listen({ host: '127.0.0.1', port: 0 })
    try {
      const { port } = app.server.address() as { port: number }
      for (const framing of ['Content-Length: 104857600', 'Transfer-Encoding: chunked']) {
        const socket = connect(port, '127.0.0.1')
        await once(socket, 'connect')
        let answer = ''
        socket.on('data', (chunk: Buffer) => {
          answer += chunk
        })
        const piece = 'x'.repeat(2048)
        const body = framing.startsWith('Transfer') ? `800\r\n${piece}\r\n` : piece
        socket.write(
          `POST /todos HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n${framing}\r\n\r\n${body}`,
        )
        // Nothing more is sent: the answer must come without the rest of the 100 MB.
        await once(socket, 'close')
        assert.match(answer, /^HTTP\/1\.1 413 /, framing)
        assert.match(answer, /"code":"BODY_TOO_LARGE"/)
      }
    } finally {
      await app.close()
    }
  })
})
