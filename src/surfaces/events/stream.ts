import { PassThrough } from 'node:stream'
import type { Identity } from '../../access/identity.js'
import type { EventLog, StoredEvent } from '../../events/store.js'
import type { EventType } from '../../store/events.js'
import { type Holder, StreamBudget } from './budget.js'

/** Bytes waiting for a client beyond which its stream is closed (docs/events.md#limits). */
export const SLOW_READER_BYTES = 1024 * 1024

/**
 * The streams one app has open, and the bytes waiting for them together (`budget`). Once the
 * app starts closing, every open one is closed, and one opened after (a request that arrived
 * meanwhile) ends right after its first line: a stream must never hold the drain up.
 */
export class OpenStreams {
  readonly #open = new Set<EventStream>()
  /** Places taken by streams still opening: counted from the check on, before any await. */
  #reserved = 0
  #closing = false
  readonly budget: StreamBudget

  constructor(bufferBytes: number) {
    this.budget = new StreamBudget(bufferBytes)
  }

  get size(): number {
    return this.#open.size + this.#reserved
  }

  /**
   * Takes a place for a stream about to open, unless `max` are taken: in one step, so that
   * streams opened at the same instant cannot all pass the check. Give it back with `release`
   * once the stream is added (or failed to open).
   */
  reserve(max: number): boolean {
    if (this.size >= max) return false
    this.#reserved += 1
    return true
  }

  release(): void {
    this.#reserved -= 1
  }

  add(stream: EventStream): void {
    if (this.#closing) {
      stream.close()
      return
    }
    this.#open.add(stream)
    stream.body.once('close', () => this.#open.delete(stream))
  }

  closeAll(): void {
    this.#closing = true
    for (const stream of this.#open) stream.close()
  }
}

/**
 * Each event's frame as bytes, made once and shared by every stream that sends it, as is a
 * whole batch's (docs/events.md#memory): what waits for many clients is held once.
 */
const frames = new WeakMap<StoredEvent, Buffer>()
const batches = new WeakMap<readonly StoredEvent[], Buffer>()

function frameOf(event: StoredEvent): Buffer {
  let frame = frames.get(event)
  if (frame === undefined) {
    frame = Buffer.from(`id: ${event.id}\nevent: ${event.type}\ndata: ${event.json}\n\n`)
    frames.set(event, frame)
  }
  return frame
}

function batchOf(events: readonly StoredEvent[]): Buffer {
  let batch = batches.get(events)
  if (batch === undefined) {
    batch =
      events.length === 1 ? frameOf(events[0] as StoredEvent) : Buffer.concat(events.map(frameOf))
    batches.set(events, batch)
  }
  return batch
}

/** The `reset` event before `oldest`: the events before it are gone. */
function resetFrame(oldest: number): string {
  return `id: ${oldest - 1}\nevent: reset\ndata: ${JSON.stringify({ oldest: String(oldest) })}\n\n`
}

/** Events read from the log per statement while a stream catches up. */
const CATCH_UP_BATCH = 1000

export interface StreamOptions {
  log: EventLog
  /** The types sent; every type when undefined. */
  types: ReadonlySet<EventType> | undefined
  /** Who opened it: `dokumen.*` events only to who may read that document. */
  identity: Identity | undefined
  /**
   * Whether the credential it was opened with is still valid (neither revoked nor expired):
   * asked before each `dokumen.*` event it would send (docs/events.md#credentials-on-open-streams).
   * Undefined: opened without one.
   */
  credentialHolds?: () => Promise<boolean>
  /** Resume after this id (Last-Event-ID or `after`); live only when undefined. */
  after: number | undefined
  heartbeatMs: number
  /** What the stream is written to: the bytes waiting in it, and dropping it at once. */
  response: { waiting(): number; abort(): void }
  /** The bytes waiting for every stream of the process together (EVENTS_BUFFER_BYTES). */
  budget?: StreamBudget
}

/**
 * One `GET /events` stream: the body the route sends. Replays the kept events after `after`
 * (or a `reset` first when some are no longer kept), then sends each event as the log passes
 * it on, each once and in order; a keep-alive comment after `heartbeatMs` without one. The
 * replay waits for the client to read; a live event never waits, and a client that lets more
 * than SLOW_READER_BYTES wait is closed, as are the streams holding the most once all of them
 * together hold more than the budget.
 */
export class EventStream implements Holder {
  readonly body = new PassThrough()
  /** The newest id sent or skipped: nothing at or below it is sent again. */
  #last = 0
  /** Events passed on while the stream was catching up: sent once it has. */
  #held: StoredEvent[] | undefined
  /** Their size; past SLOW_READER_BYTES they are dropped and read from the log again. */
  #heldBytes = 0
  #dropped = false
  /** Events passed on while the credential is asked about: sent, in order, once it holds. */
  #checking: StoredEvent[] | undefined
  #stop: () => void = () => {}
  #heartbeat: NodeJS.Timeout | undefined
  #closed = false

  constructor(private readonly options: StreamOptions) {
    this.body.on('close', () => this.close())
  }

  /** The bytes written and not yet taken by the client's connection, as sent. */
  get holding(): number {
    const body = this.body
    return body.writableLength + body.readableLength + this.options.response.waiting()
  }

  /**
   * Starts listening, and finds where a resumed stream starts: rejects, before anything is
   * sent, when the log cannot be read (the route then answers 503).
   */
  async open(): Promise<void> {
    const { log, after } = this.options
    this.#heartbeat = setTimeout(() => this.#keepAlive(), this.options.heartbeatMs)
    this.#heartbeat.unref()
    this.#write('retry: 2000\n\n')
    if (after === undefined) {
      // Everything the log has given out so far is before this stream: none of it is sent.
      this.#last = log.newest
      this.#stop = log.subscribe((events) => this.#deliver(events))
      return
    }
    // Listening first, so that what is passed on while the replay reads is held, not missed.
    this.#held = []
    this.#stop = log.subscribe((events) => this.#passed(events))
    try {
      const { oldest, newest } = await log.bounds()
      // An id above any given (from before a restart of the memory store), or one whose
      // successors are no longer all kept: the client must read the state again.
      const first = oldest ?? newest + 1
      if (after > newest || after < first - 1) this.#reset(first)
      else this.#last = after
    } catch (error) {
      this.close()
      throw error
    }
  }

  /**
   * Sends the kept events after where `open` found the stream starts, as fast as the client
   * reads them, then what was passed on meanwhile. A log that cannot be read closes the stream
   * (the client resumes), as does a credential that no longer holds.
   */
  async replay(): Promise<void> {
    try {
      for (;;) {
        const events = await this.options.log.after(this.#last, CATCH_UP_BATCH)
        if (this.#closed || !(await this.#mayShow(events))) return
        for (const event of events) {
          if (this.#sent(event) && this.body.writableNeedDrain) await this.#drained()
        }
        if (events.length < CATCH_UP_BATCH) {
          // Events held were dropped: they are in the log, read on.
          if (!this.#dropped) break
          this.#dropped = false
        }
      }
    } catch {
      this.close()
      return
    }
    const held = this.#held ?? []
    this.#held = undefined
    this.#deliver(held)
  }

  #passed(events: StoredEvent[]): void {
    if (this.#held === undefined) {
      this.#deliver(events)
      return
    }
    for (const event of events) {
      this.#held.push(event)
      this.#heldBytes += frameOf(event).length
    }
    if (this.#heldBytes > SLOW_READER_BYTES) {
      this.#held = []
      this.#heldBytes = 0
      this.#dropped = true
    }
  }

  /**
   * Sends live events in order: at once, unless one is a `dokumen.*` event this stream would
   * show, which waits for its credential to be asked about (and every event after it waits
   * behind it).
   */
  #deliver(events: StoredEvent[]): void {
    if (this.#closed) return
    if (this.#checking !== undefined) {
      for (const event of events) this.#checking.push(event)
      return
    }
    if (!this.#asksCredential(events)) {
      this.#send(events)
      return
    }
    this.#checking = [...events]
    void this.#checkThenSend()
  }

  async #checkThenSend(): Promise<void> {
    for (let events = this.#checking; events !== undefined && events.length > 0; ) {
      this.#checking = []
      // Asked after every one of `events` was written: a revocation more than a second before
      // any of them is seen (docs/events.md#credentials-on-open-streams).
      if (!(await this.#mayShow(events))) return
      this.#send(events)
      events = this.#checking
    }
    this.#checking = undefined
  }

  /**
   * Whether `events` may be sent as far as the credential goes: asked only when one of them is
   * a `dokumen.*` event this stream would show; when it no longer holds (or the store cannot
   * say), the stream is closed and the client, reconnecting, gets the 401 (or 503).
   */
  async #mayShow(events: StoredEvent[]): Promise<boolean> {
    if (!this.#asksCredential(events)) return true
    let holds = false
    try {
      holds = (await this.options.credentialHolds?.()) ?? true
    } catch {
      // The store away: nothing is sent on a credential not confirmed.
    }
    if (!holds) this.close()
    return holds && !this.#closed
  }

  #asksCredential(events: StoredEvent[]): boolean {
    if (this.options.credentialHolds === undefined) return false
    return events.some(
      (event) => event.id > this.#last && event.type.startsWith('dokumen.') && this.#shows(event),
    )
  }

  /** Resolves once the body has room again, or is closed; leaves no listener behind. */
  #drained(): Promise<void> {
    const body = this.body
    return new Promise((resolve) => {
      const done = () => {
        body.off('drain', done)
        body.off('close', done)
        resolve()
      }
      body.on('drain', done)
      body.on('close', done)
    })
  }

  /**
   * Sends a batch the log passed on: in one write, shared with every stream that sends all of
   * it, when it follows on from the last id sent and this stream shows each of its events.
   */
  #send(events: StoredEvent[]): void {
    const first = events[0]
    const last = events.at(-1)
    if (first === undefined || last === undefined) return
    const whole =
      first.id === this.#last + 1 &&
      last.id - first.id === events.length - 1 &&
      events.every((event) => this.#shows(event))
    if (whole) {
      this.#last = last.id
      this.#write(batchOf(events))
    } else for (const event of events) this.#sent(event)
  }

  /**
   * Sends `event` unless it was already passed or is not for this stream (whether it wrote);
   * a reset before it when ids jump (consecutive ids: the events between were forgotten,
   * EVENTS_RETAIN, before this process read them).
   */
  #sent(event: StoredEvent): boolean {
    if (event.id <= this.#last) return false
    if (event.id > this.#last + 1) this.#write(resetFrame(event.id))
    this.#last = event.id
    if (!this.#shows(event)) return false
    this.#write(frameOf(event))
    return true
  }

  /** The `reset` event: what follows starts at `oldest`, the events before it are gone. */
  #reset(oldest: number): void {
    this.#last = oldest - 1
    this.#write(resetFrame(oldest))
  }

  #shows(event: StoredEvent): boolean {
    const { types, identity } = this.options
    if (types !== undefined && !types.has(event.type)) return false
    if (!event.type.startsWith('dokumen.')) return true
    return identity !== undefined && (identity.peran === 'admin' || identity.nama === event.owner)
  }

  #keepAlive(): void {
    this.#write(': keep-alive\n\n')
  }

  #write(chunk: string | Buffer): void {
    if (this.#closed) return
    this.body.write(chunk)
    this.#heartbeat?.refresh()
    const holding = this.holding
    // A client that does not read: dropped, its memory released (it resumes with
    // Last-Event-ID). While replaying, the replay waits for the client instead.
    if (this.#held === undefined && holding > SLOW_READER_BYTES) this.drop()
    else this.options.budget?.note(this, holding)
  }

  /** Stops listening and sending: whether it was still open. */
  #release(): boolean {
    if (this.#closed) return false
    this.#closed = true
    clearTimeout(this.#heartbeat)
    this.#stop()
    this.#held = undefined
    this.#checking = undefined
    this.options.budget?.forget(this)
    return true
  }

  /** Ends it: the response completes. */
  close(): void {
    if (this.#release()) this.body.end()
  }

  /**
   * Drops it at once, what waits for its client included: a reset of the connection, which
   * the client learns as soon as it reads.
   */
  drop(): void {
    if (!this.#release()) return
    this.options.response.abort()
    this.body.destroy()
  }
}
