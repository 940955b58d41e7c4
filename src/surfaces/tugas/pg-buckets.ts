// The counted buckets of the task list on PostgreSQL (docs/performance.md#counted-buckets): the
// fold that moves pending rows into the bucket counts the page statement searches. The tables
// and their invariant are described in migrations/003.do.pages.sql; this module is the only
// writer of `tugas_bucket` and `tugas_directory`.
import type { Queryable } from '../../store/postgres/database.js'
import { SERIALIZATION_FAILURE, sqlState } from '../../store/postgres/errors.js'

/** The orders kept: 0 ('', id), 1 (title_key, id), 2 (title_key, -id), each ascending. */
export const ORDS = [0, 1, 2] as const
export type Ord = (typeof ORDS)[number]

export interface BucketSizes {
  /** Rows a bucket is cut to; a bucket of more than twice that is cut again. */
  bucket: number
  /** Buckets a leaf is cut to, likewise. */
  leaf: number
  /** Pending rows from which a fold counts every row again instead of adding them. */
  rebuildAt: number
}

/**
 * At most 256 index entries skipped and 64 buckets read per page; about 250 leaves per order
 * at a million tasks.
 */
export const DEFAULT_SIZES: BucketSizes = { bucket: 128, leaf: 32, rebuildAt: 50_000 }

/** How long a statement that counts every task may take: no request waits for it. */
const COUNTING_MS = 3_600_000

/** The lock a fold holds for its transaction: one fold at a time, over every process. */
const FOLD_LOCK = 7_265_738_402

/**
 * A place in an order. `n` is kept as the database's text: the first bucket's place, before
 * every row, is the smallest bigint, which a JavaScript number does not hold.
 */
interface Place {
  k: Buffer
  n: string
}

interface Counts {
  belum: number
  selesai: number
}

const total = (counts: Counts) => counts.belum + counts.selesai

/** Each order's place of a row: the expressions of k and n. */
const ORDER: Record<Ord, { k: string; n: string }> = {
  0: { k: "''::bytea", n: 'id' },
  1: { k: 'title_key', n: 'id' },
  2: { k: 'title_key', n: '-id' },
}

/** The ORDER BY of an order, as its index has it. */
const orderBy = (ord: Ord) => (ord === 0 ? 'id' : `title_key, ${ORDER[ord].n}`)

interface Bucket extends Counts {
  start: Place
}

/**
 * The rows from `from` (inclusive) to `to` (exclusive; either end of the order where not
 * given) cut into buckets of `size`, the first starting at `start`: the database numbers the
 * rows and returns only each bucket's first, with the rows before it, so that what crosses to
 * the service is one row per bucket, not per task.
 */
async function cutBetween(
  db: Queryable,
  ord: Ord,
  start: Place,
  range: { from?: Place; to?: Place; atMost?: number },
  size: number,
): Promise<Bucket[]> {
  const { k, n } = ORDER[ord]
  const values: unknown[] = [size, range.atMost ?? null]
  /** A bound on the place `[key, number]`, as the table's columns or the query's own. */
  const bound = (place: Place, operator: string, [key, number]: [string, string]) => {
    values.push(place.n)
    const id = `$${values.length}::bigint`
    if (ord === 0) return `${number} ${operator} ${id}`
    values.push(place.k)
    return `(${key}, ${number}) ${operator} ($${values.length}::bytea, ${id})`
  }
  const after = range.from === undefined ? 'true' : bound(range.from, '>=', [k, n])
  const before = range.to === undefined ? 'true' : bound(range.to, '<', ['k', 'n'])
  const { rows } = await db.query<
    Place & { before: number; beforeBelum: number; all: number; allBelum: number }
  >(
    `SELECT k, n::text AS n, row - 1 AS before, belum - (status = 'belum')::int AS "beforeBelum",
       count_all AS all, belum_all AS "allBelum"
     FROM (SELECT k, n, status, row_number() OVER w AS row,
         count(*) FILTER (WHERE status = 'belum') OVER w AS belum,
         count(*) OVER () AS count_all, count(*) FILTER (WHERE status = 'belum') OVER () AS belum_all
       -- In the order's index from the first place, at most $2 rows (null: all), then only those
       -- before the last place: given both bounds at once, the planner reads a whole run of
       -- equal titles in another index.
       FROM (SELECT * FROM (SELECT ${k} AS k, ${n} AS n, status FROM tugas WHERE ${after}
           ORDER BY ${orderBy(ord)} LIMIT $2::bigint) limited WHERE ${before}) ranged
       WINDOW w AS (ORDER BY k, n ROWS UNBOUNDED PRECEDING)) numbered
     WHERE row % $1 = 1 % $1
     ORDER BY row`,
    values,
    { waitMs: COUNTING_MS },
  )
  if (rows.length === 0) return [{ start, belum: 0, selesai: 0 }]
  return rows.map((row, at) => {
    const next = rows[at + 1]
    const all = (next?.before ?? row.all) - row.before
    const belum = (next?.beforeBelum ?? row.allBelum) - row.beforeBelum
    return { start: at === 0 ? start : { k: row.k, n: row.n }, belum, selesai: all - belum }
  })
}

function sum(items: Counts[]): Counts {
  const all = { belum: 0, selesai: 0 }
  for (const item of items) {
    all.belum += item.belum
    all.selesai += item.selesai
  }
  return all
}

/** `items` cut into runs of nearly equal length, about `size` each. */
function chunks<T>(items: T[], size: number): T[][] {
  const parts = Math.max(1, Math.round(items.length / size))
  return Array.from({ length: parts }, (_, part) =>
    items.slice(
      Math.floor((part * items.length) / parts),
      Math.floor(((part + 1) * items.length) / parts),
    ),
  )
}

/** One order's leaves as its directory row lists them. */
interface Leaf extends Counts {
  leaf: number
  buckets: number
}

/** An order's directory row, its arrays as comma-separated text (quicker to read than arrays). */
interface DirectoryRow {
  ord: Ord
  leaves: string
  buckets: string
  before_belum: string
  before_selesai: string
  belum: number
  selesai: number
}

const READ_DIRECTORY = `SELECT ord, array_to_string(leaves, ',') AS leaves,
    array_to_string(buckets, ',') AS buckets, array_to_string(before_belum, ',') AS before_belum,
    array_to_string(before_selesai, ',') AS before_selesai, belum, selesai
  FROM tugas_directory WHERE ord = ANY ($1::smallint[])`

function leavesOf(row: DirectoryRow): Leaf[] {
  const numbers = (text: string) => text.split(',').map(Number)
  const beforeBelum = numbers(row.before_belum)
  const beforeSelesai = numbers(row.before_selesai)
  const buckets = numbers(row.buckets)
  return numbers(row.leaves).map((leaf, at) => ({
    leaf,
    buckets: buckets[at] as number,
    belum: (beforeBelum[at + 1] ?? row.belum) - (beforeBelum[at] as number),
    selesai: (beforeSelesai[at + 1] ?? row.selesai) - (beforeSelesai[at] as number),
  }))
}

/** Every order's directory row, from its leaves, in one statement. */
async function writeDirectories(db: Queryable, orders: Map<Ord, Leaf[]>): Promise<void> {
  const rows = [...orders].map(([ord, leaves]) => {
    const before = { belum: 0, selesai: 0 }
    const beforeBelum: number[] = []
    const beforeSelesai: number[] = []
    for (const leaf of leaves) {
      beforeBelum.push(before.belum)
      beforeSelesai.push(before.selesai)
      before.belum += leaf.belum
      before.selesai += leaf.selesai
    }
    const array = (numbers: number[]) => `{${numbers.join(',')}}`
    return {
      ord,
      leaves: array(leaves.map((leaf) => leaf.leaf)),
      buckets: array(leaves.map((leaf) => leaf.buckets)),
      beforeAll: array(beforeBelum.map((belum, at) => belum + (beforeSelesai[at] as number))),
      beforeBelum: array(beforeBelum),
      beforeSelesai: array(beforeSelesai),
      ...before,
    }
  })
  const column = <K extends keyof (typeof rows)[number]>(name: K) => rows.map((row) => row[name])
  await db.query(
    `INSERT INTO tugas_directory
       (ord, leaves, buckets, before_all, before_belum, before_selesai, belum, selesai)
     SELECT ord, leaves::bigint[], buckets::int[], before_all::bigint[], before_belum::bigint[],
       before_selesai::bigint[], belum, selesai
     FROM unnest($1::smallint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
         $7::bigint[], $8::bigint[])
       AS given (ord, leaves, buckets, before_all, before_belum, before_selesai, belum, selesai)
     ON CONFLICT (ord) DO UPDATE SET leaves = excluded.leaves, buckets = excluded.buckets,
       before_all = excluded.before_all, before_belum = excluded.before_belum,
       before_selesai = excluded.before_selesai, belum = excluded.belum,
       selesai = excluded.selesai`,
    [
      column('ord'),
      column('leaves'),
      column('buckets'),
      column('beforeAll'),
      column('beforeBelum'),
      column('beforeSelesai'),
      column('belum'),
      column('selesai'),
    ],
  )
}

async function newLeaves(db: Queryable, count: number): Promise<number[]> {
  const { rows } = await db.query<{ leaf: number }>(
    "SELECT nextval('tugas_leaf') AS leaf FROM generate_series(1, $1)",
    [count],
  )
  return rows.map((row) => row.leaf)
}

async function insertBuckets(db: Queryable, ord: Ord, buckets: (Bucket & { leaf: number })[]) {
  await db.query(
    `INSERT INTO tugas_bucket (ord, k, n, leaf, belum, selesai)
     SELECT $1, k, n::bigint, leaf, belum, selesai
     FROM unnest($2::bytea[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[])
       AS given (k, n, leaf, belum, selesai)`,
    [
      ord,
      buckets.map((bucket) => bucket.start.k),
      buckets.map((bucket) => bucket.start.n),
      buckets.map((bucket) => bucket.leaf),
      buckets.map((bucket) => bucket.belum),
      buckets.map((bucket) => bucket.selesai),
    ],
  )
}

/** The first bucket's place, before every row of every order. */
const ORDER_START: Place = { k: Buffer.alloc(0), n: '-9223372036854775808' }

/** An order's buckets and leaves made anew from every row. */
async function rebuild(db: Queryable, ord: Ord, sizes: BucketSizes): Promise<void> {
  const buckets = await cutBetween(db, ord, ORDER_START, {}, sizes.bucket)
  const parts = chunks(buckets, sizes.leaf)
  const ids = await newLeaves(db, parts.length)
  await db.query('DELETE FROM tugas_bucket WHERE ord = $1', [ord])
  await insertBuckets(
    db,
    ord,
    parts.flatMap((part, at) => part.map((bucket) => ({ ...bucket, leaf: ids[at] as number }))),
  )
  const leaves = parts.map((part, at) => ({
    leaf: ids[at] as number,
    buckets: part.length,
    ...sum(part),
  }))
  await writeDirectories(db, new Map([[ord, leaves]]))
}

/** A bucket as the fold's count statement returns it: its new counts and what was added. */
interface Changed extends Bucket {
  ord: Ord
  leaf: number
  addedBelum: number
  addedSelesai: number
}

/**
 * Adds every pending row to the bucket of each order that holds it, in one statement: the
 * pending rows it deletes are the ones it counts. Returns the buckets changed.
 */
async function addPending(db: Queryable): Promise<Changed[]> {
  const { rows } = await db.query<Changed & { k: Buffer; n: string }>(
    `WITH pending AS (
       DELETE FROM tugas_pending WHERE seq >= 0 RETURNING status, title_key, id, sign),
     placed AS (
       SELECT o.ord, CASE WHEN o.ord = 0 THEN ''::bytea ELSE p.title_key END AS k,
         CASE WHEN o.ord = 2 THEN -p.id ELSE p.id END AS n, p.status, p.sign
       FROM pending p CROSS JOIN unnest($1::smallint[]) AS o (ord)),
     added AS (
       SELECT b.ord, b.k, b.n,
         coalesce(sum(placed.sign) FILTER (WHERE placed.status = 'belum'), 0) AS belum,
         coalesce(sum(placed.sign) FILTER (WHERE placed.status = 'selesai'), 0) AS selesai
       FROM placed CROSS JOIN LATERAL (
         SELECT t.ord, t.k, t.n FROM tugas_bucket t
         WHERE t.ord = placed.ord AND (t.k, t.n) <= (placed.k, placed.n)
         ORDER BY t.ord DESC, t.k DESC, t.n DESC LIMIT 1) b
       GROUP BY b.ord, b.k, b.n)
     UPDATE tugas_bucket t SET belum = t.belum + a.belum, selesai = t.selesai + a.selesai
     FROM added a WHERE (t.ord, t.k, t.n) = (a.ord, a.k, a.n)
     RETURNING t.ord, t.k, t.n::text AS n, t.leaf, t.belum, t.selesai,
       a.belum AS "addedBelum", a.selesai AS "addedSelesai"`,
    // A value, so that the statement is prepared once per connection, not planned each time.
    [ORDS],
    { waitMs: COUNTING_MS },
  )
  return rows.map((row) => ({ ...row, start: { k: row.k, n: row.n } }))
}

/**
 * Keeps a changed bucket between half and twice its size: one grown past twice is cut again
 * from its rows (inserted in its leaf), one below half is merged into the bucket before it in
 * its leaf when they fit in one. Returns the change in its leaf's number of buckets, or
 * undefined when its rows do not add up to its counts, which only a bug can cause (the caller
 * then rebuilds).
 */
async function resize(
  db: Queryable,
  bucket: Changed,
  sizes: BucketSizes,
): Promise<number | undefined> {
  const { ord, start } = bucket
  if (bucket.belum < 0 || bucket.selesai < 0) return undefined
  const key = [ord, start.k, start.n]
  if (total(bucket) > 2 * sizes.bucket) {
    const { rows: next } = await db.query<Place>(
      `SELECT k, n::text AS n FROM tugas_bucket WHERE ord = $1 AND (k, n) > ($2, $3::bigint)
       ORDER BY k, tugas_bucket.n LIMIT 1`,
      key,
    )
    // One row more than counted: a bucket holding more rows than its counts then shows.
    const range = { from: start, ...(next[0] && { to: next[0] }), atMost: total(bucket) + 1 }
    const pieces = await cutBetween(db, ord, start, range, sizes.bucket)
    const [first, ...rest] = pieces as [Bucket, ...Bucket[]]
    const found = sum([first, ...rest])
    if (found.belum !== bucket.belum || found.selesai !== bucket.selesai) return undefined
    await db.query(
      'UPDATE tugas_bucket SET belum = $4, selesai = $5 WHERE (ord, k, n) = ($1, $2, $3::bigint)',
      [...key, first.belum, first.selesai],
    )
    await insertBuckets(
      db,
      ord,
      rest.map((piece) => ({ ...piece, leaf: bucket.leaf })),
    )
    return rest.length
  }
  if (2 * total(bucket) >= sizes.bucket) return 0
  const { rows: previous } = await db.query<Counts & Place>(
    `SELECT k, n::text AS n, belum, selesai FROM tugas_bucket
     WHERE ord = $1 AND leaf = $4 AND (k, n) < ($2, $3::bigint) ORDER BY k DESC, tugas_bucket.n DESC LIMIT 1`,
    [...key, bucket.leaf],
  )
  const before = previous[0]
  if (before === undefined || total(before) + total(bucket) > sizes.bucket) return 0
  await db.query('DELETE FROM tugas_bucket WHERE (ord, k, n) = ($1, $2, $3::bigint)', key)
  await db.query(
    `UPDATE tugas_bucket SET belum = belum + $4, selesai = selesai + $5
     WHERE (ord, k, n) = ($1, $2, $3::bigint)`,
    [ord, before.k, before.n, bucket.belum, bucket.selesai],
  )
  return -1
}

/**
 * Keeps an order's leaves between half and twice `sizes.leaf` buckets: a leaf grown past twice
 * gives its second half to a new leaf; one below half joins the leaf before it when they fit.
 */
async function rebalance(db: Queryable, ord: Ord, leaves: Leaf[], sizes: BucketSizes) {
  const result: Leaf[] = []
  for (const leaf of leaves) {
    const previous = result.at(-1)
    if (
      2 * leaf.buckets < sizes.leaf &&
      previous &&
      previous.buckets + leaf.buckets <= sizes.leaf
    ) {
      await db.query('UPDATE tugas_bucket SET leaf = $3 WHERE ord = $1 AND leaf = $2', [
        ord,
        leaf.leaf,
        previous.leaf,
      ])
      previous.buckets += leaf.buckets
      previous.belum += leaf.belum
      previous.selesai += leaf.selesai
      continue
    }
    if (leaf.buckets <= 2 * sizes.leaf) {
      result.push(leaf)
      continue
    }
    const { rows } = await db.query<Counts & Place>(
      `SELECT k, n::text AS n, belum, selesai FROM tugas_bucket WHERE ord = $1 AND leaf = $2
       ORDER BY k, tugas_bucket.n`,
      [ord, leaf.leaf],
    )
    const parts = chunks(rows, sizes.leaf)
    const ids = [leaf.leaf, ...(await newLeaves(db, parts.length - 1))]
    // From the last part back: each takes the buckets from its first on that are left.
    for (let at = parts.length - 1; at > 0; at -= 1) {
      const first = (parts[at] as Place[])[0] as Place
      await db.query(
        `UPDATE tugas_bucket SET leaf = $4 WHERE ord = $1 AND leaf = $5
           AND (k, n) >= ($2, $3::bigint)`,
        [ord, first.k, first.n, ids[at], leaf.leaf],
      )
    }
    for (const [at, part] of parts.entries()) {
      result.push({ leaf: ids[at] as number, buckets: part.length, ...sum(part) })
    }
  }
  return result
}

export interface FoldResult {
  /** Pending rows folded into the counts. */
  folded: number
  /**
   * Whether every order's buckets were made anew from every row, and why: too many rows
   * pending, no buckets yet, or counts that did not match the rows (a bug).
   */
  rebuilt: false | 'pending' | 'new' | 'mismatch'
}

/**
 * Folds every pending row this transaction sees into the bucket counts of every order, in one
 * REPEATABLE READ transaction: the pending rows it deletes, the counts it reads and the rows
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
    // A rebuild reads every task: longer than a request's statement may take.
    await client.query(
      'SET TRANSACTION ISOLATION LEVEL REPEATABLE READ; SET LOCAL statement_timeout = 0',
    )
    const { rows: state } = await client.query<{ locked: boolean; pending: number; ords: number }>(
      `SELECT pg_try_advisory_xact_lock($1) AS locked,
         (SELECT count(*) FROM tugas_pending WHERE seq >= 0) AS pending,
         (SELECT count(*) FROM tugas_directory) AS ords`,
      [FOLD_LOCK],
    )
    const { locked, pending, ords } = state[0] as { locked: boolean; pending: number; ords: number }
    if (!locked) return undefined
    if (pending === 0) return { folded: 0, rebuilt: false }
    const rebuilt =
      pending >= sizes.rebuildAt
        ? 'pending'
        : ords < ORDS.length
          ? 'new'
          : (await add(client, sizes))
            ? false
            : 'mismatch'
    if (rebuilt !== false) {
      await client.query('DELETE FROM tugas_pending', undefined, { waitMs: COUNTING_MS })
      for (const ord of ORDS) await rebuild(client, ord, sizes)
    }
    return { folded: pending, rebuilt }
  })
}

function compareBigints(a: string, b: string): number {
  const difference = BigInt(a) - BigInt(b)
  return difference < 0n ? -1 : difference > 0n ? 1 : 0
}

/** Adds the pending rows, then resizes what they changed. False when a rebuild is needed. */
async function add(db: Queryable, sizes: BucketSizes): Promise<boolean> {
  const changed = await addPending(db)
  const { rows } = await db.query<DirectoryRow>(READ_DIRECTORY, [ORDS])
  const written = new Map<Ord, Leaf[]>()
  for (const ord of ORDS) {
    const leaves = leavesOf(rows.find((row) => row.ord === ord) as DirectoryRow)
    const byId = new Map(leaves.map((leaf) => [leaf.leaf, leaf]))
    // In the order: a bucket merged into the one before it changes that one's counts, which
    // must then have been resized already.
    const inOrder = changed
      .filter((one) => one.ord === ord)
      .sort((a, b) => Buffer.compare(a.start.k, b.start.k) || compareBigints(a.start.n, b.start.n))
    for (const bucket of inOrder) {
      const leaf = byId.get(Number(bucket.leaf))
      if (leaf === undefined) return false
      leaf.belum += bucket.addedBelum
      leaf.selesai += bucket.addedSelesai
      const grown = await resize(db, bucket, sizes)
      if (grown === undefined) return false
      leaf.buckets += grown
    }
    written.set(ord, await rebalance(db, ord, leaves, sizes))
  }
  await writeDirectories(db, written)
  return true
}

/** Writes between two folds of one process. */
export const FOLD_EVERY = 512

/**
 * Folds in the background: after every FOLD_EVERY rows this process wrote, or when a page saw
 * that many pending (rows written by other processes, or by hand), one fold, never two at once,
 * then a vacuum of the pending rows it deleted (without it the table only grows until
 * autovacuum comes, and every page reads it). The vacuum leaves the emptied pages in place for
 * the next writes: giving them back to the system takes a lock that every write waits behind,
 * and waiting for it made each vacuum last about 70 ms under writes instead of 1. A fold that
 * fails (the database away) is left for the next: pages are exact whatever is pending, only
 * slower.
 */
export class Folder {
  #written = 0
  #running: Promise<unknown> | undefined
  /** Folds that found counts not matching the rows, and rebuilt them: zero unless a bug. */
  mismatches = 0

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
    if (result?.rebuilt === 'mismatch') this.mismatches += 1
    if (result !== undefined && result.folded > 0) {
      await this.db.query('VACUUM (SKIP_LOCKED, TRUNCATE false) tugas_pending')
    }
    return result
  }

  /** Resolves when no fold is running. */
  async idle(): Promise<void> {
    await this.#running
  }
}
