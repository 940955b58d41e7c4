import type { Queryable } from '../../store/postgres/database.js'
import type { EventRenderers, OutboxEvent, PgEventLog } from '../events/pg-store.js'
import { renderEvent } from '../events/pg-store.js'
import {
  ATTEMPTS_KEPT,
  type DeliveryAttempt,
  type DueDelivery,
  type NewWebhook,
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

interface DueRow extends OutboxEvent {
  key: number
  webhook_id: number
  url: string
  secret: string
  attempt: number
}

const COLUMNS = 'id, url, types, created_at'

/**
 * Subscriptions and deliveries in PostgreSQL (migrations/005.do.webhooks.sql): the sequencer of
 * `events` queues the deliveries in the transaction that numbers their events; any process
 * claims and attempts them.
 */
export class PgWebhookStore implements WebhookStore {
  constructor(
    private readonly db: Queryable,
    private readonly events: Pick<PgEventLog, 'onQueued'>,
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

  async claim(limit: number, leaseMs: number): Promise<DueDelivery[]> {
    // Rows another process is claiming are skipped, and one it has claimed is no longer due.
    const { rows } = await this.db.query<DueRow>(
      `UPDATE webhook_deliveries d SET next_at = clock_timestamp() + $2 * interval '1 ms'
       FROM webhooks w
       WHERE d.id IN (
           SELECT id FROM webhook_deliveries WHERE next_at <= clock_timestamp()
           ORDER BY next_at LIMIT $1 FOR UPDATE SKIP LOCKED)
         AND w.id = d.webhook_id
       RETURNING d.id AS key, d.webhook_id, w.url, w.secret, d.attempts + 1 AS attempt,
         d.event_id AS id, d.type, d.subject, d.time, d.data`,
      [limit, leaseMs],
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

  async record(
    due: DueDelivery,
    attempt: Omit<DeliveryAttempt, 'time'>,
    retryInMs?: number,
  ): Promise<void> {
    // One statement: the delivery ended or put off, its attempt kept, the oldest beyond
    // ATTEMPTS_KEPT forgotten. Nothing is kept for a subscription deleted meanwhile.
    await this.db.query(
      `WITH ended AS (
         DELETE FROM webhook_deliveries WHERE id = $1 AND $9::integer IS NULL),
       retried AS (
         UPDATE webhook_deliveries
         SET attempts = $4, next_at = clock_timestamp() + $9 * interval '1 ms'
         WHERE id = $1 AND $9::integer IS NOT NULL),
       kept AS (
         INSERT INTO webhook_attempts
           (webhook_id, event_id, attempt, status_code, error, duration_ms, result)
         SELECT id, $3, $4, $5, $6, $7, $8 FROM webhooks WHERE id = $2)
       DELETE FROM webhook_attempts WHERE webhook_id = $2 AND id <= (
         SELECT id FROM webhook_attempts WHERE webhook_id = $2
         ORDER BY id DESC OFFSET $10 LIMIT 1)`,
      [
        due.key,
        due.webhookId,
        due.eventId,
        attempt.attempt,
        attempt.status_code,
        attempt.error,
        attempt.duration_ms,
        attempt.result,
        retryInMs ?? null,
        ATTEMPTS_KEPT - 1,
      ],
    )
  }

  onQueued(listener: () => void): () => void {
    return this.events.onQueued(listener)
  }
}
