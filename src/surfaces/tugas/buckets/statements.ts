// The statements of the counted buckets (docs/performance.md#counted-buckets): the places of
// the three orders, the cut of a range of rows into buckets, the directory's rows, and the
// one statement that adds the pending rows to their buckets. The tables and their invariant
// are described in migrations/003.do.pages.sql.
import type { Queryable } from '../../../store/postgres/database.js'

/** The orders kept: 0 ('', id), 1 (title_key, id), 2 (title_key, -id), each ascending. */
export const ORDS = [0, 1, 2] as const
export type Ord = (typeof ORDS)[number]

/** How long a statement that counts every task may take: no request waits for it. */
export const COUNTING_MS = 3_600_000

/**
 * A place in an order. `n` is kept as the database's text: the first bucket's place, before
 * every row, is the smallest bigint, which a JavaScript number does not hold.
 */
export interface Place {
  k: Buffer
  n: string
}

export interface Counts {
  belum: number
  selesai: number
}

/** Each order's place of a row: the expressions of k and n. */
const ORDER: Record<Ord, { k: string; n: string }> = {
  0: { k: "''::bytea", n: 'id' },
  1: { k: 'title_key', n: 'id' },
  2: { k: 'title_key', n: '-id' },
}

/** The ORDER BY of an order, as its index has it. */
const orderBy = (ord: Ord) => (ord === 0 ? 'id' : `title_key, ${ORDER[ord].n}`)

export interface Bucket extends Counts {
  start: Place
}

/**
 * The rows from `from` (inclusive) to `to` (exclusive; either end of the order where not
 * given) cut into buckets of `size`, the first starting at `start`: the database numbers the
 * rows and returns only each bucket's first, with the rows before it, so that what crosses to
 * the service is one row per bucket, not per task.
 */
export async function cutBetween(
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

/** One order's leaves as its directory row lists them. */
export interface Leaf extends Counts {
  leaf: number
  buckets: number
}

/** An order's directory row, its arrays as comma-separated text (quicker to read than arrays). */
export interface DirectoryRow {
  ord: Ord
  leaves: string
  buckets: string
  before_belum: string
  before_selesai: string
  belum: number
  selesai: number
}

export const READ_DIRECTORY = `SELECT ord, array_to_string(leaves, ',') AS leaves,
    array_to_string(buckets, ',') AS buckets, array_to_string(before_belum, ',') AS before_belum,
    array_to_string(before_selesai, ',') AS before_selesai, belum, selesai
  FROM tugas_directory WHERE ord = ANY ($1::smallint[])`

export function leavesOf(row: DirectoryRow): Leaf[] {
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
export async function writeDirectories(db: Queryable, orders: Map<Ord, Leaf[]>): Promise<void> {
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

export async function newLeaves(db: Queryable, count: number): Promise<number[]> {
  const { rows } = await db.query<{ leaf: number }>(
    "SELECT nextval('tugas_leaf') AS leaf FROM generate_series(1, $1)",
    [count],
  )
  return rows.map((row) => row.leaf)
}

export async function insertBuckets(
  db: Queryable,
  ord: Ord,
  buckets: (Bucket & { leaf: number })[],
) {
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
export const ORDER_START: Place = { k: Buffer.alloc(0), n: '-9223372036854775808' }

/** A bucket as the fold's count statement returns it: its new counts and what was added. */
export interface Changed extends Bucket {
  ord: Ord
  leaf: number
  addedBelum: number
  addedSelesai: number
}

/**
 * Adds every pending row to the bucket of each order that holds it, in one statement: the
 * pending rows it deletes are the ones it counts. Returns the buckets changed.
 */
export async function addPending(db: Queryable): Promise<Changed[]> {
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
