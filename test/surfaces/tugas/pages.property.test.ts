// Pages of the task list at every offset: after random batches of writes, several of them at
// once (on PostgreSQL, over several pool connections), every filter and order's pages, near
// either end, in the middle and past the end, equal a plain filter, sort and slice of `all()`,
// and `total` the filtered count. Thousands of tasks, so the offsets skipped from either end of
// the list (docs/performance.md#the-page-statement) are long ones.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { SORT_FIELDS } from '../../../src/surfaces/tugas/list-query.js'
import { SHALLOW_OFFSET } from '../../../src/surfaces/tugas/pg-store.js'
import type { Tugas, TugasStatus } from '../../../src/surfaces/tugas/schemas.js'
import type { TugasQuery, TugasStore } from '../../../src/surfaces/tugas/store.js'
import { forEachStore } from '../../support/stores.js'

const PARAMETERS = { numRuns: 25, includeErrorInReport: true }
const STATUS_FILTERS = [undefined, 'belum', 'selesai'] as const
/** The largest offset a client can ask for: the largest halaman at batas 100. */
const PAST_ANY_END = (Number.MAX_SAFE_INTEGER - 1) * 100

// Few distinct titles, so runs of equal titles are long; the last two sort differently in
// code-unit and code-point order.
const title = fc.constantFrom('abc', 'abd', 'Abc', 'zzz', 'éclair', '😀😀😀', '\ue000ab')
const status = fc.constantFrom('belum' as const, 'selesai' as const)
/** An index into the tasks that exist when the batch starts. */
const pick = fc.nat()
const write = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('create' as const), title, status }), weight: 4 },
  fc.record({ kind: fc.constant('replace' as const), pick, title, status }),
  fc.record({
    kind: fc.constant('update' as const),
    pick,
    title: fc.option(title, { nil: undefined }),
    status: fc.option(status, { nil: undefined }),
  }),
  fc.record({ kind: fc.constant('delete' as const), pick }),
)
type Write = typeof write extends fc.Arbitrary<infer W> ? W : never
const batch = fc.array(write, { minLength: 1, maxLength: 40 })

async function apply(store: TugasStore, ids: number[], w: Write): Promise<void> {
  const id = 'pick' in w ? (ids[w.pick % Math.max(ids.length, 1)] ?? 1) : 0
  if (w.kind === 'create') await store.create({ title: w.title, status: w.status })
  else if (w.kind === 'replace') await store.replace(id, { title: w.title, status: w.status })
  else if (w.kind === 'update') await store.update(id, { title: w.title, status: w.status })
  else await store.delete(id)
}

/** Filter, then sort with JavaScript's `<` (ties in ascending id both ways), then slice. */
function expected(tasks: Tugas[], q: TugasQuery) {
  const kept = tasks.filter((task) => q.status === undefined || task.status === q.status)
  kept.sort((a, b) => {
    const x = a[q.sort]
    const y = b[q.sort]
    const order = x < y ? -1 : x > y ? 1 : 0
    return (q.descending ? -order : order) || a.id - b.id
  })
  return { items: kept.slice(q.offset, q.offset + q.limit), total: kept.length }
}

/** Every filter and order. */
function* lists(): Generator<Omit<TugasQuery, 'offset' | 'limit'>> {
  for (const filter of STATUS_FILTERS) {
    for (const sort of SORT_FIELDS) {
      for (const descending of [false, true])
        yield { status: filter as TugasStatus, sort, descending }
    }
  }
}

/** Offsets worth checking in a list of `total`: both ends, the middle, around it, past the end. */
function offsetsOf(total: number, limit: number, seed: number): number[] {
  const middle = Math.floor(total / 2)
  const inside = total === 0 ? 0 : seed % total
  return [
    0,
    inside,
    middle - 1,
    middle,
    middle + 1,
    total - limit,
    total - 1,
    total,
    PAST_ANY_END,
  ].filter((offset) => offset >= 0)
}

async function checkPages(store: TugasStore, limits: number[], seed: number): Promise<void> {
  const tasks = await store.all()
  for (const list of lists()) {
    for (const limit of limits) {
      const total = expected(tasks, { ...list, offset: 0, limit }).total
      for (const offset of offsetsOf(total, limit, seed)) {
        const q = { ...list, offset, limit }
        assert.deepEqual(await store.query(q), expected(tasks, q), JSON.stringify(q))
      }
    }
  }
}

await forEachStore('every page of every list', (kind) => {
  test('after batches of writes, several at once', { timeout: 60_000 }, async () => {
    const store = (await kind.fresh()).tugas
    // More than twice SHALLOW_OFFSET: the PostgreSQL store's two page statements both serve,
    // and the deep one from either end.
    await store.createMany(
      Array.from({ length: 2 * SHALLOW_OFFSET + 500 }, (_, n) => ({
        title: ['abc', 'abd', 'zzz', '😀😀😀'][n % 4] as string,
        status: n % 3 === 0 ? ('selesai' as const) : ('belum' as const),
      })),
    )
    await fc.assert(
      fc.asyncProperty(batch, fc.nat(), async (writes, seed) => {
        const ids = (await store.all()).map((task) => task.id)
        await Promise.all(writes.map((w) => apply(store, ids, w)))
        await checkPages(store, [1, 7, 100], seed)
      }),
      PARAMETERS,
    )
    // Finally every page, one after the other, of every list.
    const tasks = await store.all()
    for (const list of lists()) {
      for (let offset = 0; offset <= tasks.length; offset += 7) {
        const q = { ...list, offset, limit: 7 }
        assert.deepEqual(await store.query(q), expected(tasks, q), JSON.stringify(q))
      }
    }
  })
})
