import type { Queryable } from '../store/postgres/database.js'
import type { LogBounds } from './store.js'

/**
 * Forgets the events before the newest `retain` (EVENTS_RETAIN) once a tenth more (at most
 * 1,000) are kept: a few large deletions rather than one per numbering, and no look for the
 * oldest each time (the head of the index is where the deleted rows wait for vacuum). The
 * numbering that holds the first kept id loses the ids before it.
 */
export class Retention {
  /** The oldest id kept, as this process last knew it (another may have forgotten more). */
  #oldest: number | undefined

  constructor(
    private readonly retain: number,
    /** The log's bounds, read when the oldest is not known yet. */
    private readonly bounds: () => Promise<LogBounds>,
  ) {}

  /** Run by the numbering that gave ids up to `newest`, in its transaction (`db`). */
  async forget(db: Queryable, newest: number): Promise<void> {
    const { retain } = this
    this.#oldest ??= (await this.bounds()).oldest ?? 1
    if (newest - this.#oldest + 1 <= retain + Math.min(1000, Math.floor(retain / 10))) return
    await db.query(
      `WITH cut AS (
         SELECT last_id, first_id, seqs FROM event_batches WHERE first_id <= $1 AND last_id > $1),
       gone AS (DELETE FROM event_batches WHERE last_id <= $1 RETURNING seqs),
       trimmed AS (
         UPDATE event_batches b SET first_id = $1 + 1, seqs = cut.seqs[$1 + 2 - cut.first_id:]
         FROM cut WHERE b.last_id = cut.last_id)
       DELETE FROM events WHERE seq IN (
         SELECT unnest(seqs) FROM gone
         UNION ALL SELECT unnest(seqs[:$1 + 1 - first_id]) FROM cut)`,
      [newest - retain],
    )
    this.#oldest = newest - retain + 1
  }
}
