// POST /webhooks/<id>/replay (docs/webhooks.md#replay), on the store of the pass: a receiver
// that was down gets every event it missed once replayed, each as a new delivery signed as
// any; one event replays alone; events no longer kept are skipped; the order of the checks
// (401, 403, the id, the Content-Type, the body, existence) and every 400 and the 404. Every
// answer is checked against /openapi.json (call).
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { replayViolations } from '../../../src/surfaces/webhooks/rules.js'
import { call, createTask, storesOf, testApp } from '../../support/helpers.js'
import { answer, type Received, Receiver, recorded, subscribe } from '../../support/receiver.js'
import { ADMIN, assertE2, BUDI, bearer } from '../../support/supporting.js'

const admin = { ...bearer(ADMIN), 'content-type': 'application/json' }

let receiver: Receiver
before(async () => {
  receiver = await Receiver.start()
})
after(() => receiver.close())

const replay = (
  app: FastifyInstance,
  id: number | string,
  body: unknown,
  headers: Record<string, string> = admin,
) =>
  call(app, {
    method: 'POST',
    url: `/webhooks/${id}/replay`,
    headers,
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  })

/** A replay that must be taken: 202, and how many it queued. */
async function replayed(app: FastifyInstance, id: number, body: unknown): Promise<number> {
  const response = await replay(app, id, body)
  assert.equal(response.statusCode, 202, response.body)
  const { data } = response.json()
  assert.deepEqual(Object.keys(data), ['queued'])
  return data.queued
}

const eventIds = (received: Received[]) => received.map(({ headers }) => headers['webhook-id'])

/** True when `delivery` is signed with `secret` as Standard Webhooks says. */
function signed({ headers, body }: Received, secret: string): boolean {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64')
  const expected = createHmac('sha256', key)
    .update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`)
    .digest('base64')
  return headers['webhook-signature'] === `v1,${expected}`
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('replay (WEBHOOK_ALLOW_PRIVATE=true, the only way to reach loopback)', async () => {
  // One attempt per delivery: a receiver that is down loses the events for good, until a replay.
  const app = await testApp({
    config: { webhookAllowPrivate: true, webhookMaxAttempts: 1, webhookTimeoutMs: 1000 },
  })

  test('a receiver down for a burst of writes gets every event it missed once replayed', async () => {
    const burst = 12
    receiver.answers('/down', ...Array.from({ length: burst }, () => answer.status(503)))
    const subscription = await subscribe(app, receiver.url('/down'), ['tugas.created'])
    for (let i = 0; i < burst; i++) await createTask(app, `Terlewat ${i}`)
    const missed = [...(await receiver.until('/down', burst))]
    // Each delivery failed for good: nothing more comes by itself.
    await recorded(app, subscription, burst)
    await settle(300)
    assert.equal(receiver.at('/down').length, burst)
    const ids = eventIds(missed)
    const first = Math.min(...ids.map(Number))

    assert.equal(await replayed(app, subscription.id, { after: String(first - 1) }), burst)
    const again = (await receiver.until('/down', 2 * burst)).slice(burst)
    assert.deepEqual(eventIds(again).sort(), [...ids].sort())
    // The same events, as the feed has them, in their CloudEvents form, signed with the secret.
    const bodyOf = new Map(missed.map(({ headers, body }) => [headers['webhook-id'], body]))
    for (const delivery of again) {
      assert.equal(delivery.body, bodyOf.get(delivery.headers['webhook-id']))
      assert.equal(delivery.headers['content-type'], 'application/cloudevents+json')
      assert.ok(signed(delivery, subscription.secret))
    }
    // Each a new delivery: its attempt 1, delivered this time.
    const kept = await recorded(app, subscription, 2 * burst)
    assert.equal(kept.length, 2 * burst)
    const outcomes = kept.map(({ attempt, result, status_code }) => [attempt, result, status_code])
    assert.deepEqual(outcomes.slice(0, burst), Array(burst).fill([1, 'delivered', 204]))
    assert.deepEqual(outcomes.slice(burst), Array(burst).fill([1, 'failed', 503]))
  })

  test('one event replayed alone: after its id - 1, until its id', async () => {
    const subscription = await subscribe(app, receiver.url('/one'), ['tugas.*'])
    for (const title of ['Pertama', 'Kedua', 'Ketiga']) await createTask(app, title)
    const delivered = await receiver.until('/one', 3)
    const [, middle] = [...delivered].sort(
      (a, b) => Number(a.headers['webhook-id']) - Number(b.headers['webhook-id']),
    )
    assert.ok(middle)
    const id = Number(middle.headers['webhook-id'])
    assert.equal(
      await replayed(app, subscription.id, { after: String(id - 1), until: String(id) }),
      1,
    )
    const [again] = (await receiver.until('/one', 4)).slice(3)
    assert.equal(again?.headers['webhook-id'], String(id))
    assert.equal(again?.body, middle.body)
    await settle(300)
    assert.equal(receiver.at('/one').length, 4)
    // An empty range, and a range of types the subscription does not select, queue nothing.
    assert.equal(await replayed(app, subscription.id, { after: String(id), until: String(id) }), 0)
    const todos = await subscribe(app, receiver.url('/todos'), ['todos.*'])
    assert.equal(await replayed(app, todos.id, { after: '0' }), 0)
  })

  test('401 without a credential or with an unknown one, before anything else', async () => {
    for (const headers of [{}, bearer('nobody')]) {
      assertE2(await replay(app, 'abc', 'not json', headers), 401, 'UNAUTHENTICATED')
      assertE2(await replay(app, 1, { after: '0' }, headers), 401, 'UNAUTHENTICATED')
    }
  })

  test('403 for a user, before the id, the body or existence', async () => {
    for (const headers of [
      { ...bearer(BUDI), 'content-type': 'text/plain' },
      { ...bearer(BUDI), 'content-type': 'application/json' },
    ]) {
      assertE2(await replay(app, 'abc', '{', headers), 403, 'FORBIDDEN')
      assertE2(await replay(app, 99999, { after: '0' }, headers), 403, 'FORBIDDEN')
    }
  })

  test('then the id (400 INVALID_ID), before the Content-Type and the body', async () => {
    assertE2(await replay(app, 'abc', { after: '0' }), 400, 'INVALID_ID')
    assertE2(await replay(app, '1.5', '{'), 400, 'INVALID_ID')
    const plain = { ...bearer(ADMIN), 'content-type': 'text/plain' }
    assertE2(await replay(app, 'x', 'after=0', plain), 400, 'INVALID_ID')
  })

  test('then the Content-Type (415) and the JSON (400 INVALID_JSON), before existence', async () => {
    const plain = { ...bearer(ADMIN), 'content-type': 'text/plain' }
    assertE2(await replay(app, 99999, 'after=0', plain), 415, 'UNSUPPORTED_MEDIA_TYPE')
    assertE2(await replay(app, 99999, '{"after":'), 400, 'INVALID_JSON')
  })

  test('then the fields: every violation at once (400 VALIDATION_ERROR), before existence', async () => {
    const { id } = await subscribe(app, receiver.url('/checked'), ['tugas.*'])
    const { after: afterRule, until: untilRule, belowAfter } = replayViolations
    const cases: [unknown, Record<string, string>][] = [
      [{}, { after: afterRule }],
      [null, { after: afterRule }],
      [[], { after: afterRule }],
      ['"0"', { after: afterRule }],
      [{ after: 0 }, { after: afterRule }],
      [{ after: null }, { after: afterRule }],
      [{ after: '' }, { after: afterRule }],
      [{ after: '-1' }, { after: afterRule }],
      [{ after: '1.5' }, { after: afterRule }],
      [{ after: ' 1' }, { after: afterRule }],
      [{ after: '1\n' }, { after: afterRule }],
      [{ after: '1e3' }, { after: afterRule }],
      [{ after: '\u0661' }, { after: afterRule }],
      [{ after: '1', until: 3 }, { until: untilRule }],
      [{ after: '1', until: null }, { until: untilRule }],
      [{ after: '1', until: 'x' }, { until: untilRule }],
      [{ until: '3' }, { after: afterRule }],
      [
        { after: 'x', until: 'y' },
        { after: afterRule, until: untilRule },
      ],
      [{ after: '5', until: '4' }, { until: belowAfter }],
      // Compared as numbers, not as text; at any length.
      [{ after: '10', until: '9' }, { until: belowAfter }],
      [{ after: '0010', until: '9' }, { until: belowAfter }],
      [{ after: '99999999999999999999', until: '99999999999999999998' }, { until: belowAfter }],
    ]
    for (const [body, details] of cases) {
      const sent = typeof body === 'string' ? body : JSON.stringify(body)
      assertE2(await replay(app, id, sent), 400, 'VALIDATION_ERROR', details)
      // Before existence: the same for a subscription that does not exist.
      assertE2(await replay(app, 99999, sent), 400, 'VALIDATION_ERROR', details)
    }
    // Taken: `after` "0", leading zeros, `until` equal to `after` or above it, ids past any
    // given (nothing to replay there), a field the rules do not know.
    for (const body of [
      { after: '0' },
      { after: '9', until: '10' },
      { after: '007', until: '7' },
      { after: '99999999999999999999' },
      { after: '0', until: '99999999999999999999' },
      { after: '0', until: '0', extra: true },
    ]) {
      assert.equal((await replay(app, id, body)).statusCode, 202, JSON.stringify(body))
    }
  })

  test('404 NOT_FOUND for a subscription that does not exist, or no longer', async () => {
    for (const id of [99999, 0, -1, '9999999999999999999999']) {
      assertE2(await replay(app, id, { after: '0' }), 404, 'NOT_FOUND')
    }
    const { id } = await subscribe(app, receiver.url('/deleted'), ['tugas.*'])
    await call(app, { method: 'DELETE', url: `/webhooks/${id}`, headers: admin })
    assertE2(await replay(app, id, { after: '0' }), 404, 'NOT_FOUND')
  })

  test('/openapi.json has the operation: admin only, its body and its 202', async () => {
    const document = (await call(app, { method: 'GET', url: '/openapi.json' })).json()
    const operation = document.paths['/webhooks/{id}/replay']?.post
    assert.ok(operation, 'paths./webhooks/{id}/replay.post')
    assert.equal(operation.operationId, 'replayWebhook')
    assert.deepEqual(operation.tags, ['Webhooks'])
    const body = operation.requestBody.content['application/json']
    assert.deepEqual(Object.keys(body.schema.properties), ['after', 'until'])
    assert.deepEqual(body.schema.required, ['after'])
    assert.deepEqual(body.example, { after: '0' })
    const accepted = operation.responses['202'].content['application/json'].schema
    assert.deepEqual(Object.keys(accepted.properties.data.properties), ['queued'])
    for (const status of ['400', '401', '403', '404', '413', '415']) {
      assert.ok(operation.responses[status], `documents ${status}`)
    }
    const other = await call(app, { method: 'GET', url: '/webhooks/1/replay', headers: admin })
    assertE2(other, 405, 'METHOD_NOT_ALLOWED')
    assert.equal(other.headers.allow, 'POST')
  })
})

describe('replay skips the events no longer kept (EVENTS_RETAIN=3)', async () => {
  const app = await testApp({ config: { webhookAllowPrivate: true, eventsRetain: 3 } })

  test('only the kept events are queued', async () => {
    for (let i = 0; i < 6; i++) await createTask(app, `Tugas ${i}`)
    const { events } = storesOf(app)
    // Numbered before the subscription (PostgreSQL numbers after commit): none is delivered
    // but by the replay.
    for (let waited = 0; (await events.bounds()).newest < 6; waited += 10) {
      assert.ok(waited < 10_000, 'the six events numbered')
      await settle(10)
    }
    const subscription = await subscribe(app, receiver.url('/kept'), ['tugas.*'])
    // The events kept (on PostgreSQL at least EVENTS_RETAIN: docs/events.md#limits).
    const { oldest = 1, newest } = await events.bounds()
    assert.equal(newest, 6)
    assert.ok(oldest > 1, `the oldest kept is ${oldest}`)
    assert.equal(await replayed(app, subscription.id, { after: '0' }), newest - oldest + 1)
    const received = await receiver.until('/kept', newest - oldest + 1)
    assert.deepEqual(
      eventIds(received)
        .map(Number)
        .sort((a, b) => a - b),
      Array.from({ length: newest - oldest + 1 }, (_, i) => oldest + i),
    )
  })
})
