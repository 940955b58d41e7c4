// The counted buckets of the task list on PostgreSQL (docs/performance.md#counted-buckets): the
// fold that moves pending rows into the directory the page statement searches. The directory
// and its invariant are described in migrations/003.do.pages.sql; this module is the only
// writer of `tugas_directory`.
import type { Queryable } from '../../store/postgres/database.js'
import { SERIALIZATION_FAILURE, sqlState } from '../../store/postgres/errors.js'
import type { TugasStatus } from './schemas.js'

/** The orders the directory keeps: 0 id, 1 title ascending, 2 title descending (ties by id). */
export const ORDS = [0, 1, 2] as const
export type Ord = (typeof ORDS)[number]

export interface BucketSizes {
  /** Rows a bucket is cut to; a bucket of more than twice that is cut again. */
  bucket: number
  /** Buckets a leaf is cut to, likewise. */
  leaf: number
  /** Pending rows from which a fold rebuilds the directory instead of adding them one by one. */
  rebuildAt: number
}

/** About 200 index entries skipped at most per page, about 70 leaves at a million tasks. */
export const DEFAULT_SIZES: BucketSizes = { bucket: 128, leaf: 110, rebuildAt: 50_000 }

/** The lock a fold holds for its transaction: one fold at a time, over every process. */
const FOLD_LOCK = 7_265_738_402

/** A place in an order: a row's key and id; null for the order's start, before every row. */
interface Point {
  key: Buffer
  id: number
}
type Start = Point | null

interface Counts {
  belum: number
  selesai: number
}

interface Bucket extends Counts {
  start: Start
}

interface Leaf extends Counts {
  node: number
  start: Start
  /** Loaded only for the leaves a fold changes. */
  buckets?: Bucket[]
}

interface Pending extends Point {
  status: TugasStatus
  sign: number
}

/** Each order's comparison of two places, as its index orders them. */
const COMPARE: Record<Ord, (a: Point, b: Point) => number> = {
  0: (a, b) => a.id - b.id,
  1: (a, b) => Buffer.compare(a.key, b.key) || a.id - b.id,
  2: (a, b) => Buffer.compare(b.key, a.key) || a.id - b.id,
}

function compareStarts(ord: Ord, a: Start, b: Start): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1
  return COMPARE[ord](a, b)
}

/** The last of `items` (sorted by start, the first one the order's start) that `point` is in. */
function holding<T extends { start: Start }>(ord: Ord, items: T[], point: Point): number {
  let low = 0
  let high = items.length - 1
  while (low < high) {
    const middle = (low + high + 1) >> 1
    if (compareStarts(ord, (items[middle] as T).start, point) <= 0) low = middle
    else high = middle - 1
  }
  return low
}

/** Each order's key and ORDER BY, and its rows from (`after`) or before (`before`) a place. */
type Bound = (key: string, id: string) => string
const ORDER: Record<Ord, { key: string; by: string; after: Bound; before: Bound }> = {
  0: { key: "''::bytea", by: 'id', after: (_, i) => `id >= ${i}`, before: (_, i) => `id < ${i}` },
  1: {
    key: 'title_key',
    by: 'title_key, id',
    after: (k, i) => `(title_key, id) >= (${k}, ${i})`,
    before: (k, i) => `(title_key, id) < (${k}, ${i})`,
  },
  2: {
    key: 'title_key',
    by: 'title_key DESC, -id DESC',
    after: (k, i) => `(title_key, -id) <= (${k}, -${i}::bigint)`,
    before: (k, i) => `(title_key, -id) > (${k}, -${i}::bigint)`,
  },
}
interface StatusRow {
  key: Buffer
  id: number
  status: TugasStatus
}

/** The rows from `from` (inclusive) to `to` (exclusive) in the order, in the snapshot of `db`. */
async function rowsBetween(db: Queryable, ord: Ord, from: Start, to: Start): Promise<StatusRow[]> {
  const { key, by, after, before } = ORDER[ord]
  const values: unknown[] = []
  const place = (point: Point) => {
    if (ord !== 0) values.push(point.key)
    values.push(point.id)
    return ord === 0 ? ['', `$${values.length}`] : [`$${values.length - 1}`, `$${values.length}`]
  }
  const where: string[] = []
  if (from !== null) where.push(after(...(place(from) as [string, string])))
  if (to !== null) where.push(before(...(place(to) as [string, string])))
  const { rows } = await db.query<StatusRow>(
    `SELECT ${key} AS key, id, status FROM tugas WHERE ${where.join(' AND ') || 'true'}
     ORDER BY ${by}`,
    values,
  )
  return rows
}

/** Cuts rows (in order) into buckets of `size`, the first starting at `start`. */
function cut(start: Start, rows: StatusRow[], size: number): Bucket[] {
  const buckets: Bucket[] = []
  rows.forEach((row, at) => {
    if (at % size === 0) {
      buckets.push({ start: at === 0 ? start : { key: row.key, id: row.id }, belum: 0, selesai: 0 })
    }
    ;(buckets.at(-1) as Bucket)[row.status] += 1
  })
  return buckets.length > 0 ? buckets : [{ start, belum: 0, selesai: 0 }]
}

const total = (counts: Counts) => counts.belum + counts.selesai

/** Neighbours merged while together they hold no more than `size` rows. */
function merged(buckets: Bucket[], size: number): Bucket[] {
  const kept: Bucket[] = []
  for (const bucket of buckets) {
    const last = kept.at(-1)
    if (last !== undefined && total(last) + total(bucket) <= size) {
      last.belum += bucket.belum
      last.selesai += bucket.selesai
    } else kept.push({ ...bucket })
  }
  return kept
}

/** `items` cut into `parts` runs of nearly equal length. */
function chunks<T>(items: T[], size: number): T[][] {
  const parts = Math.max(1, Math.round(items.length / size))
  return Array.from({ length: parts }, (_, part) =>
    items.slice(
      Math.floor((part * items.length) / parts),
      Math.floor(((part + 1) * items.length) / parts),
    ),
  )
}

function sum(items: Counts[]): Counts {
  return items.reduce(
    (all, item) => ({ belum: all.belum + item.belum, selesai: all.selesai + item.selesai }),
    {
      belum: 0,
      selesai: 0,
    },
  )
}

interface DirectoryRow {
  node: number
  keys: (Buffer | null)[]
  ids: (number | null)[]
  nodes: number[] | null
  before_belum: number[]
  before_selesai: number[]
  belum: number
  selesai: number
}

/** The driver gives bigint[] elements as strings; they are all safe integers. */
function read(row: DirectoryRow): DirectoryRow {
  const numbers = (array: unknown[]) => array.map((value) => (value === null ? null : Number(value)))
  return {
    ...row,
    ids: numbers(row.ids),
    nodes: row.nodes && (numbers(row.nodes) as number[]),
    before_belum: numbers(row.before_belum) as number[],
    before_selesai: numbers(row.before_selesai) as number[],
  }
}

const startOf = (row: DirectoryRow, at: number): Start => {
  const key = row.keys[at]
  const id = row.ids[at]
  return key === null || key === undefined || id === null || id === undefined ? null : { key, id }
}

/** A row's entries with the counts of each (the arrays hold the rows before each). */
function entriesOf(row: DirectoryRow): (Counts & { start: Start })[] {
  return row.keys.map((_, at) => {
    const next = (array: number[], whole: number) =>
      (array[at + 1] ?? whole) - (array[at] as number)
    return {
      start: startOf(row, at),
      belum: next(row.before_belum, row.belum),
      selesai: next(row.before_selesai, row.selesai),
    }
  })
}

/** Writes one directory row from its entries (counts per entry; the row keeps the rows before). */
async function writeRow(
  db: Queryable,
  ord: Ord,
  node: number,
  entries: (Counts & { start: Start; node?: number })[],
): Promise<void> {
  let belum = 0
  let selesai = 0
  const beforeBelum: number[] = []
  const beforeSelesai: number[] = []
  const beforeAll: number[] = []
  for (const entry of entries) {
    beforeBelum.push(belum)
    beforeSelesai.push(selesai)
    beforeAll.push(belum + selesai)
    belum += entry.belum
    selesai += entry.selesai
  }
  await db.query(
    `INSERT INTO tugas_directory
       (ord, node, keys, ids, nodes, before_all, before_belum, before_selesai, belum, selesai)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT (ord, node) DO UPDATE SET keys = $3, ids = $4, nodes = $5, before_all = $6,
       before_belum = $7, before_selesai = $8, belum = $9, selesai = $10`,
    [
      ord,
      node,
      entries.map((entry) => entry.start?.key ?? null),
      entries.map((entry) => entry.start?.id ?? null),
      node === 0 ? entries.map((entry) => entry.node) : null,
      beforeAll,
      beforeBelum,
      beforeSelesai,
      belum,
      selesai,
    ],
  )
}

async function newNodes(db: Queryable, count: number): Promise<number[]> {
  const { rows } = await db.query<{ node: number }>(
    "SELECT nextval('tugas_directory_node') AS node FROM generate_series(1, $1)",
    [count],
  )
  return rows.map((row) => row.node)
}

/** Replaces an order's directory with leaves of `buckets` (in order). */
async function writeLeaves(db: Queryable, ord: Ord, buckets: Bucket[], sizes: BucketSizes) {
  const parts = chunks(buckets, sizes.leaf)
  const nodes = await newNodes(db, parts.length)
  await db.query('DELETE FROM tugas_directory WHERE ord = $1', [ord])
  const leaves: Leaf[] = []
  for (const [at, part] of parts.entries()) {
    const node = nodes[at] as number
    await writeRow(db, ord, node, part)
    leaves.push({ node, start: (part[0] as Bucket).start, ...sum(part) })
  }
  await writeRow(db, ord, 0, leaves)
}

/**
 * An order's directory made anew from every row, in buckets of `sizes.bucket`: the database
 * numbers the rows in the order and returns each bucket's first, with the rows before it.
 */
async function rebuild(db: Queryable, ord: Ord, sizes: BucketSizes): Promise<void> {
  const { key, by } = ORDER[ord]
  const { rows } = await db.query<StatusRow & { before: number; beforeBelum: number }>(
    `SELECT key, id, status, n - 1 AS before,
       belum - (status = 'belum')::int AS "beforeBelum"
     FROM (SELECT ${key} AS key, id, status, row_number() OVER w AS n,
         count(*) FILTER (WHERE status = 'belum') OVER w AS belum
       FROM tugas WINDOW w AS (ORDER BY ${by} ROWS UNBOUNDED PRECEDING)) numbered
     WHERE n % $1 = 1 % $1
     ORDER BY n`,
    [sizes.bucket],
  )
  const { rows: totals } = await db.query<{ all: number; belum: number }>(
    `SELECT count(*) AS all, count(*) FILTER (WHERE status = 'belum') AS belum FROM tugas`,
  )
  const whole = totals[0] as { all: number; belum: number }
  const buckets: Bucket[] = rows.map((row, at) => {
    const next = rows[at + 1]
    const all = (next?.before ?? whole.all) - row.before
    const belum = (next?.beforeBelum ?? whole.belum) - row.beforeBelum
    return { start: at === 0 ? null : { key: row.key, id: row.id }, belum, selesai: all - belum }
  })
  await writeLeaves(
    db,
    ord,
    buckets.length > 0 ? buckets : [{ start: null, belum: 0, selesai: 0 }],
    sizes,
  )
}

/**
 * Adds pending rows to an order's directory: each to its bucket; a bucket grown past twice its
 * size is cut again from its rows, neighbours that fit in one are merged; the leaves changed
 * (with the one after each leaf grown small) are cut again into leaves. False when a bucket's
 * rows do not add up to its counts, which only a bug can cause: the caller then rebuilds.
 */
async function add(db: Queryable, ord: Ord, pending: Pending[], sizes: BucketSizes) {
  const { rows } = await db.query<DirectoryRow>(
    'SELECT * FROM tugas_directory WHERE ord = $1 AND node = 0',
    [ord],
  )
  if (rows[0] === undefined) return false
  const top = read(rows[0])
  const leaves: Leaf[] = entriesOf(top).map((entry, at) => ({
    ...entry,
    node: (top.nodes as number[])[at] as number,
  }))
  const touched = new Set(pending.map((row) => holding(ord, leaves, row)))
  // A leaf left small takes its next neighbour along, to be merged with it.
  for (const at of [...touched]) if (at + 1 < leaves.length) touched.add(at + 1)
  const loaded = await db.query<DirectoryRow>(
    'SELECT * FROM tugas_directory WHERE ord = $1 AND node = ANY ($2::bigint[])',
    [ord, [...touched].map((at) => (leaves[at] as Leaf).node)],
  )
  for (const row of loaded.rows.map(read)) {
    const leaf = leaves.find((candidate) => candidate.node === row.node) as Leaf
    leaf.buckets = entriesOf(row)
  }
  for (const row of pending) {
    const leaf = leaves[holding(ord, leaves, row)] as Leaf
    const buckets = leaf.buckets as Bucket[]
    ;(buckets[holding(ord, buckets, row)] as Bucket)[row.status] += row.sign
  }
  // Runs of consecutive loaded leaves are re-cut as one.
  const result: Leaf[] = []
  for (let at = 0; at < leaves.length; ) {
    const leaf = leaves[at] as Leaf
    if (leaf.buckets === undefined) {
      result.push(leaf)
      at += 1
      continue
    }
    const run: Bucket[] = []
    let end = at
    while (end < leaves.length && (leaves[end] as Leaf).buckets !== undefined) {
      run.push(...((leaves[end] as Leaf).buckets as Bucket[]))
      end += 1
    }
    const next = leaves[end]?.start ?? null
    const buckets: Bucket[] = []
    for (const [index, bucket] of run.entries()) {
      if (bucket.belum < 0 || bucket.selesai < 0) return false
      if (total(bucket) <= 2 * sizes.bucket) {
        buckets.push(bucket)
        continue
      }
      const to = run[index + 1]?.start ?? next
      const rowsIn = await rowsBetween(db, ord, bucket.start, to)
      const counted = cut(bucket.start, rowsIn, sizes.bucket)
      const found = sum(counted)
      if (found.belum !== bucket.belum || found.selesai !== bucket.selesai) return false
      buckets.push(...counted)
    }
    for (let old = at; old < end; old += 1) {
      await db.query('DELETE FROM tugas_directory WHERE ord = $1 AND node = $2', [
        ord,
        (leaves[old] as Leaf).node,
      ])
    }
    const parts = chunks(merged(buckets, sizes.bucket), sizes.leaf)
    const nodes = await newNodes(db, parts.length)
    for (const [index, part] of parts.entries()) {
      const node = nodes[index] as number
      await writeRow(db, ord, node, part)
      result.push({ node, start: (part[0] as Bucket).start, ...sum(part) })
    }
    at = end
  }
  await writeRow(db, ord, 0, result)
  return true
}

export interface FoldResult {
  /** Pending rows folded into the directory. */
  folded: number
  /** Whether the directory was made anew from every row. */
  rebuilt: boolean
}

/**
 * Folds every pending row this transaction sees into the directory of every order, in one
 * REPEATABLE READ transaction: the pending rows it deletes, the directory it reads and the rows
 * it counts are one snapshot. Only one fold runs at a time; another that finds the lock taken
 * returns at once, leaving the rows to the next. Undefined when it did nothing for that reason,
 * or because a fold that ended just before its lock was taken wrote after its snapshot (the
 * database then refuses its writes: a serialization failure, and the next fold sees it all).
 */
export async function foldPending(
  db: Queryable,
  sizes: BucketSizes = DEFAULT_SIZES,
): Promise<FoldResult | undefined> {
  try {
    return await foldOnce(db, sizes)
  } catch (error) {
    if (sqlState(error) === SERIALIZATION_FAILURE) return undefined
    throw error
  }
}

function foldOnce(db: Queryable, sizes: BucketSizes): Promise<FoldResult | undefined> {
  return db.transaction(async (client) => {
    await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ')
    // A rebuild reads every task: longer than a request's statement may take.
    await client.query('SET LOCAL statement_timeout = 0')
    const { rows: locked } = await client.query<{ locked: boolean }>(
      'SELECT pg_try_advisory_xact_lock($1) AS locked',
      [FOLD_LOCK],
    )
    if (!locked[0]?.locked) return undefined
    const { rows: pending } = await client.query<Pending>(
      'DELETE FROM tugas_pending RETURNING status, title_key AS key, id, sign',
    )
    if (pending.length === 0) return { folded: 0, rebuilt: false }
    let rebuilt = pending.length >= sizes.rebuildAt
    for (const ord of ORDS) {
      if (!rebuilt && !(await add(client, ord, pending, sizes))) rebuilt = true
    }
    if (rebuilt) for (const ord of ORDS) await rebuild(client, ord, sizes)
    return { folded: pending.length, rebuilt }
  })
}

/** Writes between two folds of one process. */
export const FOLD_EVERY = 64

/**
 * Folds in the background: after every FOLD_EVERY rows this process wrote, or when a page saw
 * that many pending (rows written by other processes, or by hand), one fold, never two at once,
 * then a vacuum of the pending rows it deleted (without it the table only grows until
 * autovacuum comes, and every page reads it). A fold that fails (the database away) is left for
 * the next: pages are exact whatever is pending, only slower.
 */
export class Folder {
  #written = 0
  #running: Promise<unknown> | undefined

  constructor(
    private readonly db: Queryable,
    private readonly sizes: BucketSizes = DEFAULT_SIZES,
    private readonly every = FOLD_EVERY,
  ) {}

  written(rows: number): void {
    this.#written += rows
    if (this.#written >= this.every) this.#start()
  }

  /** A page saw `rows` pending. */
  seen(rows: number): void {
    if (rows >= this.every) this.#start()
  }

  #start(): void {
    if (this.#running !== undefined) return
    this.#written = 0
    this.#running = this.fold()
      .catch(() => undefined)
      .finally(() => {
        this.#running = undefined
      })
  }

  /** One fold now, and the vacuum after it. */
  async fold(): Promise<FoldResult | undefined> {
    const result = await foldPending(this.db, this.sizes)
    if (result !== undefined && result.folded > 0) {
      await this.db.query('VACUUM (SKIP_LOCKED) tugas_pending')
    }
    return result
  }

  /** Resolves when no fold is running. */
  async idle(): Promise<void> {
    await this.#running
  }
}
