import type { Database } from '../store/postgres/database.js'
import { OnceAtATime } from './once-at-a-time.js'
import type { Retention } from './pg-retention.js'
import { NUMBERING_BATCH, numberEvents } from './pg-sequencer.js'

/**
 * The least time between the starts of two numberings in a row, under a stream of writes: each
 * numbering costs the service and the database a transaction (docs/events.md#what-it-costs).
 */
const SEQUENCE_GAP_MS = 50

/** How often each process numbers and reads without being told (a process that died between
 * its commit and its sequencer's run, a notification lost while the listener reconnected). */
const TICK_MS = 1000
/** The same without a listening connection (behind a pooler with no direct URL). */
const TICK_WITHOUT_LISTENER_MS = 100

export interface NumberingScheduleOptions {
  /** The connection the sequencer runs on, never one a request waits for. */
  sequencer: Database
  retention: Retention
  /** A numbering queued webhook deliveries (the log tells the deliverers). */
  queued(): void
  /** A numbering asked for ended: ids up to `newest` were given (undefined: nothing was new). */
  numbered(newest: number | undefined): void
}

/**
 * When this process runs the sequencer (pg-sequencer.ts, one numbering and then retention, in
 * one transaction): once at a time, again when asked meanwhile (each write's commit asks) but
 * no sooner than SEQUENCE_GAP_MS after the last start, and on every tick.
 */
export class NumberingSchedule {
  #channel = ''
  #tick: NodeJS.Timeout | undefined
  #closed = false
  readonly #runs = new OnceAtATime(() => this.#numberOnce(), SEQUENCE_GAP_MS)

  constructor(private readonly options: NumberingScheduleOptions) {}

  /** Numbers what a previous run left, NOTIFYing `channel`; thrown when it cannot. */
  async start(channel: string): Promise<void> {
    this.#channel = channel
    await this.#sequence()
  }

  /** From now on numbers, then calls `read`, on every tick: faster when no connection listens. */
  tick(listening: boolean, read: () => void): void {
    this.#tick = setInterval(
      () => {
        this.ask()
        read()
      },
      listening ? TICK_MS : TICK_WITHOUT_LISTENER_MS,
    )
    this.#tick.unref()
  }

  /** Runs the sequencer, once at a time, again when asked meanwhile. */
  ask(): void {
    if (!this.#closed) this.#runs.ask()
  }

  /** Resolves once a numbering asked now (after the one running, if any) has ended. */
  async settled(): Promise<void> {
    this.ask()
    await this.#runs.idle()
  }

  async #numberOnce(): Promise<void> {
    let newest: number | undefined
    try {
      newest = await this.#sequence()
    } catch {
      // The database away: the next write or tick numbers it.
      return
    }
    this.options.numbered(newest)
  }

  /**
   * One numbering (numberEvents: it numbers what is new, queues the deliveries of the webhooks
   * subscribed to it and NOTIFYs every process's listener), then, past EVENTS_RETAIN, the
   * oldest are forgotten, under the same lock. The newest id, or undefined when nothing was new.
   */
  async #sequence(): Promise<number | undefined> {
    const { sequencer, retention } = this.options
    const numbered = await sequencer.transaction(async (client) => {
      const numbering = await numberEvents(client, this.#channel, NUMBERING_BATCH)
      if (numbering !== undefined) await retention.forget(client, numbering.newest)
      return numbering
    })
    if (numbered === undefined) return undefined
    if (numbered.queued > 0) this.options.queued()
    return numbered.newest
  }

  /** Stops the ticks and the runs asked from now on; resolves once the one running ends. */
  async close(): Promise<void> {
    this.#closed = true
    clearInterval(this.#tick)
    await this.#runs.idle()
  }
}
