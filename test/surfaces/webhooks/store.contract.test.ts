// The webhook store's contract, on every store: subscriptions kept and removed; a delivery for
// each event of a subscribed type from the subscription's creation on, its body the event as
// the change feed has it; a claim holds a delivery for its lease; recording puts it off or ends
// it; the soonest due claimed first; the most recent attempts kept, newest first; a replay queues
// a new delivery of each kept event of its range the subscription selects, in id order. On
// PostgreSQL, claims made at once from two pools never share a delivery.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { MemoryEventLog } from '../../../src/events/memory-store.js'
import { MAX_ID } from '../../../src/http/path-id.js'
import type { Database } from '../../../src/store/postgres/database.js'
import { EVENT_RENDERERS, type Stores } from '../../../src/stores.js'
import { MemoryWebhookStore } from '../../../src/surfaces/webhooks/memory-store.js'
import { PgWebhookStore } from '../../../src/surfaces/webhooks/pg-store.js'
import {
  ATTEMPTS_KEPT,
  type ClaimLimits,
  type DueDelivery,
  type WebhookStore,
} from '../../../src/surfaces/webhooks/store.js'
import { forEachStore } from '../../support/stores.js'

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
const LEASE_MS = 60_000

/** None in flight: `count` of each subscription at most, and `count` beyond their firsts. */
const upTo = (count: number, leaseMs = LEASE_MS): ClaimLimits => ({
  leaseMs,
  perSubscription: count,
  held: new Map(),
  shared: count,
})

/** Claims as upTo(count) allows: `count` at most of one subscription. */
const claim = (store: WebhookStore, count: number, leaseMs = LEASE_MS) =>
  store.claim(upTo(count, leaseMs))

/** Claims until `count` deliveries are due (the PostgreSQL sequencer numbers after commit). */
async function due(store: WebhookStore, count: number, leaseMs = LEASE_MS): Promise<DueDelivery[]> {
  const claimed: DueDelivery[] = []
  for (let waited = 0; waited < 10_000 && claimed.length < count; waited += 20) {
    claimed.push(...(await claim(store, count - claimed.length, leaseMs)))
    if (claimed.length < count) await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return claimed
}

const attempt = (due: DueDelivery, result: 'delivered' | 'retrying' | 'failed', status = 500) => ({
  event_id: due.eventId,
  attempt: due.attempt,
  status_code: status,
  error: null,
  duration_ms: 3,
  result,
})

const newTask = (stores: Stores, title: string) => stores.tugas.create({ title, status: 'belum' })

/**
 * Waits until the log has given ids up to `newest` (the PostgreSQL sequencer numbers after
 * commit) and passed them to its listeners (the memory log, at the next turn of the event loop):
 * a subscription created then gets none of them but by a replay.
 */
async function numbered(stores: Stores, newest: number): Promise<void> {
  for (let waited = 0; (await stores.events.bounds()).newest < newest; waited += 10) {
    assert.ok(waited < 10_000, `events numbered up to ${newest}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  await new Promise((resolve) => setTimeout(resolve, 50))
}

/** Claims one at a time, as the oldest due comes, until none is: the order they were queued in. */
async function oneByOne(store: WebhookStore): Promise<DueDelivery[]> {
  const claimed: DueDelivery[] = []
  for (let next = await claim(store, 1); next.length > 0; next = await claim(store, 1)) {
    claimed.push(...next)
  }
  return claimed
}

await forEachStore('the webhook store', (kind) => {
  test('subscriptions: created with ids from 1, listed, read, deleted', async () => {
    const { webhooks } = await kind.fresh()
    const one = await webhooks.create({
      url: 'http://a.example/',
      types: ['tugas.*'],
      secret: SECRET,
    })
    const two = await webhooks.create({
      url: 'http://b.example/',
      types: ['users.created'],
      secret: SECRET,
    })
    assert.deepEqual([one.id, two.id], [1, 2])
    assert.deepEqual(Object.keys(one), ['id', 'url', 'types', 'created_at'])
    assert.ok(!Number.isNaN(Date.parse(one.created_at)))
    assert.deepEqual(await webhooks.list(), [one, two])
    assert.deepEqual(await webhooks.get(2), two)
    assert.equal(await webhooks.get(3), undefined)
    assert.equal(await webhooks.delete(1), true)
    assert.equal(await webhooks.delete(1), false)
    assert.deepEqual(await webhooks.list(), [two])
  })

  test('a delivery for each event of a subscribed type, its body the event itself', async () => {
    const stores = await kind.fresh()
    const { webhooks } = stores
    await newTask(stores, 'Sebelum langganan')
    // Numbered (PostgreSQL) and passed to the log's listeners (memory) before the subscriptions.
    while ((await stores.events.bounds()).newest < 1) await new Promise((r) => setTimeout(r, 10))
    await new Promise((resolve) => setTimeout(resolve, 50))
    const all = await webhooks.create({
      url: 'http://a.example/',
      types: ['tugas.*'],
      secret: SECRET,
    })
    const created = await webhooks.create({
      url: 'http://b.example/',
      types: ['tugas.created'],
      secret: SECRET,
    })
    await webhooks.create({ url: 'http://c.example/', types: ['todos.*'], secret: SECRET })
    const task = await newTask(stores, 'Sesudah langganan')
    await stores.tugas.delete(task.id)
    const claimed = await due(webhooks, 3)
    assert.equal(claimed.length, 3)
    // Nothing more: the event before the subscriptions, and the other types, have none.
    await new Promise((resolve) => setTimeout(resolve, 100))
    assert.deepEqual(await claim(webhooks, 10), [])
    const [first, second] = await stores.events.after(1, 2)
    const expected = [
      [all.id, first],
      [created.id, first],
      [all.id, second],
    ].map(([id, event]) => ({
      webhookId: id,
      eventId: (event as { id: number }).id,
      body: (event as { json: string }).json,
    }))
    const got = claimed.map(({ webhookId, eventId, body }) => ({ webhookId, eventId, body }))
    const order = (a: { webhookId: unknown; eventId: unknown }) => `${a.eventId}/${a.webhookId}`
    assert.deepEqual(
      got.sort((a, b) => order(a).localeCompare(order(b))),
      expected.sort((a, b) => order(a).localeCompare(order(b))),
    )
    for (const delivery of claimed) {
      assert.equal(delivery.attempt, 1)
      assert.equal(delivery.secret, SECRET)
      assert.match(delivery.url, /^http:\/\/[ab]\.example\/$/)
    }
  })

  test('a claim holds a delivery for its lease; then it is due again', async () => {
    const stores = await kind.fresh()
    await stores.webhooks.create({ url: 'http://a.example/', types: ['tugas.*'], secret: SECRET })
    await newTask(stores, 'Disewa')
    const [held] = await due(stores.webhooks, 1, 300)
    assert.ok(held)
    assert.deepEqual(await claim(stores.webhooks, 10, 300), [])
    await new Promise((resolve) => setTimeout(resolve, 400))
    const [again] = await claim(stores.webhooks, 10, 300)
    // Unrecorded (the process died during it): the same attempt is made again.
    assert.deepEqual(again, held)
  })

  test('recording: put off by retryInMs with the next attempt number, or ended', async () => {
    const stores = await kind.fresh()
    const webhook = await stores.webhooks.create({
      url: 'http://a.example/',
      types: ['tugas.*'],
      secret: SECRET,
    })
    await newTask(stores, 'Dicoba lagi')
    const [first] = await due(stores.webhooks, 1)
    assert.ok(first)
    await stores.webhooks.record([
      { due: first, attempt: attempt(first, 'retrying'), retryInMs: 300 },
    ])
    assert.deepEqual(await claim(stores.webhooks, 10), [])
    await new Promise((resolve) => setTimeout(resolve, 400))
    const [second] = await claim(stores.webhooks, 10)
    assert.deepEqual(second, { ...first, attempt: 2 })
    await stores.webhooks.record([
      { due: second as DueDelivery, attempt: attempt(second as DueDelivery, 'delivered', 204) },
    ])
    await new Promise((resolve) => setTimeout(resolve, 100))
    assert.deepEqual(await claim(stores.webhooks, 10, 0), [])
    const kept = await stores.webhooks.attempts(webhook.id)
    assert.deepEqual(
      kept.map(({ attempt, status_code, error, duration_ms, result, event_id }) => ({
        attempt,
        status_code,
        error,
        duration_ms,
        result,
        event_id,
      })),
      [
        {
          attempt: 2,
          status_code: 204,
          error: null,
          duration_ms: 3,
          result: 'delivered',
          event_id: first.eventId,
        },
        {
          attempt: 1,
          status_code: 500,
          error: null,
          duration_ms: 3,
          result: 'retrying',
          event_id: first.eventId,
        },
      ],
    )
    for (const { time } of kept) assert.ok(!Number.isNaN(Date.parse(time)))
  })

  test('within a subscription the soonest due is claimed first, not the first queued', async () => {
    const stores = await kind.fresh()
    await stores.webhooks.create({ url: 'http://a.example/', types: ['tugas.*'], secret: SECRET })
    await newTask(stores, 'Pertama')
    await newTask(stores, 'Kedua')
    const [older, newer] = (await due(stores.webhooks, 2)).sort((a, b) => a.eventId - b.eventId)
    assert.ok(older && newer)
    // The older put off longer: once both are due, the newer comes first.
    await stores.webhooks.record([
      { due: older, attempt: attempt(older, 'retrying'), retryInMs: 300 },
      { due: newer, attempt: attempt(newer, 'retrying'), retryInMs: 100 },
    ])
    await new Promise((resolve) => setTimeout(resolve, 400))
    assert.deepEqual(await claim(stores.webhooks, 1), [{ ...newer, attempt: 2 }])
    assert.deepEqual(await claim(stores.webhooks, 1), [{ ...older, attempt: 2 }])
  })

  test(`the ${ATTEMPTS_KEPT} most recent attempts are kept, newest first`, async () => {
    const stores = await kind.fresh()
    const webhook = await stores.webhooks.create({
      url: 'http://a.example/',
      types: ['tugas.*'],
      secret: SECRET,
    })
    await newTask(stores, 'Banyak percobaan')
    const [delivery] = await due(stores.webhooks, 1)
    assert.ok(delivery)
    const total = ATTEMPTS_KEPT + 5
    // One at a time, then several in one record: the newest are kept either way.
    const recorded = (n: number) => ({
      due: { ...delivery, attempt: n },
      attempt: { ...attempt(delivery, 'retrying'), attempt: n },
      retryInMs: 60_000,
    })
    for (let n = 1; n <= ATTEMPTS_KEPT; n++) await stores.webhooks.record([recorded(n)])
    const more = Array.from({ length: total - ATTEMPTS_KEPT }, (_, i) => ATTEMPTS_KEPT + 1 + i)
    await stores.webhooks.record(more.map(recorded))
    const kept = await stores.webhooks.attempts(webhook.id)
    assert.deepEqual(
      kept.map(({ attempt }) => attempt),
      Array.from({ length: ATTEMPTS_KEPT }, (_, i) => total - i),
    )
  })

  test('deleting a subscription drops its pending deliveries and its attempts', async () => {
    const stores = await kind.fresh()
    const webhook = await stores.webhooks.create({
      url: 'http://a.example/',
      types: ['tugas.*'],
      secret: SECRET,
    })
    await newTask(stores, 'Satu')
    const [delivery] = await due(stores.webhooks, 1)
    assert.ok(delivery)
    await stores.webhooks.record([
      { due: delivery, attempt: attempt(delivery, 'retrying'), retryInMs: 1 },
    ])
    await newTask(stores, 'Dua')
    await new Promise((resolve) => setTimeout(resolve, 200))
    assert.equal(await stores.webhooks.delete(webhook.id), true)
    assert.deepEqual(await claim(stores.webhooks, 10), [])
    assert.deepEqual(await stores.webhooks.attempts(webhook.id), [])
    // A record arriving after the deletion keeps nothing.
    await stores.webhooks.record([{ due: delivery, attempt: attempt(delivery, 'delivered', 200) }])
    assert.deepEqual(await stores.webhooks.attempts(webhook.id), [])
  })

  test("a claim takes up to each subscription's room, and the first of one holding none always", async () => {
    const stores = await kind.fresh()
    const subscribed = await Promise.all(
      [
        ['busy', 'todos.*'],
        ['one', 'tugas.*'],
        ['two', 'tugas.*'],
      ].map(([name, type]) =>
        stores.webhooks.create({
          url: `http://${name}.example/`,
          types: [type as string],
          secret: SECRET,
        }),
      ),
    )
    const [busy = 0, ...others] = subscribed.map(({ id }) => id)
    for (let i = 0; i < 20; i++) await stores.todos.create({ title: `Todo ${i}`, done: false })
    await newTask(stores, 'Satu')
    await newTask(stores, 'Dua')
    // Every delivery queued (24; PostgreSQL numbers after commit): seen by claims that let go
    // at once (a lease of 0).
    for (let waited = 0; (await claim(stores.webhooks, 30, 0)).length < 24; waited += 20) {
      assert.ok(waited < 10_000, 'all 24 deliveries queued')
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const seen = new Set<number>()
    /** How many a claim with these limits takes of each subscription, each held from then on. */
    const taken = async (held: [number, number][], shared: number) => {
      const claimed = await stores.webhooks.claim({
        leaseMs: LEASE_MS,
        perSubscription: 4,
        held: new Map(held),
        shared,
      })
      for (const { key } of claimed) {
        assert.ok(!seen.has(key), 'a delivery held is not claimed again')
        seen.add(key)
      }
      return [busy, ...others].map((id) => claimed.filter((d) => d.webhookId === id).length)
    }
    // The busy one at its room: none of it, and the others' first even with no shared room.
    assert.deepEqual(await taken([[busy, 4]], 0), [0, 1, 1])
    assert.deepEqual(await taken([[busy, 4]], 10), [0, 1, 1])
    // Holding none: its first, whatever the shared room.
    assert.deepEqual(await taken([], 0), [1, 0, 0])
    // Holding some: the rest of its room, out of the shared room.
    assert.deepEqual(await taken([[busy, 1]], 2), [2, 0, 0])
    assert.deepEqual(await taken([[busy, 3]], 10), [1, 0, 0])
    assert.deepEqual(await taken([[busy, 4]], 10), [0, 0, 0])
  })

  test('the deliverer is told when deliveries are queued', async () => {
    const stores = await kind.fresh()
    let told = 0
    const stop = stores.webhooks.onQueued(() => {
      told += 1
    })
    await newTask(stores, 'Tanpa langganan')
    await new Promise((resolve) => setTimeout(resolve, 200))
    assert.equal(told, 0)
    await stores.webhooks.create({ url: 'http://a.example/', types: ['tugas.*'], secret: SECRET })
    await newTask(stores, 'Dengan langganan')
    for (let waited = 0; told === 0 && waited < 5000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    assert.ok(told > 0)
    stop()
  })

  test('a replay queues a new delivery of each kept event of its range that the subscription selects, in id order', async () => {
    const stores = await kind.fresh()
    // 1 tugas.created, 2 todos.created, 3 tugas.created, 4 tugas.deleted: before the subscription.
    await newTask(stores, 'Satu')
    await stores.todos.create({ title: 'Bukan tugas', done: false })
    const task = await newTask(stores, 'Tiga')
    await stores.tugas.delete(task.id)
    await numbered(stores, 4)
    const webhook = await stores.webhooks.create({
      url: 'http://a.example/',
      types: ['tugas.*'],
      secret: SECRET,
    })
    assert.deepEqual(await claim(stores.webhooks, 10), [], 'nothing queued before the replay')

    assert.equal(await stores.webhooks.replay(webhook.id, { after: 0, until: undefined }), 3)
    const replayed = await oneByOne(stores.webhooks)
    const kept = (await stores.events.after(0, 10)).filter(({ type }) => type !== 'todos.created')
    assert.deepEqual(
      replayed.map(({ webhookId, eventId, attempt, body, url, secret }) => ({
        webhookId,
        eventId,
        attempt,
        body,
        url,
        secret,
      })),
      kept.map(({ id, json }) => ({
        webhookId: webhook.id,
        eventId: id,
        attempt: 1,
        body: json,
        url: 'http://a.example/',
        secret: SECRET,
      })),
    )
    assert.deepEqual(
      replayed.map(({ eventId }) => eventId),
      [1, 3, 4],
    )

    // `until` included; one event alone is (id - 1, id]; an empty range queues nothing.
    assert.equal(await stores.webhooks.replay(webhook.id, { after: 1, until: 3 }), 1)
    assert.deepEqual(
      (await oneByOne(stores.webhooks)).map(({ eventId }) => eventId),
      [3],
    )
    assert.equal(await stores.webhooks.replay(webhook.id, { after: 3, until: 3 }), 0)
    assert.equal(await stores.webhooks.replay(webhook.id, { after: 4, until: undefined }), 0)
    assert.equal(await stores.webhooks.replay(webhook.id, { after: MAX_ID, until: MAX_ID }), 0)
    assert.equal(await stores.webhooks.replay(webhook.id, { after: 0, until: MAX_ID }), 3)
    assert.equal((await oneByOne(stores.webhooks)).length, 3)
    assert.deepEqual(await claim(stores.webhooks, 10), [])

    // Unknown, or deleted: undefined, and nothing queued.
    assert.equal(
      await stores.webhooks.replay(webhook.id + 1, { after: 0, until: undefined }),
      undefined,
    )
    assert.equal(await stores.webhooks.delete(webhook.id), true)
    assert.equal(
      await stores.webhooks.replay(webhook.id, { after: 0, until: undefined }),
      undefined,
    )
    assert.deepEqual(await claim(stores.webhooks, 10), [])
  })

  test('a replayed delivery is new: its own attempts from 1, beside one of the same event still pending', async () => {
    const stores = await kind.fresh()
    const webhook = await stores.webhooks.create({
      url: 'http://a.example/',
      types: ['tugas.*'],
      secret: SECRET,
    })
    await newTask(stores, 'Gagal dulu')
    const [first] = await due(stores.webhooks, 1)
    assert.ok(first)
    await stores.webhooks.record([
      { due: first, attempt: attempt(first, 'retrying'), retryInMs: 60_000 },
    ])
    assert.equal(
      await stores.webhooks.replay(webhook.id, { after: first.eventId - 1, until: first.eventId }),
      1,
    )
    const [again] = await claim(stores.webhooks, 10)
    assert.ok(again)
    assert.notEqual(again.key, first.key)
    assert.deepEqual({ ...again, key: first.key }, first)
    // Recorded on its own: the first delivery is still put off, at its second attempt.
    await stores.webhooks.record([{ due: again, attempt: attempt(again, 'delivered', 204) }])
    assert.deepEqual(await claim(stores.webhooks, 10, 0), [])
    assert.deepEqual(
      (await stores.webhooks.attempts(webhook.id)).map(({ attempt, result }) => [attempt, result]),
      [
        [1, 'delivered'],
        [1, 'retrying'],
      ],
    )
  })

  test('a replay skips the events no longer kept (EVENTS_RETAIN)', async () => {
    const stores = await kind.fresh(undefined, 2)
    for (let i = 0; i < 5; i++) await stores.todos.create({ title: `Todo ${i}`, done: false })
    await numbered(stores, 5)
    const webhook = await stores.webhooks.create({
      url: 'http://a.example/',
      types: ['todos.*'],
      secret: SECRET,
    })
    const { oldest } = await stores.events.bounds()
    assert.ok(oldest !== undefined && oldest > 1, `the oldest kept is ${oldest}`)
    assert.equal(
      await stores.webhooks.replay(webhook.id, { after: 0, until: undefined }),
      5 - oldest + 1,
    )
    assert.deepEqual(
      (await oneByOne(stores.webhooks)).map(({ eventId }) => eventId),
      Array.from({ length: 5 - oldest + 1 }, (_, i) => oldest + i),
    )
  })

  test('the deliverer is told of a replay', async () => {
    const stores = await kind.fresh()
    await newTask(stores, 'Sebelum langganan')
    await numbered(stores, 1)
    const webhook = await stores.webhooks.create({
      url: 'http://a.example/',
      types: ['tugas.*'],
      secret: SECRET,
    })
    let told = 0
    const stop = stores.webhooks.onQueued(() => {
      told += 1
    })
    assert.equal(await stores.webhooks.replay(webhook.id, { after: 1, until: undefined }), 0)
    assert.equal(told, 0, 'nothing queued, nothing told')
    assert.equal(await stores.webhooks.replay(webhook.id, { after: 0, until: undefined }), 1)
    assert.ok(told > 0, 'told by the time the replay is answered')
    stop()
  })

  if (kind.name === 'postgres') {
    test('a replay while the subscription is being deleted: it waits, then finds none and queues none', async () => {
      const stores = await kind.fresh()
      await newTask(stores, 'Sebelum dihapus')
      await numbered(stores, 1)
      const webhook = await stores.webhooks.create({
        url: 'http://a.example/',
        types: ['tugas.*'],
        secret: SECRET,
      })
      const db = (stores.webhooks as unknown as { db: Database }).db.background('events')
      // Step 1: another process deletes the subscription, not yet committed.
      let deleted = () => {}
      const deleting = new Promise<void>((resolve) => {
        deleted = resolve
      })
      let commit = () => {}
      const committing = new Promise<void>((resolve) => {
        commit = resolve
      })
      const deletion = db.transaction(async (client) => {
        await client.query('DELETE FROM webhooks WHERE id = $1', [webhook.id])
        deleted()
        await committing
      })
      await deleting
      // Step 2: the replay starts and waits for the row's lock.
      let answered = false
      const replay = stores.webhooks
        .replay(webhook.id, { after: 0, until: undefined })
        .finally(() => {
          answered = true
        })
      await new Promise((resolve) => setTimeout(resolve, 200))
      assert.equal(answered, false, 'the replay waits for the deletion to end')
      // Step 3: the deletion commits; the replay finds no subscription and queues nothing.
      commit()
      await deletion
      assert.equal(await replay, undefined)
      assert.deepEqual(await claim(stores.webhooks, 10), [])
    })

    test('claims made at once from two pools never share a delivery', async () => {
      const stores = await kind.fresh()
      await stores.webhooks.create({ url: 'http://a.example/', types: ['tugas.*'], secret: SECRET })
      await stores.webhooks.create({ url: 'http://b.example/', types: ['tugas.*'], secret: SECRET })
      const count = 100
      await Promise.all(Array.from({ length: count / 2 }, (_, i) => newTask(stores, `Tugas ${i}`)))
      // Another process's connection to the same schema: the sequencer's own pool.
      const pool = (stores.webhooks as unknown as { db: Database }).db
      const rival = new PgWebhookStore(
        pool.background('events'),
        stores.events as never,
        EVENT_RENDERERS,
      )
      {
        const claimed: DueDelivery[] = []
        for (let round = 0; round < 40 && claimed.length < count; round++) {
          const batches = await Promise.all(
            [stores.webhooks, rival, stores.webhooks, rival].map((store) => claim(store, 3)),
          )
          claimed.push(...batches.flat())
          if (batches.flat().length === 0) await new Promise((resolve) => setTimeout(resolve, 25))
        }
        assert.equal(claimed.length, count)
        assert.equal(new Set(claimed.map(({ key }) => key)).size, count)
      }
    })
  }
})

test('the memory store keeps at most maxPending deliveries: the oldest dropped, recorded as failed', async () => {
  const events = new MemoryEventLog(100)
  const webhooks = new MemoryWebhookStore(events, 2)
  const webhook = await webhooks.create({
    url: 'http://a.example/',
    types: ['todos.*'],
    secret: SECRET,
  })
  for (const id of [1, 2, 3]) {
    events.publish({ type: 'todos.deleted', subject: String(id), data: { id } })
  }
  await new Promise((resolve) => setImmediate(resolve))
  const claimed = await claim(webhooks, 10)
  assert.deepEqual(
    claimed.map(({ eventId }) => eventId),
    [2, 3],
  )
  const [dropped] = await webhooks.attempts(webhook.id)
  assert.deepEqual(
    { ...dropped, time: undefined },
    {
      event_id: 1,
      attempt: 1,
      status_code: null,
      error: 'dropped: more than 2 deliveries pending',
      time: undefined,
      duration_ms: 0,
      result: 'failed',
    },
  )
})
