// Idempotent creates on surface A (decisions.md 8): POST /tugas and POST /tugas/<id>/komentar
// with an `Idempotency-Key`, E1 refusals (422 VALIDASI_GAGAL, 409 SEDANG_DIPROSES).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { call, json, testApp } from '../../support/helpers.js'
import {
  assertReplay,
  describeIdempotentRoute,
  E1_REFUSALS,
} from '../../support/idempotency-kit.js'

const refusals = E1_REFUSALS

const countOf = async (app: FastifyInstance, url: string) =>
  ((await call(app, { url })).json() as unknown[]).length

describeIdempotentRoute({
  title: 'POST /tugas',
  url: '/tugas',
  body: (n) => `{"title":"Belajar Fastify ${n}"}`,
  headers: json,
  status: 201,
  count: (app) => countOf(app, '/tugas'),
  refusals,
  writes: (stores) => ({ target: stores.tugas, method: 'create' }),
})

describeIdempotentRoute({
  title: 'POST /v1/tugas/<id>/komentar',
  url: '/v1/tugas/1/komentar',
  body: (n) => `{"isi":"Sudah bab ${n}"}`,
  headers: json,
  status: 201,
  count: (app) => countOf(app, '/tugas/1/komentar'),
  refusals,
  writes: (stores) => ({ target: stores.tugas, method: 'addComment' }),
  prepare: (stores) => stores.tugas.createMany([{ title: 'Belajar REST', status: 'belum' }]),
})

describe('Idempotency-Key on surface A', () => {
  const post = (app: FastifyInstance, url: string, payload: string, key?: string) =>
    call(app, {
      method: 'POST',
      url,
      headers: { ...json, ...(key !== undefined && { 'idempotency-key': key }) },
      payload,
    })

  test('the replay of a comment does not look again: the task may be gone since', async () => {
    const app = await testApp()
    const first = await post(app, '/tugas/5/komentar', '{"isi":"Bagus"}', 'k')
    assert.equal(first.statusCode, 201)
    assert.equal((await call(app, { method: 'DELETE', url: '/tugas/5' })).statusCode, 204)
    const again = await post(app, '/tugas/5/komentar', '{"isi":"Bagus"}', 'k')
    assertReplay(
      { status: again.statusCode, headers: again.headers as never, body: again.body },
      { status: first.statusCode, headers: first.headers as never, body: first.body },
      'after the delete',
    )
    // Without the key the same request finds no task.
    assert.equal((await post(app, '/tugas/5/komentar', '{"isi":"Bagus"}')).statusCode, 404)
  })

  test('a 4xx answer is kept too: the retry of a refused body is refused the same way', async () => {
    const app = await testApp()
    const first = await post(app, '/tugas/99/komentar', '{"isi":"Bagus"}', 'k')
    assert.equal(first.statusCode, 404)
    const again = await post(app, '/tugas/99/komentar', '{"isi":"Bagus"}', 'k')
    assert.equal(again.statusCode, 404)
    assert.equal(again.body, first.body)
    const invalid = await post(app, '/tugas', '{"title":"ab"}', 'k2')
    assert.equal(invalid.statusCode, 422)
    assert.equal((await post(app, '/tugas', '{"title":"ab"}', 'k2')).body, invalid.body)
  })

  test('a key is per request target: the same key on /v1/tugas, or with a query, is another request', async () => {
    const app = await testApp()
    const body = '{"title":"Satu kunci"}'
    const answers = []
    for (const url of ['/tugas', '/v1/tugas', '/tugas?x=1', '/tugas']) {
      answers.push((await post(app, url, body, 'k')).json())
    }
    assert.deepEqual(
      answers.map((task) => (task as { id: number }).id),
      [6, 7, 8, 6],
    )
  })

  test('the body reader answers before the key is looked at; those answers use no key', async () => {
    const app = await testApp()
    const malformed = await post(app, '/tugas', '{"title":', '')
    assert.equal(malformed.statusCode, 400)
    assert.equal(malformed.json().error.kode, 'JSON_TIDAK_VALID')
    const wrongType = await call(app, {
      method: 'POST',
      url: '/tugas',
      headers: { 'content-type': 'text/plain', 'idempotency-key': 'k' },
      payload: '{"title":"Belajar"}',
    })
    assert.equal(wrongType.statusCode, 415)
    // The key was not used: a valid request with it is processed.
    assert.equal((await post(app, '/tugas', '{"title":"Belajar"}', 'k')).statusCode, 201)
  })

  test('the key is checked before the rules: a bad key and a bad body give the key refusal', async () => {
    const app = await testApp()
    const response = await post(app, '/tugas', '{"title":1}', 'a b')
    assert.equal(response.statusCode, 422)
    assert.equal(response.json().error.pesan, 'Idempotency-Key is invalid')
  })
})
