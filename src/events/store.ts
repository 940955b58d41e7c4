import type { EventType } from '../store/events.js'

/** An event as the log keeps it, ready to send. */
export interface StoredEvent {
  id: number
  type: EventType
  /** Who may see it where not everyone may (`dokumen.*`). */
  owner: string | undefined
  /** The CloudEvents JSON on one line (cloudEvent). */
  json: string
}

/** The ids the log holds now: the oldest it keeps (undefined when none) and the newest given. */
export interface LogBounds {
  oldest: number | undefined
  newest: number
}

/**
 * The change feed's events, one sequence in the order the changes took effect, shared by every
 * process on the same store. `EVENTS_RETAIN` most recent are kept.
 */
export interface EventLog {
  /** The kept events with an id above `after`, oldest first, at most `limit`. */
  after(after: number, limit: number): Promise<StoredEvent[]>
  bounds(): Promise<LogBounds>
  /**
   * Calls `listener` with every event this process learns of from now on (written here or by
   * another process), in id order, each once. Returns the call that stops it.
   */
  subscribe(listener: (events: StoredEvent[]) => void): () => void
  /** Events published by this process's writes, by type (metrics). */
  readonly publishedByType: ReadonlyMap<EventType, number>
  /**
   * The newest id this process knows was given out, at least the newest it has passed to its
   * listeners (0 when none): a stream opened without `after` starts after it. Never moves back.
   */
  readonly newest: number
  /**
   * Where the log's numbering also queues the webhooks' deliveries (PostgreSQL's, in one
   * transaction): calls `listener` whenever a numbering, in this process or another, queued
   * some. A log without it queues none (memory: the webhook store queues its own).
   */
  onQueued?(listener: () => void): () => void
  /**
   * Where events get their ids after their writes commit (PostgreSQL's sequencer): resolves
   * once a numbering started after the call has ended, so that every event committed before it
   * has its id (a replay includes the writes that preceded it).
   */
  numbered?(): Promise<void>
  /** Stops what the log runs in the background. */
  close(): Promise<void>
}
