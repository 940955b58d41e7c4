// The CompactStore contract (surface B), on every implementation: create, read, replace and
// delete; ids from 1, never reused; id order; snapshots; concurrent writes.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { CompactTugas } from '../../../src/surfaces/compact/schemas.js'
import { guardedChange, guardedDelete, preconditionContract } from '../../support/preconditions.js'
import { forEachStore, ODD_TEXTS, tryMutate } from '../../support/stores.js'

await forEachStore('CompactStore', (kind) => {
  preconditionContract<CompactTugas>(kind, ({ compact }) => ({
    create: () => compact.create('awal'),
    get: (id) => compact.get(id),
    writes: [
      guardedChange('replace', (id, n, precondition) =>
        compact.replace(id, { judul: `ganti ${n}`, selesai: n % 2 === 0 }, precondition),
      ),
      guardedDelete((id, precondition) => compact.delete(id, precondition)),
    ],
  }))

  test('create gives { id, judul, selesai: false } with ids from 1; get and list read them in id order', async () => {
    const { compact } = await kind.fresh()
    assert.deepEqual(await compact.list(), [])
    assert.equal(await compact.get(1), undefined)
    assert.deepEqual(await compact.create('satu'), { id: 1, judul: 'satu', selesai: false })
    assert.deepEqual(await compact.create('dua'), { id: 2, judul: 'dua', selesai: false })
    assert.deepEqual(await compact.create('satu'), { id: 3, judul: 'satu', selesai: false })
    assert.deepEqual(await compact.get(2), { id: 2, judul: 'dua', selesai: false })
    assert.deepEqual(await compact.list(), [
      { id: 1, judul: 'satu', selesai: false },
      { id: 2, judul: 'dua', selesai: false },
      { id: 3, judul: 'satu', selesai: false },
    ])
    for (const id of [0, -1, 4, 2 ** 53 - 1])
      assert.equal(await compact.get(id), undefined, `${id}`)
  })

  test('replace sets judul and selesai (booleans both ways); a missing id is undefined and adds nothing', async () => {
    const { compact } = await kind.fresh()
    await compact.create('satu')
    await compact.create('dua')
    assert.deepEqual(await compact.replace(2, { judul: 'dua!', selesai: true }), {
      id: 2,
      judul: 'dua!',
      selesai: true,
    })
    assert.deepEqual(await compact.get(2), { id: 2, judul: 'dua!', selesai: true })
    assert.deepEqual(await compact.replace(2, { judul: 'dua', selesai: false }), {
      id: 2,
      judul: 'dua',
      selesai: false,
    })
    assert.deepEqual(await compact.get(1), { id: 1, judul: 'satu', selesai: false })
    for (const id of [0, 3, 99]) {
      assert.equal(await compact.replace(id, { judul: 'x', selesai: true }), undefined, `${id}`)
    }
    assert.deepEqual(await compact.list(), [
      { id: 1, judul: 'satu', selesai: false },
      { id: 2, judul: 'dua', selesai: false },
    ])
    assert.equal((await compact.create('tiga')).id, 3, 'a refused replace takes no id')
  })

  test('delete is true then false; a deleted task is gone for get, replace and list; ids are never reused', async () => {
    const { compact } = await kind.fresh()
    for (const judul of ['satu', 'dua', 'tiga']) await compact.create(judul)
    assert.equal(await compact.delete(3), true)
    assert.equal(await compact.delete(3), false)
    assert.equal(await compact.delete(99), false)
    assert.equal(await compact.get(3), undefined)
    assert.equal(await compact.replace(3, { judul: 'x', selesai: true }), undefined)
    assert.equal(await compact.delete(1), true)
    assert.deepEqual(await compact.list(), [{ id: 2, judul: 'dua', selesai: false }])
    assert.deepEqual(await compact.create('empat'), { id: 4, judul: 'empat', selesai: false })
    assert.deepEqual(
      (await compact.list()).map((task) => task.id),
      [2, 4],
    )
  })

  test('returned tasks are snapshots: later writes, or changing them, change nothing stored', async () => {
    const { compact } = await kind.fresh()
    const created = await compact.create('abc')
    const listed = await compact.list()
    const got = await compact.get(1)
    await compact.replace(1, { judul: 'baru', selesai: true })
    assert.deepEqual(created, { id: 1, judul: 'abc', selesai: false })
    assert.deepEqual(listed, [{ id: 1, judul: 'abc', selesai: false }])
    assert.deepEqual(got, { id: 1, judul: 'abc', selesai: false })
    const replaced = await compact.get(1)
    tryMutate(() => Object.assign(created, { judul: 'x', selesai: true, id: 7 }))
    tryMutate(() => Object.assign(replaced as object, { judul: 'y', selesai: false }))
    tryMutate(() => listed.push({ id: 9, judul: 'z', selesai: false }))
    assert.deepEqual(await compact.list(), [{ id: 1, judul: 'baru', selesai: true }])
    assert.equal(await compact.get(7), undefined)
  })

  test('judul of any Unicode text round-trips exactly', async () => {
    const { compact } = await kind.fresh()
    const texts = ['😀 tugas', 'é (e\u0301)', 'مرحبا', '  spasi  ', '\ufffd\ue000', 'x'.repeat(140)]
    for (const judul of texts) await compact.create(judul)
    assert.deepEqual(
      (await compact.list()).map((task) => task.judul),
      texts,
    )
  })

  test('20 concurrent creates take ids 1 to 20, each once; concurrent deletes of one id: one true', async () => {
    const { compact } = await kind.fresh()
    const created = await Promise.all(Array.from({ length: 20 }, (_, i) => compact.create(`t${i}`)))
    assert.deepEqual(
      created.map((task) => task.id).sort((a, b) => a - b),
      Array.from({ length: 20 }, (_, i) => i + 1),
    )
    for (const task of created) assert.deepEqual(await compact.get(task.id), task)
    assert.deepEqual(
      (await compact.list()).map((task) => task.id),
      Array.from({ length: 20 }, (_, i) => i + 1),
    )
    const deletes = await Promise.all(Array.from({ length: 10 }, () => compact.delete(5)))
    assert.equal(deletes.filter(Boolean).length, 1, `deletes: ${deletes}`)
    assert.equal((await compact.list()).length, 19)
  })

  test('odd text (U+0000, lone surrogates, backslashes) is kept exactly', async () => {
    const { compact } = await kind.fresh()
    for (const text of ODD_TEXTS) await compact.create(text)
    assert.deepEqual(
      (await compact.list()).map((task) => task.judul),
      ODD_TEXTS,
    )
    assert.deepEqual(await compact.replace(1, { judul: ODD_TEXTS[1] as string, selesai: true }), {
      id: 1,
      judul: ODD_TEXTS[1],
      selesai: true,
    })
  })
})
