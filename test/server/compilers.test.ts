import assert from 'node:assert/strict'
import { test } from 'node:test'
import Fastify from 'fastify'
import { Type } from 'typebox'
import { sharedCompilers } from '../../src/server/compilers.js'

const ITEM = Type.Object({ id: Type.Integer(), title: Type.String() })
const NAMED = Type.Object({ id: Type.Integer(), name: Type.String() })

/** An app of one route answering `body` under `schema`, built with the shared compilers. */
async function appAnswering(schema: object, body: unknown) {
  const app = Fastify({ schemaController: sharedCompilers })
  app.post('/', { schema: { body: schema, response: { 200: schema } } }, async () => body)
  await app.ready()
  return app
}

test('apps built one after another share what the compilers made for the same schema', async () => {
  const body = { id: 1, title: 'a', extra: 'dropped' }
  const [one, two] = [await appAnswering(ITEM, body), await appAnswering(ITEM, body)]
  for (const app of [one, two]) {
    const answer = await app.inject({ method: 'POST', url: '/', payload: { id: 1, title: 'a' } })
    assert.equal(answer.body, '{"id":1,"title":"a"}')
    const refused = await app.inject({ method: 'POST', url: '/', payload: { id: 'x' } })
    assert.equal(refused.statusCode, 400)
    await app.close()
  }
})

test('a different schema gets a serializer and a validator of its own', async () => {
  const items = await appAnswering(ITEM, { id: 1, title: 'a', name: 'n' })
  const names = await appAnswering(NAMED, { id: 1, title: 'a', name: 'n' })
  const item = await items.inject({ method: 'POST', url: '/', payload: { id: 1, title: 'a' } })
  const named = await names.inject({ method: 'POST', url: '/', payload: { id: 1, name: 'n' } })
  assert.equal(item.body, '{"id":1,"title":"a"}')
  assert.equal(named.body, '{"id":1,"name":"n"}')
  const wrong = await names.inject({ method: 'POST', url: '/', payload: { id: 1, title: 'a' } })
  assert.equal(wrong.statusCode, 400)
  await Promise.all([items.close(), names.close()])
})
