// One fold of the pending rows into the counted buckets (docs/performance.md#counted-buckets):
// this and the split and merge it calls are the only writers of `tugas_bucket` and
// `tugas_directory`.
import type { Queryable } from '../../../store/postgres/database.js'
import { SERIALIZATION_FAILURE, sqlState } from '../../../store/postgres/errors.js'
import { type BucketSizes, DEFAULT_SIZES, rebalance, rebuild, resize } from './resize.js'
import {
  addPending,
  COUNTING_MS,
  type DirectoryRow,
  type Leaf,
  leavesOf,
  ORDS,
  type Ord,
  READ_DIRECTORY,
  writeDirectories,
} from './statements.js'

/** The lock a fold holds for its transaction: one fold at a time, over every process. */
const FOLD_LOCK = 7_265_738_402

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
