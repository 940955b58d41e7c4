// The in-memory store keeps its sorted views up to date on every write; this checks it against
// a naive model that filters and sorts from scratch, over random sequences of writes and reads.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { SORT_FIELDS } from '../../../src/surfaces/tugas/list-query.js'
import { MemoryTugasStore } from '../../../src/surfaces/tugas/memory-store.js'
import type { Tugas } from '../../../src/surfaces/tugas/schemas.js'
import type { TugasQuery } from '../../../src/surfaces/tugas/store.js'

// Few distinct titles, so ties (and the id tie-break) are common.
const title = fc.constantFrom('abc', 'abd', 'Abc', 'zzz', 'éclair', '😀😀😀')
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

describe('MemoryTugasStore', () => {
  test('pages always equal filter, sort (ties by id), slice from scratch', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { maxLength: 60 }), async (commands) => {
        const store = new MemoryTugasStore()
        const model = new Map<number, Tugas>()
        let nextId = 1
        for (const c of commands) {
          if (c.kind === 'create') {
            const task = await store.create({ title: c.title, status: c.status })
            assert.equal(task.id, nextId)
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
            const q = { status: undefined, sort, descending, offset: 0, limit: 100 }
            assert.deepEqual(await store.query(q), modelQuery(model, q))
          }
        }
      }),
      { numRuns: 300 },
    )
  })

  test('returned tasks are snapshots: later writes do not change them', async () => {
    const store = new MemoryTugasStore()
    const created = await store.create({ title: 'abc', status: 'belum' })
    const page = await store.query({
      status: undefined,
      sort: 'id',
      descending: false,
      offset: 0,
      limit: 10,
    })
    await store.update(created.id, { status: 'selesai' })
    assert.equal(created.status, 'belum')
    assert.equal(page.items[0]?.status, 'belum')
    assert.throws(() => {
      ;(created as { status: string }).status = 'x'
    })
  })
})
