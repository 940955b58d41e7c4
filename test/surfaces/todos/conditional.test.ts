// Surface C's conditional requests (decisions.md 8): the ETag of GET /todos/<id> and of the
// answers that carry a todo, 304, and If-Match on PUT and DELETE: 412 `{ "error": "versi tidak
// cocok" }` after the id, the body, `title` and existence; in both variants.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { conditionalSuite, OTHER_TAG, STRONG_TAG } from '../../support/conditional-kit.js'
import { call, callJson, json, testApp } from '../../support/helpers.js'

function versiTidakCocok(response: LightMyRequestResponse) {
  assert.equal(response.statusCode, 412, response.body)
  assert.match(String(response.headers['content-type']), /^application\/json/)
  assert.deepEqual(response.json(), { error: 'versi tidak cocok' })
}

const priority = { todosVariant: 'priority' as const }

async function createTodo(app: FastifyInstance, n: number, priorityVariant = false) {
  const response = await callJson(
    app,
    'POST',
    '/todos',
    priorityVariant ? { title: `Todo ${n}`, priority: 2 } : { title: `Todo ${n}` },
  )
  assert.equal(response.statusCode, 201, response.body)
  return String(response.headers.location)
}

for (const config of [{}, priority]) {
  conditionalSuite(`/todos/<id>${config === priority ? ' (priority variant)' : ''}`, {
    app: () => testApp({ config }),
    create: (app, n) => createTodo(app, n, config === priority),
    missing: '/todos/999',
    writes: [
      {
        method: 'PUT',
        payload: (n) => ({ title: `Ganti ${n}`, done: n % 2 === 0 }),
        status: 200,
      },
      { method: 'DELETE', status: 204, removes: true },
    ],
    preconditionFailed: versiTidakCocok,
  })
}

describe('surface C: conditional requests, the rest', () => {
  test('POST /todos (basic) sends the ETag its GET sends; the priority 201 has none', async () => {
    const basic = await testApp()
    const created = await callJson(basic, 'POST', '/todos', { title: 'Beli susu' })
    assert.match(String(created.headers.etag), STRONG_TAG)
    const read = await call(basic, { url: String(created.headers.location) })
    assert.equal(read.headers.etag, created.headers.etag)
    // The priority 201 is `{ id, title, priority }`, not the todo GET sends: no tag of it.
    const app = await testApp({ config: priority })
    const other = await callJson(app, 'POST', '/todos', { title: 'Rapat', priority: 2 })
    assert.equal(other.statusCode, 201)
    assert.equal(other.headers.etag, undefined)
  })

  test('PUT with a stale If-Match: the id (400), the body (400), title (400), 404 come first', async () => {
    const app = await testApp()
    await createTodo(app, 1)
    const stale = { 'if-match': OTHER_TAG }
    const put = (url: string, payload: string) =>
      call(app, { method: 'PUT', url, headers: { ...stale, ...json }, payload })
    const valid = JSON.stringify({ title: 'Benar', done: true })
    assert.deepEqual((await put('/todos/abc', valid)).json(), { error: 'id harus angka' })
    assert.deepEqual((await put('/todos/1', '{"title":')).json(), {
      error: 'body bukan JSON yang valid',
    })
    assert.deepEqual((await put('/todos/1', '{"title":" "}')).json(), {
      error: 'title wajib diisi',
    })
    assert.deepEqual((await put('/todos/999', valid)).json(), { error: 'tugas tidak ditemukan' })
    versiTidakCocok(await put('/todos/1', valid))
    const del = await call(app, { method: 'DELETE', url: '/todos/x', headers: stale })
    assert.deepEqual(del.json(), { error: 'id harus angka' })
  })
})
