// The fold scheduler of the task list's counted buckets on PostgreSQL
// (docs/performance.md#counted-buckets): when a process folds its pending rows into the
// counts. The fold itself is buckets/fold.ts, its split and merge buckets/resize.ts, their
// statements buckets/statements.ts.
import type { Queryable } from '../../store/postgres/database.js'
import { type FoldResult, foldPending } from './buckets/fold.js'
import { type BucketSizes, DEFAULT_SIZES } from './buckets/resize.js'

export type { FoldResult } from './buckets/fold.js'
export type { BucketSizes } from './buckets/resize.js'

/** Writes between two folds of one process. */
export const FOLD_EVERY = 512

/**
 * Folds in the background: after every FOLD_EVERY rows this process wrote, or when a page saw
 * that many pending (rows written by other processes, or by hand), one fold, never two at once,
 * then a vacuum of the pending rows it deleted (without it the table only grows until
 * autovacuum comes, and every page reads it). The vacuum leaves the emptied pages in place for
 * the next writes: giving them back to the system takes a lock that every write waits behind,
 * and under writes each vacuum would wait for it (docs/performance.md#counted-buckets). A fold
 * that fails (the database away) is left for the next: pages are exact whatever is pending,
 * only slower.
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
