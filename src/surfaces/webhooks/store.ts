/** A subscription as the API shows it after its creation: never its secret. */
export interface Webhook {
  id: number
  url: string
  /** As sent: event types, or `<resource>.*`. */
  types: string[]
  created_at: string
}

/** A subscription as it is created: its secret is shown once, in the creation's answer. */
export interface NewWebhook {
  url: string
  types: string[]
  secret: string
}

/** What came of one delivery after an attempt: over (one way or the other), or to be retried. */
export type AttemptResult = 'delivered' | 'retrying' | 'failed'

/** One attempt, as `GET /webhooks/<id>/deliveries` lists it. */
export interface DeliveryAttempt {
  event_id: number
  attempt: number
  /** The receiver's status; null when no answer came. */
  status_code: number | null
  /** Why no answer came (timeout, refused); null when one did. */
  error: string | null
  time: string
  duration_ms: number
  result: AttemptResult
}

/** A delivery claimed by this process, ready to attempt. */
export interface DueDelivery {
  /** The delivery's own key in its store. */
  key: number
  webhookId: number
  url: string
  secret: string
  eventId: number
  /** This attempt's number, from 1. */
  attempt: number
  /** The event's CloudEvents JSON: the body. */
  body: string
}

/**
 * How many deliveries a process may claim (docs/webhooks.md#isolation): each subscription gets
 * at most `perSubscription` in flight, and its first one always (a subscription with none in
 * flight is never held back by others); every other one comes out of `shared`.
 */
export interface ClaimLimits {
  /** How long each claimed delivery is held for this process. */
  leaseMs: number
  /** At most this many of one subscription in flight in this process. */
  perSubscription: number
  /** This process's attempts in flight, by subscription id. */
  held: ReadonlyMap<number, number>
  /** At most this many beyond the first of each subscription that holds none. */
  shared: number
}

/** An attempt made, to record. */
export interface RecordedAttempt {
  due: DueDelivery
  attempt: Omit<DeliveryAttempt, 'time'>
  /**
   * Undefined: the delivery is over; otherwise it is due again in this many milliseconds (at
   * most a day, backoff.ts).
   */
  retryInMs?: number
}

/**
 * The events a replay queues again (docs/webhooks.md#replay): ids above `after`, up to `until`
 * included (undefined: up to the newest). Both within MAX_ID.
 */
export interface ReplayRange {
  after: number
  until: number | undefined
}

/** How many attempts `GET /webhooks/<id>/deliveries` keeps per subscription, newest first. */
export const ATTEMPTS_KEPT = 100

/**
 * The subscriptions and their pending deliveries (docs/webhooks.md). A delivery is created for
 * every event of a subscribed type from the subscription's creation on; the deliverer claims
 * those due, attempts them, and records each attempt.
 */
export interface WebhookStore {
  create(webhook: NewWebhook): Promise<Webhook>
  list(): Promise<Webhook[]>
  get(id: number): Promise<Webhook | undefined>
  /** False when there was none: its pending deliveries and attempts go with it. */
  delete(id: number): Promise<boolean>
  /** The subscription's most recent attempts (ATTEMPTS_KEPT at most), newest first. */
  attempts(id: number): Promise<DeliveryAttempt[]>
  /**
   * Deliveries due now, as many as `limits` allow, each held for this process for
   * `limits.leaseMs`: no other claims it meanwhile, and once the lease is over (the process
   * died during the attempt) it is due again. The oldest due first within each subscription
   * and within the shared ones.
   */
  claim(limits: ClaimLimits): Promise<DueDelivery[]>
  /**
   * Records attempts, each of its delivery: `retryInMs` undefined ends the delivery (delivered
   * or failed), otherwise it is due again that many milliseconds from now. Several at once: one
   * statement for all of them on PostgreSQL.
   */
  record(attempts: readonly RecordedAttempt[]): Promise<void>
  /**
   * Queues a new delivery to subscription `id` (attempts from 1, due now) of every event the log
   * still keeps in `range` whose type it selects, in id order: one atomic step, so a delivery
   * is queued for each or for none, and never for a subscription deleted meanwhile. Events no
   * longer kept are skipped. Undefined when there is no such subscription, else how many were
   * queued; the deliverer is told (onQueued).
   */
  replay(id: number, range: ReplayRange): Promise<number | undefined>
  /**
   * Calls `listener` when deliveries may have become due (new events, a replay): the deliverer
   * wakes.
   * Where the store queues them itself (memory; a replay on any store), it tells; where the
   * event log's numbering does (PostgreSQL), the log tells (EventLog.onQueued).
   */
  onQueued(listener: () => void): () => void
}
