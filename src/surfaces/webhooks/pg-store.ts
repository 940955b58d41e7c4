import { Signal } from '../../events/listeners.js'
import type { EventRenderers, NumberedEvent } from '../../events/pg-render.js'
import { renderEvent } from '../../events/pg-render.js'
import type { EventLog } from '../../events/store.js'
import { MAX_ID } from '../../http/path-id.js'
import type { Queryable } from '../../store/postgres/database.js'
import {
  ATTEMPTS_KEPT,
  type ClaimLimits,
  type DeliveryAttempt,
  type DueDelivery,
  type NewWebhook,
  type RecordedAttempt,
  type ReplayRange,
  type Webhook,
  type WebhookStore,
} from './store.js'

interface WebhookRow {
  id: number
  url: string
  types: string[]
  created_at: Date
}

const webhook = ({ id, url, types, created_at }: WebhookRow): Webhook => ({
  id,
  url,
  types,
  created_at: created_at.toISOString(),
})

interface AttemptRow extends Omit<DeliveryAttempt, 'time'> {
  time: Date
}

interface DueRow extends NumberedEvent {
  key: number
  webhook_id: number
  url: string
  secret: string
  attempt: number
}

const COLUMNS = 'id, url, types, created_at'

/** events_after's `size` (an integer) at most: more than EVENTS_RETAIN's largest. */
const ALL_EVENTS = 2_147_483_647

/**
 * Whether event `e`'s type is one subscription `w` selects (a type, or `<resource>.*`): as
 * events_number (migrations/008.do.numbering-holes.sql) queues deliveries.
 */
const SELECTS = "(e.type = ANY (w.types) OR split_part(e.type, '.', 1) || '.*' = ANY (w.types))"

/**
 * Subscriptions and deliveries in PostgreSQL (migrations/005.do.webhooks.sql): the sequencer of
 * `events` queues the deliveries in the transaction that numbers their events; any process
 * claims and attempts them.
 */
export class PgWebhookStore implements WebhookStore {
  /** Replays made by this process: its deliverer wakes (the others look within a second). */
  readonly #replayed = new Signal()

  constructor(
    private readonly db: Queryable,
    /** The log whose numbering queues the deliveries, and says when. */
    private readonly events: Required<Pick<EventLog, 'onQueued' | 'numbered'>>,
    private readonly renderers: EventRenderers,
  ) {}

  async create({ url, types, secret }: NewWebhook): Promise<Webhook> {
    const { rows } = await this.db.query<WebhookRow>(
      `INSERT INTO webhooks (url, types, secret, created_at) VALUES ($1, $2, $3, clock_timestamp())
       RETURNING ${COLUMNS}`,
      [url, types, secret],
    )
    return webhook(rows[0] as WebhookRow)
  }

  async list(): Promise<Webhook[]> {
    const { rows } = await this.db.query<WebhookRow>(`SELECT ${COLUMNS} FROM webhooks ORDER BY id`)
    return rows.map(webhook)
  }

  async get(id: number): Promise<Webhook | undefined> {
    const { rows } = await this.db.query<WebhookRow>(
      `SELECT ${COLUMNS} FROM webhooks WHERE id = $1`,
      [id],
    )
    return rows[0] && webhook(rows[0])
  }

  async delete(id: number): Promise<boolean> {
    const { rowCount } = await this.db.query('DELETE FROM webhooks WHERE id = $1', [id])
    return (rowCount ?? 0) > 0
  }

  async attempts(id: number): Promise<DeliveryAttempt[]> {
    const { rows } = await this.db.query<AttemptRow>(
      `SELECT event_id, attempt, status_code, error, time, duration_ms, result
       FROM webhook_attempts WHERE webhook_id = $1 ORDER BY id DESC LIMIT $2`,
      [id, ATTEMPTS_KEPT],
    )
    return rows.map(({ time, ...attempt }) => ({ ...attempt, time: time.toISOString() }))
  }

  async replay(id: number, { after, until }: ReplayRange): Promise<number | undefined> {
    // Events get their ids after their writes commit: those of the writes before this replay
    // are numbered first, so that it includes them (docs/webhooks.md#replay).
    await this.events.numbered()
    // One statement: the subscription locked against its deletion (FOR KEY SHARE; one deleted
    // meanwhile is not found), then a delivery of each kept event of the range that it selects,
    // in id order, read by events_after (migrations/007) as a stream resuming after `after`
    // reads them. Each is due now with no attempt made: the deliverer's next claim takes them.
    const size = until === undefined ? ALL_EVENTS : Math.min(until - after, ALL_EVENTS)
    const { rows } = await this.db.query<{ found: boolean; queued: number }>(
      `WITH w AS (SELECT id, types FROM webhooks WHERE id = $1 FOR KEY SHARE),
       queued AS (
         INSERT INTO webhook_deliveries (webhook_id, event_id, type, subject, time, data)
         SELECT w.id, e.id, e.type, e.subject, e.time, e.data
         FROM w, events_after($2::bigint, $3::integer) e
         WHERE e.id <= $4::bigint AND ${SELECTS}
         ORDER BY e.id
         RETURNING 1)
       SELECT EXISTS (SELECT 1 FROM w) AS found, (SELECT count(*) FROM queued)::integer AS queued`,
      [id, after, Math.max(0, size), until ?? MAX_ID],
    )
    const { found, queued } = rows[0] as { found: boolean; queued: number }
    if (!found) return undefined
    if (queued > 0) this.#replayed.emit()
    return queued
  }

  async claim({ leaseMs, perSubscription, held, shared }: ClaimLimits): Promise<DueDelivery[]> {
    // Each subscription's oldest due, up to its room, by its index (migrations/009), locked
    // with SKIP LOCKED: rows another process is claiming are skipped, and one it has claimed
    // is no longer due. Then the first of each subscription that holds none, and the oldest of
    // the rest up to the shared room (docs/webhooks.md#isolation). now(), fixed for the
    // statement, not clock_timestamp(): the index finds them.
    const { rows } = await this.db.query<DueRow>(
      `WITH room AS (
         SELECT w.id AS webhook_id, $3 - coalesce(h.held, 0) AS room, coalesce(h.held, 0) = 0 AS idle
         FROM webhooks w
         LEFT JOIN unnest($4::bigint[], $5::integer[]) AS h (webhook_id, held) ON h.webhook_id = w.id
         WHERE coalesce(h.held, 0) < $3),
       candidates AS (
         SELECT c.id, c.next_at, room.idle AND c.n = 1 AS own
         FROM room CROSS JOIN LATERAL (
           SELECT id, next_at, row_number() OVER (ORDER BY next_at, id) AS n FROM (
             SELECT id, next_at FROM webhook_deliveries
             WHERE webhook_id = room.webhook_id AND next_at <= now()
             ORDER BY next_at LIMIT room.room FOR UPDATE SKIP LOCKED) locked) c),
       chosen AS (
         SELECT id FROM candidates WHERE own
         UNION ALL
         (SELECT id FROM candidates WHERE NOT own ORDER BY next_at, id LIMIT $1))
       UPDATE webhook_deliveries d SET next_at = clock_timestamp() + $2 * interval '1 ms'
       FROM webhooks w
       WHERE d.id IN (SELECT id FROM chosen) AND w.id = d.webhook_id
       RETURNING d.id AS key, d.webhook_id, w.url, w.secret, d.attempts + 1 AS attempt,
         d.event_id AS id, d.type, d.subject, d.time, d.data`,
      [shared, leaseMs, perSubscription, [...held.keys()], [...held.values()]],
    )
    return rows.map((row) => ({
      key: row.key,
      webhookId: row.webhook_id,
      url: row.url,
      secret: row.secret,
      eventId: row.id,
      attempt: row.attempt,
      body: renderEvent(row, this.renderers),
    }))
  }

  async record(attempts: readonly RecordedAttempt[]): Promise<void> {
    if (attempts.length === 0) return
    const column = <T>(value: (recorded: RecordedAttempt) => T) => attempts.map(value)
    // One statement for every attempt: each delivery ended or put off, each attempt kept (none
    // for a subscription deleted meanwhile), the oldest beyond ATTEMPTS_KEPT of each
    // subscription forgotten. Its commit is not waited for: an attempt whose record is lost in
    // a crash of the database is made again once its claim runs out (at least once).
    await this.db.query(
      `WITH done AS (
         SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::integer[],
           $5::integer[], $6::text[], $7::integer[], $8::text[], $9::integer[]) WITH ORDINALITY
           AS t (key, webhook_id, event_id, attempt, status_code, error, duration_ms, result,
             retry_in_ms, n)),
       ended AS (
         DELETE FROM webhook_deliveries d USING done
         WHERE d.id = done.key AND done.retry_in_ms IS NULL),
       retried AS (
         UPDATE webhook_deliveries d
         SET attempts = done.attempt, next_at = clock_timestamp() + done.retry_in_ms * interval '1 ms'
         FROM done WHERE d.id = done.key AND done.retry_in_ms IS NOT NULL),
       kept AS (
         INSERT INTO webhook_attempts
           (webhook_id, event_id, attempt, status_code, error, duration_ms, result)
         SELECT done.webhook_id, event_id, attempt, status_code, error, duration_ms, result
         FROM done JOIN webhooks w ON w.id = done.webhook_id ORDER BY done.n),
       -- Where each subscription's kept attempts begin: looked up once per subscription (not
       -- once per attempt row, as the planner would if it could fold this into the deletion).
       cut AS MATERIALIZED (
         SELECT webhook_id, (
           SELECT id FROM webhook_attempts b WHERE b.webhook_id = touched.webhook_id
           ORDER BY id DESC OFFSET $10 LIMIT 1) AS oldest_forgotten
         FROM (SELECT DISTINCT webhook_id FROM done) touched),
       forgotten AS (
         DELETE FROM webhook_attempts a USING cut
         WHERE a.webhook_id = cut.webhook_id AND a.id <= cut.oldest_forgotten)
       SELECT set_config('synchronous_commit', 'off', true)`,
      [
        column(({ due }) => due.key),
        column(({ due }) => due.webhookId),
        column(({ due }) => due.eventId),
        column(({ attempt }) => attempt.attempt),
        column(({ attempt }) => attempt.status_code),
        column(({ attempt }) => attempt.error),
        column(({ attempt }) => attempt.duration_ms),
        column(({ attempt }) => attempt.result),
        column(({ retryInMs }) => retryInMs ?? null),
        // The statement's snapshot is before its own inserts: it keeps the newest before them
        // up to ATTEMPTS_KEPT, so a subscription briefly holds a few more.
        ATTEMPTS_KEPT - 1,
      ],
    )
  }

  onQueued(listener: () => void): () => void {
    const stops = [this.events.onQueued(listener), this.#replayed.subscribe(listener)]
    return () => {
      for (const stop of stops) stop()
    }
  }
}
