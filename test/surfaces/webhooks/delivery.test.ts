// Deliveries to a real receiver on loopback (docs/webhooks.md#delivery), on the store of the
// pass: signed as Standard Webhooks says (checked here with node:crypto alone), retried with
// growing gaps, timed out, never redirected, filtered by type, and never sent to a private
// address while WEBHOOK_ALLOW_PRIVATE is off.
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { call, createTask, storesOf, testApp } from '../../support/helpers.js'
import {
  type Attempt,
  answer,
  attempts,
  Receiver,
  recorded,
  type Subscription,
  subscribe as subscribeTo,
} from '../../support/receiver.js'
import { ADMIN, bearer } from '../../support/supporting.js'

const admin = { ...bearer(ADMIN), 'content-type': 'application/json' }
const BASE_MS = 200
// Long enough that a loaded machine's stall never times out a receiver that answers at once
// (400 ms did, in a full run: attempt 1 of a 500 recorded as a timeout).
const TIMEOUT_MS = 1000
const MAX_ATTEMPTS = 3

let receiver: Receiver
before(async () => {
  receiver = await Receiver.start()
})
after(() => receiver.close())

const subscribe = (app: FastifyInstance, path: string, types: string[]) =>
  subscribeTo(app, receiver.url(path), types)

const unsubscribe = (app: FastifyInstance, { id }: Subscription) =>
  call(app, { method: 'DELETE', url: `/webhooks/${id}`, headers: admin })

/** What each attempt came to, without its time and duration. */
const outcomes = (kept: Attempt[]) =>
  kept.map(({ attempt, status_code, error, result }) => ({ attempt, status_code, error, result }))

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('deliveries (WEBHOOK_ALLOW_PRIVATE=true, the only way to reach loopback)', async () => {
  const app = await testApp({
    config: {
      webhookAllowPrivate: true,
      webhookRetryBaseMs: BASE_MS,
      webhookTimeoutMs: TIMEOUT_MS,
      webhookMaxAttempts: MAX_ATTEMPTS,
    },
  })

  test('the event as the body, signed: the signature checks out with the secret alone', async () => {
    const subscription = await subscribe(app, '/signed', ['tugas.created'])
    const sentAt = Math.floor(Date.now() / 1000)
    const task = await createTask(app, 'Ditandatangani')
    const [delivery] = await receiver.until('/signed', 1)
    assert.ok(delivery)
    const { headers, body } = delivery
    assert.equal(headers['content-type'], 'application/cloudevents+json')
    const event = JSON.parse(body)
    assert.equal(event.type, 'tugas.created')
    assert.equal(event.specversion, '1.0')
    assert.deepEqual(event.data, { id: task.id, title: 'Ditandatangani', status: 'belum' })
    assert.equal(headers['webhook-id'], event.id)
    const timestamp = Number(headers['webhook-timestamp'])
    assert.ok(Math.abs(timestamp - sentAt) <= 5, `timestamp ${timestamp}, sent at ${sentAt}`)
    const key = Buffer.from(subscription.secret.slice('whsec_'.length), 'base64')
    const expected = createHmac('sha256', key)
      .update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`)
      .digest('base64')
    assert.equal(headers['webhook-signature'], `v1,${expected}`)
    // The event is the one the change feed has.
    const feed = await storesOf(app).events.after(Number(event.id) - 1, 1)
    assert.equal(feed[0]?.json, body)

    const [kept] = await recorded(app, subscription, 1)
    assert.deepEqual(
      { ...kept, duration_ms: 0 },
      {
        event_id: Number(event.id),
        attempt: 1,
        status_code: 204,
        error: null,
        time: (kept as { time: string } & Attempt).time,
        duration_ms: 0,
        result: 'delivered',
      },
    )
    await unsubscribe(app, subscription)
  })

  test('failing twice then succeeding: exactly three attempts, the gaps at least doubling', async () => {
    receiver.answers('/flaky', answer.status(500), answer.status(503))
    const subscription = await subscribe(app, '/flaky', ['tugas.created'])
    await createTask(app, 'Gagal dua kali')
    const received = await receiver.until('/flaky', 3)
    const kept = await recorded(app, subscription, 3)
    // Nothing more comes: it was delivered.
    await settle(BASE_MS * 8)
    assert.equal(receiver.at('/flaky').length, 3)
    assert.equal(new Set(received.map((r) => r.headers['webhook-id'])).size, 1)
    const [first = 0, second = 0, third = 0] = received.map((request) => request.at)
    const gaps = [second - first, third - second] as const
    assert.ok(gaps[0] >= BASE_MS * 0.9, `first gap ${gaps[0]} ms, base ${BASE_MS}`)
    assert.ok(gaps[1] >= 2 * BASE_MS * 0.9, `second gap ${gaps[1]} ms, twice the base`)
    assert.deepEqual(outcomes(kept), [
      { attempt: 3, status_code: 204, error: null, result: 'delivered' },
      { attempt: 2, status_code: 503, error: null, result: 'retrying' },
      { attempt: 1, status_code: 500, error: null, result: 'retrying' },
    ])
    // Counted in /metrics by outcome, with the attempts in flight.
    const metrics = (await call(app, { method: 'GET', url: '/metrics' })).body
    const count = (outcome: string) =>
      Number(
        new RegExp(`^tugas_webhook_deliveries_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(
          metrics,
        )?.[1],
      )
    assert.ok(count('retrying') >= 2, metrics)
    assert.ok(count('delivered') >= 1, metrics)
    assert.match(metrics, /^tugas_webhook_attempts_in_flight \d+$/m)
    await unsubscribe(app, subscription)
  })

  test('a receiver that never answers is timed out, and the last attempt is marked failed', async () => {
    receiver.answers('/silent', answer.silent(), answer.silent(), answer.silent())
    const subscription = await subscribe(app, '/silent', ['tugas.created'])
    await createTask(app, 'Tidak dijawab')
    const kept = await recorded(app, subscription, MAX_ATTEMPTS)
    assert.deepEqual(outcomes(kept), [
      { attempt: 3, status_code: null, error: 'timeout', result: 'failed' },
      { attempt: 2, status_code: null, error: 'timeout', result: 'retrying' },
      { attempt: 1, status_code: null, error: 'timeout', result: 'retrying' },
    ])
    for (const { duration_ms } of kept) assert.ok(duration_ms >= TIMEOUT_MS * 0.9, `${duration_ms}`)
    await settle(BASE_MS * 8)
    assert.equal(receiver.at('/silent').length, MAX_ATTEMPTS)
    await unsubscribe(app, subscription)
  })

  test('a redirect is not followed: it is a failed attempt, retried', async () => {
    receiver.answers('/moved', answer.redirect('/moved-to'), answer.status(200))
    const subscription = await subscribe(app, '/moved', ['tugas.created'])
    await createTask(app, 'Dialihkan')
    const kept = await recorded(app, subscription, 2)
    assert.deepEqual(
      kept.map(({ status_code, result }) => ({ status_code, result })),
      [
        { status_code: 200, result: 'delivered' },
        { status_code: 302, result: 'retrying' },
      ],
    )
    assert.equal(receiver.at('/moved-to').length, 0)
    await unsubscribe(app, subscription)
  })

  test('only the types subscribed to are delivered', async () => {
    const subscription = await subscribe(app, '/todos-only', ['todos.*'])
    await createTask(app, 'Bukan todo')
    const todo = await call(app, {
      method: 'POST',
      url: '/todos',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ title: 'Sebuah todo' }),
    })
    assert.equal(todo.statusCode, 201, todo.body)
    const [delivery] = await receiver.until('/todos-only', 1)
    assert.equal(JSON.parse(delivery?.body ?? '{}').type, 'todos.created')
    await settle(300)
    assert.equal(receiver.at('/todos-only').length, 1)
    await unsubscribe(app, subscription)
  })

  test('a receiver that never answers holds up no other subscriber', async () => {
    receiver.answers('/stuck', answer.silent())
    const stuck = await subscribe(app, '/stuck', ['tugas.created'])
    const fast = await subscribe(app, '/fast', ['tugas.created'])
    await createTask(app, 'Dua penerima')
    const started = performance.now()
    await receiver.until('/fast', 1)
    // Delivered while the other's attempt still waits for its answer.
    assert.ok(performance.now() - started < TIMEOUT_MS, `${performance.now() - started} ms`)
    assert.equal((await attempts(app, stuck)).length, 0)
    await unsubscribe(app, stuck)
    await unsubscribe(app, fast)
  })

  test('a deleted subscription gets no more deliveries', async () => {
    receiver.answers('/gone', answer.status(500))
    const subscription = await subscribe(app, '/gone', ['tugas.created'])
    await createTask(app, 'Sebelum dihapus')
    await receiver.until('/gone', 1)
    await unsubscribe(app, subscription)
    await settle(BASE_MS * 4)
    assert.equal(receiver.at('/gone').length, 1)
  })
})

describe('private addresses at delivery (WEBHOOK_ALLOW_PRIVATE off)', async () => {
  const app = await testApp({ config: { webhookRetryBaseMs: BASE_MS, webhookMaxAttempts: 2 } })

  test('a subscription that reaches loopback is refused at every attempt, never connected', async () => {
    // Through the store: the API would refuse it at creation.
    const { webhooks } = storesOf(app)
    const byName = await webhooks.create({
      url: receiver.url('/by-name', 'localhost'),
      types: ['tugas.*'],
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    })
    const byAddress = await webhooks.create({
      url: receiver.url('/by-address'),
      types: ['tugas.*'],
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    })
    await createTask(app, 'Ke jaringan pribadi')
    for (const subscription of [byName, byAddress]) {
      const kept = await recorded(app, { id: subscription.id }, 2)
      assert.deepEqual(
        outcomes(kept),
        [2, 1].map((attempt) => ({
          attempt,
          status_code: null,
          error: 'refused: the host is or resolves to a private address',
          result: attempt === 2 ? 'failed' : 'retrying',
        })),
      )
    }
    assert.equal(receiver.at('/by-name').length + receiver.at('/by-address').length, 0)
  })
})
