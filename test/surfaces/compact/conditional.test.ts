// Surface B's conditional requests (decisions.md 8): the ETag of GET /api/tugas/<id> and of the
// answers that carry a task, 304, and If-Match on PUT and DELETE: 412 `{ "error": "versi tidak
// cocok" }` after the id, the body reader, `judul` and existence.
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

async function createTask(app: FastifyInstance, n: number): Promise<string> {
  const response = await callJson(app, 'POST', '/api/tugas', { judul: `Tugas ${n}` })
  assert.equal(response.statusCode, 201)
  return String(response.headers.location)
}

conditionalSuite('/api/tugas/<id>', {
  app: () => testApp(),
  create: createTask,
  missing: '/api/tugas/999',
  writes: [
    {
      method: 'PUT',
      payload: (n) => ({ judul: `Ganti ${n}`, selesai: n % 2 === 0 }),
      status: 200,
    },
    { method: 'DELETE', status: 204, removes: true },
  ],
  preconditionFailed: versiTidakCocok,
})

describe('surface B: conditional requests, the rest', () => {
  test('POST /api/tugas sends the ETag its GET sends', async () => {
    const app = await testApp()
    const created = await callJson(app, 'POST', '/api/tugas', { judul: 'Baru' })
    assert.match(String(created.headers.etag), STRONG_TAG)
    const read = await call(app, { url: String(created.headers.location) })
    assert.equal(read.headers.etag, created.headers.etag)
  })

  test('PUT with a stale If-Match: the id (400), the body reader, judul (400), 404 come first', async () => {
    const app = await testApp()
    await createTask(app, 1)
    const stale = { 'if-match': OTHER_TAG }
    const put = (url: string, headers: Record<string, string>, payload?: string) =>
      call(app, { method: 'PUT', url, headers: { ...stale, ...headers }, payload })
    const valid = JSON.stringify({ judul: 'Benar', selesai: true })
    const id = await put('/api/tugas/abc', json, valid)
    assert.equal(id.statusCode, 400)
    assert.deepEqual(id.json(), { error: 'Id "abc" bukan angka yang valid' })
    assert.equal((await put('/api/tugas/1', {}, valid)).statusCode, 415)
    assert.equal((await put('/api/tugas/1', json, '{"judul":')).statusCode, 400)
    assert.equal((await put('/api/tugas/1', json, '{"judul":"x"}')).statusCode, 422)
    const judul = await put('/api/tugas/1', json, JSON.stringify({ judul: ' ', selesai: true }))
    assert.deepEqual(judul.json(), { error: 'judul tidak boleh kosong' })
    const missing = await put('/api/tugas/999', json, valid)
    assert.deepEqual(missing.json(), { error: 'Tugas dengan id 999 tidak ditemukan' })
    versiTidakCocok(await put('/api/tugas/1', json, valid))
    const del = await call(app, { method: 'DELETE', url: '/api/tugas/x', headers: stale })
    assert.equal(del.statusCode, 400)
  })
})
