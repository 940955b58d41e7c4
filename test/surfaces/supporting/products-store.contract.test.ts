// The ProductStore contract, on every implementation: create, list and get; ids from 1; id
// order; integers up to Number.MAX_SAFE_INTEGER kept as numbers; snapshots.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { forEachStore, tryMutate } from '../../support/stores.js'

await forEachStore('ProductStore', (kind) => {
  test('create gives { id, nama, harga, stok } from id 1; list in id order and get read them', async () => {
    const { products } = await kind.fresh()
    assert.deepEqual(await products.list(), [])
    assert.equal(await products.get(1), undefined)
    const fields = [
      { nama: 'Kopi', harga: 25000, stok: 10 },
      { nama: 'Teh 🍵', harga: 0, stok: 0 },
      { nama: 'Kopi', harga: 25000, stok: 10 },
    ]
    for (const [i, product] of fields.entries()) {
      assert.deepEqual(await products.create(product), { id: i + 1, ...product })
    }
    const expected = fields.map((product, i) => ({ id: i + 1, ...product }))
    assert.deepEqual(await products.list(), expected)
    for (const product of expected) assert.deepEqual(await products.get(product.id), product)
    for (const id of [0, -1, 4, 2 ** 53 - 1]) {
      assert.equal(await products.get(id), undefined, `${id}`)
    }
  })

  test('large integers up to Number.MAX_SAFE_INTEGER round-trip as numbers', async () => {
    const { products } = await kind.fresh()
    const values = [
      { nama: 'max', harga: Number.MAX_SAFE_INTEGER, stok: Number.MAX_SAFE_INTEGER },
      { nama: '2^53 - 2', harga: 2 ** 53 - 2, stok: 2 ** 31 },
      { nama: 'past int32', harga: 2 ** 31, stok: 2 ** 32 + 1 },
      { nama: 'nol', harga: 0, stok: 0 },
    ]
    for (const product of values) await products.create(product)
    const expected = values.map((product, i) => ({ id: i + 1, ...product }))
    const listed = await products.list()
    assert.deepEqual(listed, expected)
    for (const product of listed) {
      assert.equal(typeof product.id, 'number')
      assert.equal(typeof product.harga, 'number')
      assert.equal(typeof product.stok, 'number')
    }
    assert.deepEqual(await products.get(1), expected[0])
    assert.deepEqual(JSON.parse(JSON.stringify(await products.get(1))), {
      id: 1,
      nama: 'max',
      harga: 9007199254740991,
      stok: 9007199254740991,
    })
  })

  test('returned products are snapshots: changing them changes nothing stored', async () => {
    const { products } = await kind.fresh()
    const created = await products.create({ nama: 'Kopi', harga: 100, stok: 1 })
    const listed = await products.list()
    const got = await products.get(1)
    tryMutate(() => Object.assign(created, { nama: 'x', harga: 1 }))
    tryMutate(() => Object.assign(listed[0] as object, { stok: 99 }))
    tryMutate(() => Object.assign(got as object, { id: 5 }))
    tryMutate(() => listed.push({ id: 2, nama: 'y', harga: 1, stok: 1 }))
    const stored = { id: 1, nama: 'Kopi', harga: 100, stok: 1 }
    assert.deepEqual(await products.get(1), stored)
    assert.deepEqual(await products.list(), [stored])
    assert.equal(await products.get(5), undefined)
  })

  test('20 concurrent creates take ids 1 to 20, each once', async () => {
    const { products } = await kind.fresh()
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) => products.create({ nama: `p${i}`, harga: i, stok: i })),
    )
    assert.deepEqual(
      created.map((product) => product.id).sort((a, b) => a - b),
      Array.from({ length: 20 }, (_, i) => i + 1),
    )
    assert.deepEqual(
      await products.list(),
      [...created].sort((a, b) => a.id - b.id),
    )
  })
})
