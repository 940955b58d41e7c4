// The DocumentStore contract, on every implementation: all documents or one owner's, both in
// id order, owners matched exactly; get; delete; ids from 1, never reused; snapshots.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Dokumen } from '../../../src/surfaces/supporting/documents/schemas.js'
import { guardedDelete, preconditionContract } from '../../support/preconditions.js'
import { forEachStore, ODD_TEXTS, tryMutate } from '../../support/stores.js'

// Owners interleaved, so each owner's documents are not adjacent in id order.
const OWNERS = ['budi', 'siti', 'Budi', 'budi', 'budi ', 'BUDI', 'siti', 'budi', 'bUdi', 'büdi']

await forEachStore('DocumentStore', (kind) => {
  preconditionContract<Dokumen>(kind, ({ documents }) => ({
    create: () => documents.create({ judul: 'Rencana', pemilik: 'budi' }),
    get: (id) => documents.get(id),
    writes: [guardedDelete((id, precondition) => documents.delete(id, precondition))],
  }))

  test('create gives { id, judul, pemilik } from id 1; list() and list({}) give all in id order; get', async () => {
    const { documents } = await kind.fresh()
    assert.deepEqual(await documents.list(), [])
    assert.deepEqual(await documents.list({ owner: 'budi' }), [])
    const expected: Dokumen[] = []
    for (const [i, pemilik] of OWNERS.entries()) {
      const document = { id: i + 1, judul: `Dokumen ${i + 1}`, pemilik }
      assert.deepEqual(await documents.create({ judul: document.judul, pemilik }), document)
      expected.push(document)
    }
    assert.deepEqual(await documents.list(), expected)
    assert.deepEqual(await documents.list({}), expected)
    assert.deepEqual(await documents.list({ owner: undefined }), expected)
    for (const document of expected) assert.deepEqual(await documents.get(document.id), document)
    for (const id of [0, -1, 11, 2 ** 53 - 1]) {
      assert.equal(await documents.get(id), undefined, `${id}`)
    }
  })

  test("list({ owner }) gives exactly that owner's documents in id order: case, spaces and accents matter", async () => {
    const { documents } = await kind.fresh()
    for (const [i, pemilik] of OWNERS.entries()) {
      await documents.create({ judul: `d${i + 1}`, pemilik })
    }
    for (const owner of new Set(OWNERS)) {
      const ids = OWNERS.flatMap((pemilik, i) => (pemilik === owner ? [i + 1] : []))
      assert.deepEqual(
        await documents.list({ owner }),
        ids.map((id) => ({ id, judul: `d${id}`, pemilik: owner })),
        JSON.stringify(owner),
      )
    }
    assert.deepEqual(
      (await documents.list({ owner: 'budi' })).map((document) => document.id),
      [1, 4, 8],
    )
    for (const owner of ['', 'bud', 'budi  ', ' budi', 'admin', 'siti%', 'b_di', '%']) {
      assert.deepEqual(await documents.list({ owner }), [], JSON.stringify(owner))
    }
  })

  test('delete is true then false; deleted documents leave both lists; ids are never reused', async () => {
    const { documents } = await kind.fresh()
    for (const [i, pemilik] of OWNERS.slice(0, 4).entries()) {
      await documents.create({ judul: `d${i + 1}`, pemilik })
    }
    assert.equal(await documents.delete(4), true)
    assert.equal(await documents.delete(4), false)
    assert.equal(await documents.delete(99), false)
    assert.equal(await documents.get(4), undefined)
    assert.deepEqual(await documents.list({ owner: 'budi' }), [
      { id: 1, judul: 'd1', pemilik: 'budi' },
    ])
    assert.deepEqual(await documents.create({ judul: 'd5', pemilik: 'budi' }), {
      id: 5,
      judul: 'd5',
      pemilik: 'budi',
    })
    assert.equal(await documents.delete(1), true)
    assert.deepEqual(await documents.list({ owner: 'budi' }), [
      { id: 5, judul: 'd5', pemilik: 'budi' },
    ])
    assert.deepEqual(
      (await documents.list()).map((document) => document.id),
      [2, 3, 5],
    )
    const deletes = await Promise.all(Array.from({ length: 10 }, () => documents.delete(2)))
    assert.equal(deletes.filter(Boolean).length, 1, `concurrent deletes: ${deletes}`)
    assert.equal((await documents.create({ judul: 'd6', pemilik: 'siti' })).id, 6)
  })

  test('returned documents are snapshots: a later delete, or changing them, changes nothing stored', async () => {
    const { documents } = await kind.fresh()
    const rahasia = { id: 1, judul: 'Rahasia', pemilik: 'budi' }
    const lain = { id: 2, judul: 'Lain', pemilik: 'siti' }
    const created = await documents.create({ judul: 'Rahasia', pemilik: 'budi' })
    await documents.create({ judul: 'Lain', pemilik: 'siti' })
    const all = await documents.list()
    const mine = await documents.list({ owner: 'budi' })
    const got = await documents.get(2)
    await documents.delete(2)
    assert.deepEqual(all, [rahasia, lain], 'a list read before the delete keeps what it read')
    assert.deepEqual(got, lain)
    tryMutate(() => Object.assign(created, { pemilik: 'siti' }))
    tryMutate(() => Object.assign(mine[0] as object, { judul: 'x', id: 2 }))
    tryMutate(() => mine.push(lain))
    tryMutate(() => Object.assign(all[0] as object, { pemilik: 'admin' }))
    assert.deepEqual(await documents.get(1), rahasia)
    assert.deepEqual(await documents.list({ owner: 'budi' }), [rahasia])
    assert.deepEqual(await documents.list({ owner: 'siti' }), [])
    assert.deepEqual(await documents.list(), [rahasia])
    assert.equal(await documents.get(2), undefined)
  })

  test('odd text is kept exactly and finds its owner exactly', async () => {
    const { documents } = await kind.fresh()
    for (const text of ODD_TEXTS) await documents.create({ judul: text, pemilik: text })
    for (const [i, text] of ODD_TEXTS.entries()) {
      assert.deepEqual(await documents.list({ owner: text }), [
        { id: i + 1, judul: text, pemilik: text },
      ])
    }
  })
})
