// Pages of the task list at every offset: after random batches of writes, several of them at
// once (on PostgreSQL, over several pool connections, with folds of the counted buckets among
// them), every filter and order's pages, near either end, in the middle and past the end, equal
// a plain filter, sort and slice of `all()`, and `total` the filtered count. On PostgreSQL the
// buckets are tiny (1,200 tasks make 300 buckets in 100 leaves per order), so that the writes
// cut, merge and re-cut buckets and leaves all the time (docs/performance.md#counted-buckets),
// and at the end the buckets are checked against the rows.
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import fc from 'fast-check'
import type { Queryable } from '../../../src/store/postgres/database.js'
import { SORT_FIELDS } from '../../../src/surfaces/tugas/list-query.js'
import { type BucketSizes, Folder } from '../../../src/surfaces/tugas/pg-buckets.js'
import { PgTugasStore, SHALLOW_OFFSET } from '../../../src/surfaces/tugas/pg-store.js'
import type { Tugas, TugasStatus } from '../../../src/surfaces/tugas/schemas.js'
import type { TugasQuery, TugasStore } from '../../../src/surfaces/tugas/store.js'
import { freshDatabase } from '../../support/postgres.js'
import { forEachStore, type StoreKind } from '../../support/stores.js'

/** Buckets of up to 8 rows, leaves of up to 6 buckets: every fold splits and merges. */
const TINY: BucketSizes = { bucket: 4, leaf: 3, rebuildAt: 400 }

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

interface Subject {
  store: TugasStore
  /** A fold of the counted buckets (PostgreSQL), or nothing. */
  fold(): Promise<unknown>
  /** Checks the counted buckets against the rows (PostgreSQL), or nothing. */
  checkDirectory(): Promise<void>
}

async function subject(kind: StoreKind): Promise<Subject> {
  if (kind.name === 'memory') {
    return {
      store: (await kind.fresh()).tugas,
      fold: async () => {},
      checkDirectory: async () => {},
    }
  }
  const db = await freshDatabase()
  after(() => db.close())
  const folder = new Folder(db, TINY, 10)
  return {
    store: new PgTugasStore(db, folder),
    fold: () => folder.fold(),
    checkDirectory: async () => {
      await folder.idle()
      assert.equal(folder.mismatches, 0, 'a fold found counts that did not match the rows')
      await checkDirectory(db)
    },
  }
}

interface BucketRow {
  ord: number
  k: Buffer
  n: string
  leaf: number
  belum: number
  selesai: number
}

interface DirectoryRow {
  ord: number
  leaves: number[]
  buckets: number[]
  before_all: number[]
  before_belum: number[]
  before_selesai: number[]
}

const compareBigints = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * With nothing pending, in every order: the first bucket starts before every row; each bucket
 * counts exactly the rows from its start to the next one's, per status, and holds at most
 * twice TINY.bucket rows; each leaf is a run of consecutive buckets, at most twice TINY.leaf,
 * listed in order with its bucket count and the rows before it.
 */
async function checkDirectory(db: Queryable): Promise<void> {
  const pending = await db.query('SELECT 1 FROM tugas_pending')
  assert.equal(pending.rowCount, 0, 'rows left pending after a fold')
  const buckets = (
    await db.query<BucketRow>(
      'SELECT ord, k, n::text AS n, leaf, belum, selesai FROM tugas_bucket b ORDER BY ord, k, b.n',
    )
  ).rows
  const directories = (
    await db.query<DirectoryRow>(
      `SELECT ord, leaves::float8[] AS leaves, buckets, before_all::float8[] AS before_all,
         before_belum::float8[] AS before_belum, before_selesai::float8[] AS before_selesai
       FROM tugas_directory`,
    )
  ).rows
  const tasks = (
    await db.query<{ id: number; key: Buffer; status: TugasStatus }>(
      'SELECT id, title_key AS key, status FROM tugas',
    )
  ).rows
  for (const ord of [0, 1, 2]) {
    const places = tasks
      .map((task) => ({
        k: ord === 0 ? Buffer.alloc(0) : task.key,
        n: BigInt(ord === 2 ? -task.id : task.id),
        status: task.status,
      }))
      .sort((a, b) => Buffer.compare(a.k, b.k) || compareBigints(a.n, b.n))
    const own = buckets.filter((bucket) => bucket.ord === ord)
    assert.deepEqual(
      [own[0]?.k.length, own[0]?.n],
      [0, '-9223372036854775808'],
      `order ${ord} start`,
    )
    let at = 0
    for (const [index, bucket] of own.entries()) {
      const next = own[index + 1]
      const counts = { belum: 0, selesai: 0 }
      while (
        at < places.length &&
        (next === undefined ||
          (Buffer.compare((places[at] as { k: Buffer }).k, next.k) ||
            compareBigints((places[at] as { n: bigint }).n, BigInt(next.n))) < 0)
      ) {
        counts[(places[at] as { status: TugasStatus }).status] += 1
        at += 1
      }
      assert.deepEqual({ belum: bucket.belum, selesai: bucket.selesai }, counts, `order ${ord}`)
      assert.ok(counts.belum + counts.selesai <= 2 * TINY.bucket, 'a bucket too large')
    }
    const directory = directories.find((row) => row.ord === ord) as DirectoryRow
    // The leaves in the directory's order are the buckets' leaves in the buckets' order.
    const runs: { leaf: number; buckets: number; rows: number; belum: number }[] = []
    for (const bucket of own) {
      const last = runs.at(-1)
      if (last?.leaf === bucket.leaf) {
        last.buckets += 1
        last.rows += bucket.belum + bucket.selesai
        last.belum += bucket.belum
      } else {
        const rows = bucket.belum + bucket.selesai
        runs.push({ leaf: bucket.leaf, buckets: 1, rows, belum: bucket.belum })
      }
    }
    assert.deepEqual(
      directory.leaves,
      runs.map((run) => run.leaf),
      `order ${ord}: leaves`,
    )
    assert.deepEqual(
      directory.buckets,
      runs.map((run) => run.buckets),
      `order ${ord}: buckets`,
    )
    for (const run of runs) assert.ok(run.buckets <= 2 * TINY.leaf, 'a leaf too large')
    let before = 0
    let beforeBelum = 0
    for (const [index, run] of runs.entries()) {
      assert.equal(directory.before_all[index], before, `order ${ord}: rows before leaf ${index}`)
      assert.equal(directory.before_belum[index], beforeBelum)
      assert.equal(directory.before_selesai[index], before - beforeBelum)
      before += run.rows
      beforeBelum += run.belum
    }
  }
}

await forEachStore('every page of every list', (kind) => {
  test('after batches of writes, several at once', { timeout: 120_000 }, async () => {
    const { store, fold, checkDirectory } = await subject(kind)
    // Far more than SHALLOW_OFFSET: the PostgreSQL store's two page statements both serve.
    await store.createMany(
      Array.from({ length: 12 * SHALLOW_OFFSET }, (_, n) => ({
        title: ['abc', 'abd', 'zzz', '😀😀😀'][n % 4] as string,
        status: n % 3 === 0 ? ('selesai' as const) : ('belum' as const),
      })),
    )
    await fc.assert(
      fc.asyncProperty(batch, fc.nat(), async (writes, seed) => {
        const ids = (await store.all()).map((task) => task.id)
        const folds = seed % 3 === 0 ? [fold(), fold()] : []
        await Promise.all([...writes.map((w) => apply(store, ids, w)), ...folds])
        await checkPages(store, [1, 7, 100], seed)
      }),
      PARAMETERS,
    )
    await fold()
    await checkDirectory()
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
