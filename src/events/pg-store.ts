import type { EventType } from '../store/events.js'
import type { Database } from '../store/postgres/database.js'
import { countType, Listeners, Signal } from './listeners.js'
import { OnceAtATime } from './once-at-a-time.js'
import { EventsListener, eventsChannel } from './pg-listener.js'
import { NumberingSchedule } from './pg-numbering-schedule.js'
import { PgEventReader } from './pg-reader.js'
import type { EventRenderers } from './pg-render.js'
import { Retention } from './pg-retention.js'
import { NUMBERING_BATCH } from './pg-sequencer.js'
import type { EventLog, LogBounds, StoredEvent } from './store.js'

/** Events read per statement: as many as one numbering gives at most. */
const BATCH = NUMBERING_BATCH

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

/**
 * The events of the PostgreSQL stores (migrations/004.do.events.sql): written by the writes
 * themselves, numbered after commit by the sequencer, which any process runs (one at a time:
 * pg-numbering-schedule.ts), and announced by NOTIFY to one listening connection per process
 * (pg-listener.ts), which reads what is new once for all of the process's streams.
 */
export class PgEventLog implements EventLog {
  readonly #listeners = new Listeners()
  readonly #queued = new Signal()
  readonly publishedByType = new Map<EventType, number>()
  readonly #reader: PgEventReader
  readonly #numbering: NumberingSchedule
  #listener: EventsListener | undefined
  #closed = false
  readonly #reading = new OnceAtATime(() => this.#readNew())
  /** The newest id a notification or this process's sequencer announced. */
  #announced = 0

  constructor(private readonly options: PgEventLogOptions) {
    this.#reader = new PgEventReader(options.db, options.renderers)
    this.#numbering = new NumberingSchedule({
      sequencer: options.sequencer,
      retention: new Retention(options.retain, () => this.bounds()),
      queued: () => this.#queued.emit(),
      numbered: (newest) => {
        this.#announce(newest)
        this.#read()
      },
    })
  }

  /** Numbers what a previous run left, and starts listening from the newest event. */
  async start(): Promise<void> {
    const channel = await eventsChannel(this.options.db)
    await this.#numbering.start(channel)
    this.#listeners.newest = (await this.bounds()).newest
    const { listenUrl } = this.options
    if (listenUrl !== undefined) {
      this.#listener = new EventsListener(listenUrl, channel, {
        notified: (newest, queued) => {
          this.#announce(newest)
          if (queued !== undefined && queued > 0) this.#queued.emit()
          this.#read()
        },
        reconnected: () => this.#read(),
      })
      await this.#listener.start()
    }
    this.#numbering.tick(listenUrl !== undefined, () => this.#read())
  }

  /** A write's event is committed: number it (and whatever else waits), then tell everyone. */
  readonly published = (type: EventType): void => {
    countType(this.publishedByType, type)
    this.#numbering.ask()
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
    let events: StoredEvent[]
    do {
      try {
        events = await this.after(this.#listeners.newest, BATCH)
      } catch {
        // The database away: the next notification or tick reads it.
        return
      }
      // Outside the catch: a failure here is a bug, never taken for the database's.
      this.#listeners.emit(events)
    } while (events.length === BATCH && !this.#closed)
  }

  after(after: number, limit: number): Promise<StoredEvent[]> {
    return this.#reader.after(after, limit)
  }

  bounds(): Promise<LogBounds> {
    return this.#reader.bounds()
  }

  subscribe(listener: (events: StoredEvent[]) => void): () => void {
    return this.#listeners.subscribe(listener)
  }

  /** Every event committed before the call has its id once this resolves (see EventLog). */
  numbered(): Promise<void> {
    return this.#numbering.settled()
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
    const numbering = this.#numbering.close()
    const listener = this.#listener
    this.#listener = undefined
    await Promise.all([listener?.close(), numbering, this.#reading.idle()])
  }
}
