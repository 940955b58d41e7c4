import type { EventType } from '../events.js'

/** The event a PostgreSQL write stores with its change (migrations/004.do.events.sql). */
export interface OutboxEvent {
  type: EventType
  /** SQL over the written row's columns: the subject; its id when left out. */
  subject?: string
  /** SQL over the written row's columns: who may see the event (dokumen.*). */
  owner?: string
}

/**
 * `statement` (an INSERT, UPDATE or DELETE without its RETURNING) returning `columns`, with the
 * event of each row it writes inserted by the same statement: both are committed together or
 * not at all. The event's data is the row's `columns` as JSON (rendered as the item read by the
 * service: src/events/pg-render.ts), or `{ id }` for a deletion. Fixed texts per type,
 * so each stays one prepared statement.
 */
export function publishing(statement: string, columns: string, event: OutboxEvent): string {
  const data = event.type.endsWith('.deleted')
    ? "json_build_object('id', id)::text"
    : 'row_to_json(written)::text'
  return `WITH written AS (${statement} RETURNING ${columns}),
    published AS (INSERT INTO events (type, subject, owner, data)
      SELECT '${event.type}', ${event.subject ?? 'id::text'}, ${event.owner ?? 'NULL'}, ${data}
      FROM written)
    SELECT * FROM written`
}

/**
 * How a PostgreSQL store publishes: called with the event's type once a write's event is
 * committed (the sequencer numbers it). A store without one publishes nothing (the seed's).
 */
export type Published = (type: EventType) => void
