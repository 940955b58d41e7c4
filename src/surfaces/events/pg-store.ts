import pg from 'pg'
import type { EventResource, EventType } from '../../store/events.js'
import { resourceOf } from '../../store/events.js'
import type { Database, Queryable } from '../../store/postgres/database.js'
import { fromText } from '../../store/postgres/text.js'
import { cloudEvent } from './cloud-event.js'
import { countType, Listeners, Signal } from './listeners.js'
import { OnceAtATime } from './once-at-a-time.js'
import { NUMBERING_BATCH, numberEvents } from './pg-sequencer.js'
import type { EventLog, LogBounds, StoredEvent } from './store.js'

/** Each resource's item from its written row as JSON (the outbox's `data`); deletions are `{ id }`. */
export type EventRenderers = Partial<
  Record<EventResource, (row: Record<string, unknown>) => unknown>
>

/**
 * The least time between the starts of two numberings in a row, under a stream of writes (see
 * #numberOnce). Each numbering costs the service and the database a transaction: measured
 * against creates that store no event, 5 ms gave 0.79 of their rate, 50 ms 0.79 to 0.89.
 */
const SEQUENCE_GAP_MS = 50

/** Events read per statement: as many as one numbering gives at most. */
const BATCH = NUMBERING_BATCH

/** How often each process numbers and reads without being told (a process that died between
 * its commit and its sequencer's run, a notification lost while the listener reconnected). */
const TICK_MS = 1000
/** The same without a listening connection (behind a pooler with no direct URL). */
const TICK_WITHOUT_LISTENER_MS = 100

export interface PgEventLogOptions {
  /** Where statements run: the pool. */
  db: Database
  /** The connection the sequencer runs on, never one a request waits for. */
  sequencer: Database
  /** A URL reaching PostgreSQL itself for LISTEN; undefined: none, read every 100 ms. */
  listenUrl: string | undefined
  retain: number
  renderers: EventRenderers
}

/** An event as the outbox stores it, its id given. */
export interface OutboxEvent {
  id: number
  type: EventType
  subject: string
  time: Date
  /** The written row's columns as JSON. */
  data: string
}

interface EventRow extends OutboxEvent {
  owner: string | null
}

/** The CloudEvents JSON of an event the outbox stores, its data rendered as the item read. */
export function renderEvent(
  { id, type, subject, time, data }: OutboxEvent,
  renderers: EventRenderers,
): string {
  const row = JSON.parse(data) as Record<string, unknown>
  const render = type.endsWith('.deleted') ? undefined : renderers[resourceOf(type)]
  return cloudEvent({
    id,
    type,
    subject: fromText(subject),
    time,
    data: render ? render(row) : row,
  })
}

/**
 * The events of the PostgreSQL stores (migrations/004.do.events.sql): written by the writes
 * themselves, numbered after commit by the sequencer, which any process runs (one at a time),
 * and announced by NOTIFY to one listening connection per process, which reads what is new
 * once for all of the process's streams.
 */
export class PgEventLog implements EventLog {
  readonly #listeners = new Listeners()
  readonly #queued = new Signal()
  readonly publishedByType = new Map<EventType, number>()
  #channel = ''
  #listener: pg.Client | undefined
  #tick: NodeJS.Timeout | undefined
  #closed = false
  readonly #numbering = new OnceAtATime(() => this.#numberOnce(), SEQUENCE_GAP_MS)
  readonly #reading = new OnceAtATime(() => this.#readNew())
  /** The newest id a notification or this process's sequencer announced. */
  #announced = 0
  /** The oldest id kept, as this process last knew it (another may have forgotten more). */
  #oldest: number | undefined

  constructor(private readonly options: PgEventLogOptions) {}

  /** Numbers what a previous run left, and starts listening from the newest event. */
  async start(): Promise<void> {
    const { rows } = await this.options.db.query<{ schema: string }>(
      'SELECT current_schema() AS schema',
    )
    // Per schema: several services may share one database.
    this.#channel = `tugas_events_${rows[0]?.schema ?? 'public'}`
    await this.#sequence()
    this.#listeners.newest = (await this.bounds()).newest
    if (this.options.listenUrl !== undefined) await this.#listen(this.options.listenUrl)
    const every = this.options.listenUrl === undefined ? TICK_WITHOUT_LISTENER_MS : TICK_MS
    this.#tick = setInterval(() => {
      this.#number()
      this.#read()
    }, every)
    this.#tick.unref()
  }

  /** A write's event is committed: number it (and whatever else waits), then tell everyone. */
  readonly published = (type: EventType): void => {
    countType(this.publishedByType, type)
    this.#number()
  }

  /** Runs the sequencer, once at a time, again when asked meanwhile. */
  #number(): void {
    if (!this.#closed) this.#numbering.ask()
  }

  async #numberOnce(): Promise<void> {
    try {
      this.#announce(await this.#sequence())
    } catch {
      // The database away: the next write or tick numbers it.
      return
    }
    this.#read()
  }

  /**
   * One numbering (numberEvents: it numbers what is new, queues the deliveries of the webhooks
   * subscribed to it and NOTIFYs every process's listener), then, past `retain`, the oldest
   * are forgotten, under the same lock. The newest id, or undefined when nothing was new.
   */
  async #sequence(): Promise<number | undefined> {
    const numbered = await this.options.sequencer.transaction(async (client) => {
      const numbering = await numberEvents(client, this.#channel, BATCH)
      if (numbering !== undefined) await this.#forget(client, numbering.newest)
      return numbering
    })
    if (numbered === undefined) return undefined
    if (numbered.queued > 0) this.#queued.emit()
    return numbered.newest
  }

  /**
   * Forgets the events before the newest `retain` once a tenth more (at most 1,000) are kept: a
   * few large deletions rather than one per numbering, and no look for the oldest each time
   * (the head of the index is where the deleted rows wait for vacuum). The numbering that
   * holds the first kept id loses the ids before it.
   */
  async #forget(db: Queryable, newest: number): Promise<void> {
    const { retain } = this.options
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

  async #listen(url: string): Promise<void> {
    const client = new pg.Client({ connectionString: url, application_name: 'tugas events' })
    client.on('notification', ({ payload = '' }) => {
      const [newest, queued] = payload.split(',').map(Number)
      this.#announce(newest)
      if (queued !== undefined && queued > 0) this.#queued.emit()
      this.#read()
    })
    // A lost connection: listen again a second later, then read what was missed meanwhile.
    const again = () => {
      if (this.#listener !== client || this.#closed) return
      this.#listener = undefined
      client.end().catch(() => {})
      setTimeout(() => {
        if (this.#closed) return
        this.#listen(url)
          .then(() => this.#read())
          .catch(again)
      }, 1000).unref()
    }
    client.on('error', again)
    client.on('end', again)
    this.#listener = client
    await client.connect()
    // Like the tick, it never keeps the process alive by itself: the server does, while it runs.
    ;(
      client as unknown as { connection?: { stream?: { unref?(): void } } }
    ).connection?.stream?.unref?.()
    await client.query(`LISTEN "${this.#channel}"`)
  }

  #announce(newest: number | undefined): void {
    if (newest !== undefined && newest > this.#announced) this.#announced = newest
  }

  /**
   * Reads what is new since the newest event passed on, and passes it on: once at a time. With
   * no stream listening nothing is read (nor rendered): the newest announced is only noted, so
   * that a stream opened later starts after it.
   */
  #read(): void {
    if (!this.#listeners.listening) {
      if (this.#announced > this.#listeners.newest) this.#listeners.newest = this.#announced
      return
    }
    if (!this.#closed) this.#reading.ask()
  }

  async #readNew(): Promise<void> {
    try {
      let events: StoredEvent[]
      do {
        events = await this.after(this.#listeners.newest, BATCH)
        this.#listeners.emit(events)
      } while (events.length === BATCH && !this.#closed)
    } catch {
      // The database away: the next notification or tick reads it.
    }
  }

  async after(after: number, limit: number): Promise<StoredEvent[]> {
    const { rows } = await this.options.db.query<EventRow>(
      'SELECT id, type, subject, owner, time, data FROM events_after($1, $2)',
      [after, limit],
    )
    return rows.map((row) => this.#stored(row))
  }

  #stored(row: EventRow): StoredEvent {
    const { id, type, owner } = row
    const json = renderEvent(row, this.options.renderers)
    return { id, type, owner: owner === null ? undefined : fromText(owner), json }
  }

  async bounds(): Promise<LogBounds> {
    const { rows } = await this.options.db.query<{ oldest: number | null; newest: number }>(
      `SELECT (SELECT first_id FROM event_batches ORDER BY last_id LIMIT 1) AS oldest,
         coalesce((SELECT last_id FROM event_batches ORDER BY last_id DESC LIMIT 1), 0) AS newest`,
    )
    const { oldest, newest } = rows[0] as { oldest: number | null; newest: number }
    return { oldest: oldest ?? undefined, newest }
  }

  subscribe(listener: (events: StoredEvent[]) => void): () => void {
    return this.#listeners.subscribe(listener)
  }

  /** Calls `listener` whenever a numbering, here or in another process, queued deliveries. */
  onQueued(listener: () => void): () => void {
    return this.#queued.subscribe(listener)
  }

  /** The newest id numbered as far as this process knows: a stream opened now starts after it,
   * also while the events up to it are still being read for the streams already open. */
  get newest(): number {
    return Math.max(this.#listeners.newest, this.#announced)
  }

  async close(): Promise<void> {
    this.#closed = true
    clearInterval(this.#tick)
    const listener = this.#listener
    this.#listener = undefined
    await Promise.all([
      listener?.end().catch(() => {}),
      this.#numbering.idle(),
      this.#reading.idle(),
    ])
  }
}
