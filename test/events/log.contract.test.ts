// The event log's contract, on every store: every write publishes exactly one event of its
// type, in the order of the writes, with the item as its data; refused writes and the seed
// publish none; the most recent are kept; a reader resumes from any id.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import type { StoredEvent } from '../../src/events/store.js'
import { demoSeed } from '../../src/seed.js'
import { PRECONDITION_FAILED } from '../../src/store/precondition.js'
import { type Stores, seededMemoryStores } from '../../src/stores.js'
import { EVENT_SCHEMAS } from '../../src/surfaces/events/event-types.js'
import { eventsAfter } from '../support/sse.js'
import { forEachStore, ODD_TEXTS } from '../support/stores.js'

interface Sent {
  specversion: string
  id: string
  source: string
  type: string
  subject: string
  time: string
  datacontenttype: string
  data: unknown
}

const sent = (event: StoredEvent) => JSON.parse(event.json) as Sent

const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false })
addFormats.default(ajv)

/**
 * The event is valid against its type's schema, the one /openapi.json (the type's webhook body,
 * `GET /events`) and /asyncapi.json publish (docs/events.md#described-for-generators).
 */
function assertDescribed(event: StoredEvent) {
  const validate = ajv.compile(EVENT_SCHEMAS[event.type])
  assert.ok(validate(sent(event)), `${event.type}: ${JSON.stringify(validate.errors)}`)
}

/** The writes of every type, each with the event it must publish. */
async function everyWrite(stores: Stores) {
  const expected: { type: string; source: string; subject: string; data: unknown }[] = []
  const saw = (type: string, source: string, data: { id: number }, subject = String(data.id)) =>
    expected.push({ type, source, subject, data })

  const task = await stores.tugas.create({ title: 'Menulis laporan', status: 'belum' })
  saw('tugas.created', '/tugas', task)
  const replaced = await stores.tugas.replace(task.id, { title: 'Laporan', status: 'selesai' })
  saw('tugas.replaced', '/tugas', replaced as { id: number })
  // `{}` changes nothing and still answers 200: it publishes.
  const updated = await stores.tugas.update(task.id, {})
  saw('tugas.updated', '/tugas', updated as { id: number })
  const comment = await stores.tugas.addComment(task.id, 'Sudah dibaca')
  saw('komentar.created', '/tugas', comment as { id: number }, `${task.id}/komentar/1`)
  await stores.tugas.delete(task.id)
  saw('tugas.deleted', '/tugas', { id: task.id })

  const compact = await stores.compact.create('Ringkas')
  saw('api-tugas.created', '/api/tugas', compact)
  const compactReplaced = await stores.compact.replace(compact.id, { judul: 'Lagi', selesai: true })
  saw('api-tugas.replaced', '/api/tugas', compactReplaced as { id: number })
  await stores.compact.delete(compact.id)
  saw('api-tugas.deleted', '/api/tugas', { id: compact.id })

  const todo = await stores.todos.create({ title: 'Beli kopi', done: false })
  saw('todos.created', '/todos', todo)
  const todoReplaced = await stores.todos.replace(todo.id, { title: 'Beli teh', done: true })
  saw('todos.replaced', '/todos', todoReplaced as { id: number })
  await stores.todos.delete(todo.id)
  saw('todos.deleted', '/todos', { id: todo.id })

  const created = await stores.users.create({
    name: 'Sari',
    email: 'sari@example.com',
    passwordHash: 'scrypt$secret',
  })
  assert.ok('user' in created)
  saw('users.created', '/users', created.user)

  const order = await stores.orders.create({ email: 'sari@example.com', jumlah: 5 })
  saw('pesanan.created', '/pesanan', order)
  const paid = await stores.orders.pay(order.id)
  assert.ok(typeof paid === 'object' && paid.outcome === 'paid')
  saw('pesanan.paid', '/pesanan', paid.order)

  return expected
}

/** Writes that are refused, or that change nothing a client asked for: none publishes. */
async function refusedWrites(stores: Stores) {
  const task = await stores.tugas.create({ title: 'Tetap', status: 'belum' })
  const never = () => false
  assert.equal(await stores.tugas.update(999, { status: 'selesai' }), undefined)
  assert.equal(await stores.tugas.replace(999, { title: 'Tidak ada', status: 'belum' }), undefined)
  assert.equal(await stores.tugas.delete(999), false)
  assert.equal(await stores.tugas.addComment(999, 'hilang'), undefined)
  assert.equal(
    await stores.tugas.update(task.id, { status: 'selesai' }, never),
    PRECONDITION_FAILED,
  )
  assert.equal(await stores.tugas.delete(task.id, never), PRECONDITION_FAILED)
  assert.equal(await stores.compact.replace(999, { judul: 'x', selesai: true }), undefined)
  assert.equal(await stores.todos.delete(999), false)
  const user = { name: 'A', email: 'a@example.com', passwordHash: 'h' }
  await stores.users.create(user)
  assert.deepEqual(await stores.users.create({ ...user, email: 'A@EXAMPLE.COM' }), {
    emailTaken: true,
  })
  const order = await stores.orders.create({ email: 'a@example.com', jumlah: 1 })
  await stores.orders.pay(order.id)
  const again = await stores.orders.pay(order.id)
  assert.ok(typeof again === 'object' && again.outcome === 'already-paid')
  assert.deepEqual(await stores.orders.pay(999), { outcome: 'missing' })
  assert.equal(await stores.documents.delete(999), false)
  // The ones that did publish: the task, the user, the order and its payment.
  return 4
}

await forEachStore('the event log', (kind) => {
  test('every write publishes one event of its type, in order, with the item as its data', async () => {
    const stores = await kind.fresh()
    const before = Date.now()
    const expected = await everyWrite(stores)
    const events = await eventsAfter(stores.events, 0, expected.length)
    assert.equal(events.length, expected.length)
    const ids = events.map((event) => event.id)
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
      'ids increase',
    )
    assert.equal(new Set(ids).size, ids.length)
    for (const [at, event] of events.entries()) {
      const body = sent(event)
      const want = expected[at] as (typeof expected)[number]
      assert.deepEqual(
        { ...body, time: undefined },
        {
          specversion: '1.0',
          id: String(event.id),
          source: want.source,
          type: want.type,
          subject: want.subject,
          time: undefined,
          datacontenttype: 'application/json',
          data: want.data,
        },
        want.type,
      )
      assert.equal(event.type, want.type)
      assertDescribed(event)
      assert.match(body.time, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
      assert.ok(Date.parse(body.time) >= before - 1000 && Date.parse(body.time) <= Date.now())
    }
    assert.doesNotMatch(events.map((event) => event.json).join(), /secret|password|hash/i)
    const bounds = await stores.events.bounds()
    assert.deepEqual(bounds, { oldest: ids[0], newest: ids.at(-1) })
  })

  test("a deleted document's event names its owner, for the streams that may see it", async () => {
    const stores = await kind.fresh()
    const document = await stores.documents.create({ judul: 'Rahasia', pemilik: 'sari\u0000' })
    await stores.documents.delete(document.id)
    const [event, ...more] = await eventsAfter(stores.events, 0, 1)
    assert.equal(more.length, 0)
    assert.equal(event?.type, 'dokumen.deleted')
    assert.equal(event?.owner, 'sari\u0000')
    assert.deepEqual(sent(event as StoredEvent).data, { id: document.id })
    assertDescribed(event as StoredEvent)
  })

  test('refused writes publish nothing', async () => {
    const stores = await kind.fresh()
    const published = await refusedWrites(stores)
    // A write after them all: once its event is there, any event of theirs would be too.
    await stores.compact.create('penanda')
    const events = await eventsAfter(stores.events, 0, published + 1)
    assert.deepEqual(
      events.map((event) => event.type),
      ['tugas.created', 'users.created', 'pesanan.created', 'pesanan.paid', 'api-tugas.created'],
    )
  })

  test('text the database cannot hold as it is comes back exactly in the data', async () => {
    const stores = await kind.fresh()
    for (const title of ODD_TEXTS) await stores.tugas.create({ title, status: 'belum' })
    const events = await eventsAfter(stores.events, 0, ODD_TEXTS.length)
    assert.deepEqual(
      events.map((event) => (sent(event).data as { title: string }).title),
      ODD_TEXTS,
    )
  })

  test('a reader resumes from every id with exactly the events after it', async () => {
    const stores = await kind.fresh()
    for (let n = 0; n < 12; n += 1) await stores.compact.create(`judul ${n}`)
    const all = await eventsAfter(stores.events, 0, 12)
    for (let at = 0; at <= all.length; at += 1) {
      const after = at === 0 ? 0 : (all[at - 1] as StoredEvent).id
      assert.deepEqual(await stores.events.after(after, 100), all.slice(at))
      assert.deepEqual(await stores.events.after(after, 2), all.slice(at, at + 2))
    }
  })

  test('the most recent EVENTS_RETAIN are kept', async () => {
    const stores = await kind.fresh(undefined, 3)
    for (let n = 0; n < 5; n += 1) await stores.compact.create(`judul ${n}`)
    const deadline = Date.now() + 5000
    // Numbered, then (on PostgreSQL, after the numbering's commit) the oldest forgotten.
    const done = ({ oldest, newest }: { oldest?: number; newest: number }) =>
      newest >= 5 && (oldest ?? 0) >= 3
    while (!done(await stores.events.bounds()) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    const kept = await stores.events.after(0, 100)
    assert.deepEqual(
      kept.map((event) => sent(event).data),
      [2, 3, 4].map((n) => ({ id: n + 1, judul: `judul ${n}`, selesai: false })),
    )
    const { oldest, newest } = await stores.events.bounds()
    assert.equal(oldest, kept[0]?.id)
    assert.equal(newest, kept.at(-1)?.id)
  })

  test('listeners get every event once, in order, as the process learns of it', async () => {
    const stores = await kind.fresh()
    const heard: StoredEvent[] = []
    const stop = stores.events.subscribe((events) => heard.push(...events))
    await Promise.all(Array.from({ length: 20 }, (_, n) => stores.compact.create(`serentak ${n}`)))
    const deadline = Date.now() + 5000
    while (heard.length < 20 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    stop()
    assert.deepEqual(heard, await stores.events.after(0, 100))
    assert.equal(stores.events.newest, heard.at(-1)?.id)
    assert.equal(stores.events.publishedByType.get('api-tugas.created'), 20)
  })
})

test('the seed publishes nothing', async () => {
  const stores = await seededMemoryStores(demoSeed)
  assert.deepEqual(await stores.events.bounds(), { oldest: undefined, newest: 0 })
  await stores.tugas.create({ title: 'Sesudah benih', status: 'belum' })
  const [first] = await eventsAfter(stores.events, 0, 1)
  assert.equal(first?.id, 1)
})
