import type { Queryable } from '../store/postgres/database.js'
import { fromText } from '../store/postgres/text.js'
import { type EventRenderers, type NumberedEvent, renderEvent } from './pg-render.js'
import type { LogBounds, StoredEvent } from './store.js'

interface EventRow extends NumberedEvent {
  owner: string | null
}

/** The numbered events of the PostgreSQL log as they are kept, read and rendered ready to send. */
export class PgEventReader {
  constructor(
    private readonly db: Queryable,
    private readonly renderers: EventRenderers,
  ) {}

  /** The kept events with an id above `after`, oldest first, at most `limit`. */
  async after(after: number, limit: number): Promise<StoredEvent[]> {
    const { rows } = await this.db.query<EventRow>(
      'SELECT id, type, subject, owner, time, data FROM events_after($1, $2)',
      [after, limit],
    )
    return rows.map((row) => this.#stored(row))
  }

  #stored(row: EventRow): StoredEvent {
    const { id, type, owner } = row
    const json = renderEvent(row, this.renderers)
    return { id, type, owner: owner === null ? undefined : fromText(owner), json }
  }

  async bounds(): Promise<LogBounds> {
    const { rows } = await this.db.query<{ oldest: number | null; newest: number }>(
      `SELECT (SELECT first_id FROM event_batches ORDER BY last_id LIMIT 1) AS oldest,
         coalesce((SELECT last_id FROM event_batches ORDER BY last_id DESC LIMIT 1), 0) AS newest`,
    )
    const { oldest, newest } = rows[0] as { oldest: number | null; newest: number }
    return { oldest: oldest ?? undefined, newest }
  }
}
