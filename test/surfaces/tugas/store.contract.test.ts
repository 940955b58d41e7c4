// The TugasStore contract, on every implementation: checked against a naive model that filters
// and sorts from scratch over random sequences of writes and reads, plus comments, ids,
// snapshots and the atomic steps.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { SORT_FIELDS } from '../../../src/surfaces/tugas/list-query.js'
import type { Tugas } from '../../../src/surfaces/tugas/schemas.js'
import type { TugasQuery } from '../../../src/surfaces/tugas/store.js'
import { guardedChange, guardedDelete, preconditionContract } from '../../support/preconditions.js'
import { forEachStore, ODD_TEXTS } from '../../support/stores.js'

// Few distinct titles, so ties (and the id tie-break) are common. U+FFFD and U+E000 sort after
// an astral character in code-unit order, before it in code-point order.
const title = fc.constantFrom(
  'abc',
  'abd',
  'Abc',
  'zzz',
  'éclair',
  '😀😀😀',
  '\ue000ab',
  '\ufffdxy',
)
const status = fc.constantFrom('belum' as const, 'selesai' as const)
const id = fc.integer({ min: 1, max: 12 })
const query = fc.record({
  status: fc.constantFrom(undefined, 'belum' as const, 'selesai' as const),
  sort: fc.constantFrom(...SORT_FIELDS),
  descending: fc.boolean(),
  offset: fc.integer({ min: 0, max: 12 }),
  limit: fc.integer({ min: 1, max: 12 }),
})

const command = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), title, status }),
  fc.record({ kind: fc.constant('replace' as const), id, title, status }),
  fc.record({
    kind: fc.constant('update' as const),
    id,
    title: fc.option(title, { nil: undefined }),
    status: fc.option(status, { nil: undefined }),
  }),
  fc.record({ kind: fc.constant('delete' as const), id }),
  fc.record({ kind: fc.constant('query' as const), query }),
)

function modelQuery(tasks: Map<number, Tugas>, q: TugasQuery) {
  const kept = [...tasks.values()].filter(
    (task) => q.status === undefined || task.status === q.status,
  )
  kept.sort((a, b) => {
    const x = a[q.sort]
    const y = b[q.sort]
    const order = x < y ? -1 : x > y ? 1 : 0
    return (q.descending ? -order : order) || a.id - b.id
  })
  return { items: kept.slice(q.offset, q.offset + q.limit), total: kept.length }
}

const all = { status: undefined, sort: 'id' as const, descending: false, offset: 0, limit: 100 }

await forEachStore('TugasStore', (kind) => {
  preconditionContract<Tugas>(kind, ({ tugas }) => ({
    create: () => tugas.create({ title: 'awal', status: 'belum' }),
    get: (id) => tugas.get(id),
    writes: [
      guardedChange('replace', (id, n, precondition) =>
        tugas.replace(id, { title: `ganti ${n}`, status: 'selesai' }, precondition),
      ),
      guardedChange('update', (id, n, precondition) =>
        tugas.update(id, { title: `ubah ${n}` }, precondition),
      ),
      guardedDelete((id, precondition) => tugas.delete(id, precondition)),
    ],
  }))

  test('pages always equal filter, sort (code units, ties by id), slice from scratch', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { maxLength: 60 }), async (commands) => {
        const { stores, close } = await kind.open()
        const store = stores.tugas
        try {
          const model = new Map<number, Tugas>()
          let nextId = 1
          for (const c of commands) {
            if (c.kind === 'create') {
              const task = await store.create({ title: c.title, status: c.status })
              assert.deepEqual(task, { id: nextId, title: c.title, status: c.status })
              model.set(nextId, { id: nextId++, title: c.title, status: c.status })
            } else if (c.kind === 'replace' || c.kind === 'update') {
              const changes =
                c.kind === 'replace'
                  ? { title: c.title, status: c.status }
                  : {
                      ...(c.title !== undefined && { title: c.title }),
                      ...(c.status !== undefined && { status: c.status }),
                    }
              const result =
                c.kind === 'replace'
                  ? await store.replace(c.id, { title: c.title, status: c.status })
                  : await store.update(c.id, changes)
              const current = model.get(c.id)
              if (current === undefined) assert.equal(result, undefined)
              else {
                model.set(c.id, { ...current, ...changes })
                assert.deepEqual(result, model.get(c.id))
              }
            } else if (c.kind === 'delete') {
              assert.equal(await store.delete(c.id), model.delete(c.id))
            } else {
              assert.deepEqual(await store.query(c.query), modelQuery(model, c.query))
            }
          }
          assert.deepEqual(await store.all(), [...model.values()])
          for (const sort of SORT_FIELDS) {
            for (const descending of [false, true]) {
              for (const s of [undefined, 'belum', 'selesai'] as const) {
                const q = { status: s, sort, descending, offset: 0, limit: 100 }
                assert.deepEqual(await store.query(q), modelQuery(model, q))
              }
            }
          }
        } finally {
          await close()
        }
      }),
      { numRuns: kind.name === 'memory' ? 300 : 40 },
    )
  })

  test('deep pages after thousands of random writes equal filter, sort, slice of the same data', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer(), async (seed) => {
        const { tugas } = await kind.fresh()
        // A fixed stream of choices from the seed: thousands of writes, cheaply.
        let state = seed >>> 0
        const next = (limit: number) => {
          state = (Math.imul(state, 1664525) + 1013904223) >>> 0
          return state % limit
        }
        const titles = ['abc', 'abd', 'Abc', '😀', '\ue000', 'zz', 'm', 'éclair']
        const statuses = ['belum', 'selesai'] as const
        const model = new Map<number, Tugas>()
        for (let step = 0; step < 3000; step++) {
          const ids = [...model.keys()]
          const choice = next(10)
          const title = `${titles[next(titles.length)]}${next(40)}`
          const status = statuses[next(2)] as Tugas['status']
          if (choice < 5 || ids.length === 0) {
            const task = await tugas.create({ title, status })
            model.set(task.id, task)
          } else if (choice < 8) {
            const id = ids[next(ids.length)] as number
            const changes = next(2) === 0 ? { title } : { title, status }
            model.set(id, { ...(model.get(id) as Tugas), ...changes })
            assert.deepEqual(await tugas.update(id, changes), model.get(id))
          } else {
            const id = ids[next(ids.length)] as number
            model.delete(id)
            assert.equal(await tugas.delete(id), true)
          }
        }
        for (const sort of SORT_FIELDS) {
          for (const descending of [false, true]) {
            for (const status of [undefined, 'belum', 'selesai'] as const) {
              const size = modelQuery(model, { ...all, status, limit: 0 }).total
              for (const offset of [0, next(size + 1), size - 10, size - 3, size, size + 5]) {
                const q = { status, sort, descending, offset: Math.max(0, offset), limit: 10 }
                assert.deepEqual(await tugas.query(q), modelQuery(model, q), JSON.stringify(q))
              }
            }
          }
        }
      }),
      { numRuns: kind.name === 'memory' ? 10 : 1 },
    )
  })

  test('createMany creates each in order, into an empty store or after other tasks', async () => {
    const { tugas } = await kind.fresh()
    assert.deepEqual(await tugas.createMany([]), [])
    const inputs = [
      { title: 'zeta', status: 'belum' as const },
      { title: '😀 astral', status: 'selesai' as const },
      { title: 'alpha', status: 'belum' as const },
      { title: 'zeta', status: 'selesai' as const },
      ...ODD_TEXTS.map((title) => ({ title, status: 'belum' as const })),
    ]
    const first = await tugas.createMany(inputs)
    assert.deepEqual(
      first,
      inputs.map((input, at) => ({ id: at + 1, ...input })),
    )
    const second = await tugas.createMany(inputs.slice(0, 2))
    assert.deepEqual(
      second.map((task) => task.id),
      [inputs.length + 1, inputs.length + 2],
    )
    const model = new Map([...first, ...second].map((task) => [task.id, task]))
    for (const sort of SORT_FIELDS) {
      for (const descending of [false, true]) {
        for (const status of [undefined, 'belum', 'selesai'] as const) {
          const q = { status, sort, descending, offset: 1, limit: 7 }
          assert.deepEqual(await tugas.query(q), modelQuery(model, q))
        }
      }
    }
    assert.equal((await tugas.create({ title: 'next', status: 'belum' })).id, inputs.length + 3)
  })

  test('titles sort by UTF-16 code units, not code points or locale', async () => {
    const { tugas } = await kind.fresh()
    const titles = ['\u{1F600}abc', '\ue000abc', '\ufffdabc', 'Zebra', 'apel', 'Äpfel', 'abc']
    for (const t of titles) await tugas.create({ title: t, status: 'belum' })
    const expected = [...titles].sort()
    const page = await tugas.query({ ...all, sort: 'title' })
    assert.deepEqual(
      page.items.map((task) => task.title),
      expected,
    )
    const down = await tugas.query({ ...all, sort: 'title', descending: true })
    assert.deepEqual(
      down.items.map((task) => task.title),
      [...expected].reverse(),
    )
  })

  test('ids start at 1, increase, and are never reused after a delete', async () => {
    const { tugas } = await kind.fresh()
    const a = await tugas.create({ title: 'satu', status: 'belum' })
    const b = await tugas.create({ title: 'dua', status: 'belum' })
    assert.deepEqual([a.id, b.id], [1, 2])
    assert.equal(await tugas.delete(2), true)
    assert.equal(await tugas.delete(2), false)
    assert.equal((await tugas.create({ title: 'tiga', status: 'belum' })).id, 3)
  })

  test('returned tasks are snapshots: later writes, or changing them, change nothing else', async () => {
    const { tugas } = await kind.fresh()
    const created = await tugas.create({ title: 'abc', status: 'belum' })
    const page = await tugas.query(all)
    await tugas.update(created.id, { status: 'selesai' })
    assert.equal(created.status, 'belum')
    assert.equal(page.items[0]?.status, 'belum')
    try {
      ;(created as { status: string }).status = 'x'
    } catch {
      // Frozen: as good as a copy.
    }
    assert.deepEqual(await tugas.get(created.id), { id: 1, title: 'abc', status: 'selesai' })
  })

  test('comments: listed in id order, read by task and id, ids global; none for a missing task', async () => {
    const { tugas } = await kind.fresh()
    await tugas.create({ title: 'satu', status: 'belum' })
    await tugas.create({ title: 'dua', status: 'belum' })
    assert.deepEqual(await tugas.comments(1), [])
    assert.deepEqual(await tugas.addComment(1, 'a'), { id: 1, tugasId: 1, isi: 'a' })
    assert.deepEqual(await tugas.addComment(2, 'b'), { id: 2, tugasId: 2, isi: 'b' })
    assert.deepEqual(await tugas.addComment(1, 'c'), { id: 3, tugasId: 1, isi: 'c' })
    assert.deepEqual(await tugas.comments(1), [
      { id: 1, tugasId: 1, isi: 'a' },
      { id: 3, tugasId: 1, isi: 'c' },
    ])
    assert.deepEqual(await tugas.comment(1, 3), { id: 3, tugasId: 1, isi: 'c' })
    assert.equal(await tugas.comment(2, 3), undefined, 'comment 3 belongs to task 1')
    assert.equal(await tugas.comments(9), undefined)
    assert.equal(await tugas.addComment(9, 'x'), undefined)
    assert.equal(
      (await tugas.addComment(1, 'd'))?.id,
      4,
      'a comment refused for a missing task takes no id',
    )
  })

  test('deleting a task deletes its comments', async () => {
    const { tugas } = await kind.fresh()
    await tugas.create({ title: 'satu', status: 'belum' })
    await tugas.addComment(1, 'a')
    assert.equal(await tugas.delete(1), true)
    assert.equal(await tugas.comments(1), undefined)
    assert.equal(await tugas.comment(1, 1), undefined)
  })

  test('a comment racing the deletion of its task never outlives it', async () => {
    const { tugas } = await kind.fresh()
    for (let round = 0; round < 10; round++) {
      const task = await tugas.create({ title: `tugas ${round}`, status: 'belum' })
      const adds = Array.from({ length: 10 }, (_, i) => tugas.addComment(task.id, `k${i}`))
      const [deleted] = await Promise.all([tugas.delete(task.id), ...adds])
      assert.equal(deleted, true)
      assert.equal(await tugas.comments(task.id), undefined)
      const recreated = await tugas.create({ title: 'baru', status: 'belum' })
      assert.deepEqual(await tugas.comments(recreated.id), [])
    }
  })

  test('meta total counts each status as writes change it', async () => {
    const { tugas } = await kind.fresh()
    const total = async (s?: 'belum' | 'selesai') =>
      (await tugas.query({ ...all, status: s })).total
    await tugas.create({ title: 'satu', status: 'belum' })
    await tugas.create({ title: 'dua', status: 'selesai' })
    await tugas.create({ title: 'tiga', status: 'belum' })
    assert.deepEqual([await total(), await total('belum'), await total('selesai')], [3, 2, 1])
    await tugas.update(1, { status: 'selesai' })
    await tugas.replace(2, { title: 'dua', status: 'selesai' })
    assert.deepEqual([await total(), await total('belum'), await total('selesai')], [3, 1, 2])
    await tugas.delete(2)
    await tugas.update(3, { title: 'tiga!' })
    assert.deepEqual([await total(), await total('belum'), await total('selesai')], [2, 1, 1])
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => tugas.create({ title: `t${i}`, status: 'belum' })),
    )
    assert.deepEqual([await total(), await total('belum'), await total('selesai')], [22, 21, 1])
  })

  test('a page past the end is empty with the total intact', async () => {
    const { tugas } = await kind.fresh()
    await tugas.create({ title: 'satu', status: 'belum' })
    assert.deepEqual(await tugas.query({ ...all, offset: 5, limit: 10 }), { items: [], total: 1 })
    assert.deepEqual(await tugas.query({ ...all, offset: 9e15, limit: 100 }), {
      items: [],
      total: 1,
    })
  })

  test('odd text (U+0000, lone surrogates, backslashes) is kept exactly and sorts by code units', async () => {
    const { tugas } = await kind.fresh()
    for (const text of ODD_TEXTS) await tugas.create({ title: text, status: 'belum' })
    const byTitle = await tugas.query({ ...all, sort: 'title' })
    assert.deepEqual(
      byTitle.items.map((task) => task.title),
      [...ODD_TEXTS].sort(),
    )
    for (const [i, text] of ODD_TEXTS.entries()) {
      assert.equal((await tugas.get(i + 1))?.title, text)
      assert.equal((await tugas.addComment(i + 1, text))?.isi, text)
      assert.deepEqual(
        (await tugas.comments(i + 1))?.map((k) => k.isi),
        [text],
      )
    }
  })
})
