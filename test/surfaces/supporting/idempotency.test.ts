// Idempotent creates on surface D (decisions.md 8): POST /users (both variants), POST /pesanan
// and POST /pesanan/<id>/bayar with an `Idempotency-Key`, E2 refusals (400 VALIDATION_ERROR with
// details.Idempotency-Key, 422 IDEMPOTENCY_KEY_REUSED, 409 IDEMPOTENCY_KEY_IN_USE).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { createMemoryStores } from '../../../src/stores.js'
import { call, callJson, json, testApp } from '../../support/helpers.js'
import {
  assertReplay,
  BAD_KEYS,
  burst,
  describeIdempotentRoute,
  e2Refusals,
  failOnce,
  hold,
  type Seen,
} from '../../support/idempotency-kit.js'

const refusals = e2Refusals('details')

const userBody = (n: number) =>
  `{"name":"Budi ${n}","email":"budi${n}@contoh.id","password":"rahasia-sekali"}`
const userCount = async (app: FastifyInstance) =>
  (await call(app, { url: '/users' })).json().meta.total as number

for (const usersVariant of ['enveloped', 'flat'] as const) {
  describeIdempotentRoute({
    title: `POST /users (USERS_VARIANT=${usersVariant})`,
    config: { usersVariant },
    url: '/users',
    body: userBody,
    headers: json,
    status: 201,
    count: userCount,
    refusals,
    writes: (stores) => ({ target: stores.users, method: 'create' }),
  })
}

/** How many orders exist: ids are given from 1 and never skipped here. */
async function orderCount(app: FastifyInstance): Promise<number> {
  let n = 0
  while ((await call(app, { url: `/pesanan/${n + 1}` })).statusCode === 200) n++
  return n
}

describeIdempotentRoute({
  title: 'POST /pesanan',
  url: '/pesanan',
  body: (n) => `{"email":"a@contoh.id","jumlah":${n + 1}}`,
  headers: json,
  status: 201,
  count: orderCount,
  refusals,
  writes: (stores) => ({ target: stores.orders, method: 'create' }),
})

describe('Idempotency-Key on POST /pesanan/<id>/bayar', () => {
  const pay = (app: FastifyInstance, key?: string, id = 1) =>
    call(app, {
      method: 'POST',
      url: `/pesanan/${id}/bayar`,
      ...(key !== undefined && { headers: { 'idempotency-key': key } }),
    })
  const seen = (response: Awaited<ReturnType<typeof pay>>): Seen => ({
    status: response.statusCode,
    headers: response.headers as Seen['headers'],
    body: response.body,
  })
  const order = (app: FastifyInstance) =>
    callJson(app, 'POST', '/pesanan', '{"email":"a@contoh.id","jumlah":2}')
  const refused = (response: Awaited<ReturnType<typeof pay>>, expected: typeof refusals.inUse) => {
    assert.equal(response.statusCode, expected.status, response.body)
    assert.deepEqual(response.json(), expected.body)
  }

  test('a retry of a payment with its key gets the first 200, not 409 SUDAH_DIBAYAR', async () => {
    const app = await testApp()
    await order(app)
    const first = seen(await pay(app, 'bayar-1'))
    assert.equal(first.status, 200)
    for (let i = 0; i < 2; i++) assertReplay(seen(await pay(app, 'bayar-1')), first, `retry ${i}`)
    // Without the key, or with another, paying again is what it always was.
    assert.equal((await pay(app)).statusCode, 409)
    assert.equal((await pay(app, 'bayar-2')).json().error.code, 'SUDAH_DIBAYAR')
    // The key is per order: on another order it is another request.
    await order(app)
    assert.equal((await pay(app, 'bayar-1', 2)).statusCode, 200)
  })

  test('a refused payment is kept too: 404 for a missing order is replayed', async () => {
    const app = await testApp()
    const first = seen(await pay(app, 'k', 1))
    assert.equal(first.status, 404)
    await order(app)
    assertReplay(seen(await pay(app, 'k', 1)), first, 'the order exists since')
  })

  test('a bad key is refused before the id is read, and does nothing', async () => {
    const app = await testApp()
    await order(app)
    for (const key of BAD_KEYS) {
      refused(await pay(app, key), refusals.invalid)
      refused(await pay(app, key, 'abc' as never), refusals.invalid)
    }
    assert.equal((await call(app, { url: '/pesanan/1' })).json().data.status, 'MENUNGGU')
  })

  test('the payment takes no body: any body sent with the key is the same request', async () => {
    const app = await testApp()
    await order(app)
    const first = seen(await pay(app, 'k'))
    const withBody = await call(app, {
      method: 'POST',
      url: '/pesanan/1/bayar',
      headers: { ...json, 'idempotency-key': 'k' },
      payload: '{"apa":"saja"}',
    })
    assertReplay(seen(withBody), first, 'with a body')
  })

  test('while the first payment is in flight the key is 409 IDEMPOTENCY_KEY_IN_USE; a 5xx forgets it', async () => {
    const stores = createMemoryStores()
    await stores.orders.create({ email: 'a@contoh.id', jumlah: 2 })
    const app = await testApp({ stores })
    const held = hold(stores.orders, 'pay')
    const firstAnswer = pay(app, 'k')
    await held.started
    refused(await pay(app, 'k'), refusals.inUse)
    held.release()
    const first = seen(await firstAnswer)
    assert.equal(first.status, 200)
    assertReplay(seen(await pay(app, 'k')), first, 'after the first')

    await stores.orders.create({ email: 'b@contoh.id', jumlah: 3 })
    failOnce(stores.orders, 'pay')
    assert.equal((await pay(app, 'k2', 2)).statusCode, 503)
    assert.equal((await pay(app, 'k2', 2)).statusCode, 200)
  })

  test('20 concurrent payments with one key: one payment; each answer is the first 200 or 409 IN_USE', async () => {
    const app = await testApp()
    await order(app)
    const answers = await burst(app, 20, {
      url: '/pesanan/1/bayar',
      headers: { 'idempotency-key': 'serbuan' },
    })
    const paid = answers.filter((answer) => answer.status === 200)
    assert.ok(paid.length >= 1, answers.map((answer) => answer.status).join(','))
    for (const answer of answers) {
      if (answer.status === 409) assert.deepEqual(JSON.parse(answer.body), refusals.inUse.body)
      else assertReplay(answer, paid[0] as Seen, 'an answer of the burst')
    }
    assertReplay(seen(await pay(app, 'serbuan')), paid[0] as Seen, 'after the burst')
  })
})

describe('Idempotency-Key on surface D', () => {
  test('the Content-Type is checked first (415) and uses no key', async () => {
    const app = await testApp()
    const wrong = await call(app, {
      method: 'POST',
      url: '/users',
      headers: { 'content-type': 'text/plain', 'idempotency-key': 'k' },
      payload: userBody(1),
    })
    assert.equal(wrong.statusCode, 415)
    const created = await call(app, {
      method: 'POST',
      url: '/users',
      headers: { ...json, 'idempotency-key': 'k' },
      payload: userBody(1),
    })
    assert.equal(created.statusCode, 201)
  })

  test('a retry of a user with its key gets the 201, not 409 EMAIL_TELAH_DIPAKAI', async () => {
    const app = await testApp()
    const send = (key?: string) =>
      call(app, {
        method: 'POST',
        url: '/users',
        headers: { ...json, ...(key !== undefined && { 'idempotency-key': key }) },
        payload: userBody(7),
      })
    const first = await send('k')
    assert.equal(first.statusCode, 201)
    assert.equal((await send('k')).body, first.body)
    assert.equal((await send()).json().error.code, 'EMAIL_TELAH_DIPAKAI')
  })
})
