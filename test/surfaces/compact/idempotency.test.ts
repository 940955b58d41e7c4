// Idempotent creates on surface B (decisions.md 8): POST /api/tugas with an `Idempotency-Key`,
// E3 refusals, exact texts.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { call, json, testApp } from '../../support/helpers.js'
import { describeIdempotentRoute, E3_REFUSALS } from '../../support/idempotency-kit.js'

describeIdempotentRoute({
  title: 'POST /api/tugas',
  url: '/api/tugas',
  body: (n) => `{"judul":"Belajar Rust ${n}"}`,
  headers: json,
  status: 201,
  count: async (app: FastifyInstance) => (await call(app, { url: '/api/tugas' })).json().length,
  refusals: E3_REFUSALS,
  writes: (stores) => ({ target: stores.compact, method: 'create' }),
})

describe('Idempotency-Key on surface B', () => {
  const post = (app: FastifyInstance, payload: string, key: string) =>
    call(app, {
      method: 'POST',
      url: '/api/tugas',
      headers: { ...json, 'idempotency-key': key },
      payload,
    })

  test("the body reader's plain-text 422 is an answer like any other: kept and replayed", async () => {
    const app = await testApp()
    const first = await post(app, '{"judul":5}', 'k')
    assert.equal(first.statusCode, 422)
    assert.match(String(first.headers['content-type']), /^text\/plain/)
    const again = await post(app, '{"judul":5}', 'k')
    assert.equal(again.statusCode, 422)
    assert.equal(again.headers['content-type'], first.headers['content-type'])
    assert.equal(again.body, first.body)
  })

  test('without a Content-Type the 415 comes first and uses no key', async () => {
    const app = await testApp()
    const response = await call(app, {
      method: 'POST',
      url: '/api/tugas',
      headers: { 'idempotency-key': '' },
    })
    assert.equal(response.statusCode, 415)
  })
})
