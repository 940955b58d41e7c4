// The OrderStore contract, on every implementation: create and get, ids from 1, and the one
// transition MENUNGGU to LUNAS in one indivisible step; a paid order never changes again.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { PRECONDITION_FAILED } from '../../../src/store/precondition.js'
import type { Pesanan } from '../../../src/surfaces/supporting/orders/schemas.js'
import type { OrderStore, PayResult } from '../../../src/surfaces/supporting/orders/store.js'
import { preconditionContract } from '../../support/preconditions.js'
import { forEachStore, tryMutate } from '../../support/stores.js'

/** `store.pay` without a precondition, which is never PRECONDITION_FAILED. */
async function pay(store: OrderStore, id: number): Promise<PayResult> {
  const result = await store.pay(id)
  assert.notEqual(result, PRECONDITION_FAILED)
  return result as PayResult
}

await forEachStore('OrderStore', (kind) => {
  preconditionContract<Pesanan>(kind, ({ orders }) => ({
    create: () => orders.create({ email: 'a@x.id', jumlah: 1 }),
    get: (id) => orders.get(id),
    writes: [
      {
        name: 'pay',
        run: (id, _n, precondition) => orders.pay(id, precondition),
        missing: { outcome: 'missing' },
        wrote: (result) => (result as PayResult | undefined)?.outcome === 'paid',
      },
    ],
  }))

  test('create gives { id, email, jumlah, status: MENUNGGU } from id 1; get reads it; large jumlah stays a number', async () => {
    const { orders } = await kind.fresh()
    assert.equal(await orders.get(1), undefined)
    assert.deepEqual(await orders.create({ email: 'a@x.id', jumlah: 1 }), {
      id: 1,
      email: 'a@x.id',
      jumlah: 1,
      status: 'MENUNGGU',
    })
    const big = { id: 2, email: 'B@x.id', jumlah: Number.MAX_SAFE_INTEGER, status: 'MENUNGGU' }
    assert.deepEqual(await orders.create({ email: 'B@x.id', jumlah: Number.MAX_SAFE_INTEGER }), big)
    assert.deepEqual(await orders.create({ email: 'a@x.id', jumlah: 3 }), {
      id: 3,
      email: 'a@x.id',
      jumlah: 3,
      status: 'MENUNGGU',
    })
    assert.deepEqual(await orders.get(2), big)
    assert.deepEqual(await orders.get(1), {
      id: 1,
      email: 'a@x.id',
      jumlah: 1,
      status: 'MENUNGGU',
    })
    for (const id of [0, -1, 4, 2 ** 53 - 1]) assert.equal(await orders.get(id), undefined, `${id}`)
  })

  test('pay: paid with the LUNAS order, then already-paid with it; other orders stay waiting', async () => {
    const { orders } = await kind.fresh()
    for (const n of [1, 2, 3]) await orders.create({ email: `p${n}@x.id`, jumlah: n })
    const lunas = { id: 2, email: 'p2@x.id', jumlah: 2, status: 'LUNAS' }
    assert.deepEqual(await pay(orders, 2), { outcome: 'paid', order: lunas })
    assert.deepEqual(await orders.get(2), lunas)
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(await pay(orders, 2), { outcome: 'already-paid', order: lunas })
    }
    assert.deepEqual(await orders.get(2), lunas, 'a paid order never changes again')
    assert.deepEqual(
      [(await orders.get(1))?.status, (await orders.get(3))?.status],
      ['MENUNGGU', 'MENUNGGU'],
    )
    assert.equal((await orders.create({ email: 'p4@x.id', jumlah: 4 })).id, 4)
  })

  test('a guarded pay of a paid order: the precondition first, then already-paid', async () => {
    const { orders } = await kind.fresh()
    await orders.create({ email: 'a@x.id', jumlah: 2 })
    await pay(orders, 1)
    const lunas = { id: 1, email: 'a@x.id', jumlah: 2, status: 'LUNAS' }
    assert.equal(await orders.pay(1, () => false), PRECONDITION_FAILED)
    const seen: Pesanan[] = []
    const result = await orders.pay(1, (current) => {
      seen.push(current)
      return true
    })
    assert.deepEqual(result, { outcome: 'already-paid', order: lunas })
    assert.deepEqual(seen, [lunas])
  })

  // Moved from orders.test.ts (MemoryOrderStore.pay), now on every store.
  test('20 concurrent pay(1) of one waiting order: exactly one is paid, the rest already-paid', async () => {
    const store = (await kind.fresh()).orders
    await store.create({ email: 'a@x.id', jumlah: 2 })
    const results = await Promise.all(Array.from({ length: 20 }, () => pay(store, 1)))
    const outcomes = results.map((result) => result.outcome)
    assert.equal(outcomes.filter((o) => o === 'paid').length, 1, `outcomes: ${outcomes}`)
    assert.equal(outcomes.filter((o) => o === 'already-paid').length, 19, `outcomes: ${outcomes}`)
    for (const result of results) {
      assert.ok(result.outcome !== 'missing')
      assert.deepEqual(result.order, { id: 1, email: 'a@x.id', jumlah: 2, status: 'LUNAS' })
    }
    assert.equal((await store.get(1))?.status, 'LUNAS')
  })

  // Moved from orders.test.ts (MemoryOrderStore.pay), now on every store.
  test('pay of an id that holds no order is missing', async () => {
    const store = (await kind.fresh()).orders
    assert.deepEqual(await pay(store, 1), { outcome: 'missing' })
    await store.create({ email: 'a@x.id', jumlah: 2 })
    assert.deepEqual(await pay(store, 2), { outcome: 'missing' })
  })

  test('a payment refused as missing takes no id and pays nothing; ids 0 and negative are missing', async () => {
    const { orders } = await kind.fresh()
    for (const id of [0, -1, 1, 5]) assert.deepEqual(await pay(orders, id), { outcome: 'missing' })
    assert.deepEqual(await orders.create({ email: 'a@x.id', jumlah: 7 }), {
      id: 1,
      email: 'a@x.id',
      jumlah: 7,
      status: 'MENUNGGU',
    })
  })

  test('concurrent payments of ten orders: each is paid exactly once', async () => {
    const { orders } = await kind.fresh()
    for (let n = 1; n <= 10; n++) await orders.create({ email: `p${n}@x.id`, jumlah: n })
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => pay(orders, (i % 10) + 1)),
    )
    for (let id = 1; id <= 10; id++) {
      const mine = results.filter(
        (result) => result.outcome !== 'missing' && result.order.id === id,
      )
      assert.equal(mine.length, 4)
      assert.equal(mine.filter((result) => result.outcome === 'paid').length, 1, `order ${id}`)
      for (const result of mine) {
        assert.deepEqual(result, {
          outcome: result.outcome,
          order: { id, email: `p${id}@x.id`, jumlah: id, status: 'LUNAS' },
        })
      }
    }
  })

  test('concurrent creates take ids 1 to 20, each once', async () => {
    const { orders } = await kind.fresh()
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) => orders.create({ email: `p${i}@x.id`, jumlah: i + 1 })),
    )
    assert.deepEqual(
      created.map((order) => order.id).sort((a, b) => a - b),
      Array.from({ length: 20 }, (_, i) => i + 1),
    )
    for (const order of created) assert.deepEqual(await orders.get(order.id), order)
  })

  test('returned orders are snapshots: paying, or changing them, changes nothing else', async () => {
    const { orders } = await kind.fresh()
    const created = await orders.create({ email: 'a@x.id', jumlah: 5 })
    const got = await orders.get(1)
    const paid = await pay(orders, 1)
    assert.equal(created.status, 'MENUNGGU')
    assert.equal(got?.status, 'MENUNGGU')
    const lunas = { id: 1, email: 'a@x.id', jumlah: 5, status: 'LUNAS' }
    tryMutate(() => Object.assign(created, { status: 'LUNAS', jumlah: 1 }))
    if (paid.outcome === 'paid') tryMutate(() => Object.assign(paid.order, { status: 'MENUNGGU' }))
    const again = await pay(orders, 1)
    if (again.outcome === 'already-paid') {
      tryMutate(() => Object.assign(again.order, { status: 'MENUNGGU', email: 'x' }))
    }
    assert.deepEqual(await orders.get(1), lunas)
    assert.deepEqual(await pay(orders, 1), { outcome: 'already-paid', order: lunas })
  })
})
