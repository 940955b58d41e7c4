// The split and merge of the counted buckets (docs/performance.md#counted-buckets): buckets
// and leaves kept between half and twice their size, or an order made anew from every row.
import type { Queryable } from '../../../store/postgres/database.js'
import {
  type Bucket,
  type Changed,
  type Counts,
  cutBetween,
  insertBuckets,
  type Leaf,
  newLeaves,
  ORDER_START,
  type Ord,
  type Place,
  writeDirectories,
} from './statements.js'

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

const total = (counts: Counts) => counts.belum + counts.selesai

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

/** An order's buckets and leaves made anew from every row. */
export async function rebuild(db: Queryable, ord: Ord, sizes: BucketSizes): Promise<void> {
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

/**
 * Keeps a changed bucket between half and twice its size: one grown past twice is cut again
 * from its rows (inserted in its leaf), one below half is merged into the bucket before it in
 * its leaf when they fit in one. Returns the change in its leaf's number of buckets, or
 * undefined when its rows do not add up to its counts, which only a bug can cause (the caller
 * then rebuilds).
 */
export async function resize(
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
export async function rebalance(db: Queryable, ord: Ord, leaves: Leaf[], sizes: BucketSizes) {
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
