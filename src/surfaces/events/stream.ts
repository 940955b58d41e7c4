import { once } from 'node:events'
import { PassThrough } from 'node:stream'
import type { EventType } from '../../store/events.js'
import type { Identity } from '../supporting/access/identity.js'
import type { EventLog, StoredEvent } from './store.js'

/** Data waiting for a client beyond which its stream is closed (docs/events.md#limits). */
export const SLOW_READER_BYTES = 1024 * 1024

/**
 * The streams one app has open. Once the app starts closing, every open one is closed, and one
 * opened after (a request that arrived meanwhile) ends right after its first line: a stream
 * must never hold the drain up.
 */
export class OpenStreams {
  readonly #open = new Set<EventStream>()
  #closing = false

  get size(): number {
    return this.#open.size
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

/** Each event's frame, made once for every stream that sends it. */
const frames = new WeakMap<StoredEvent, string>()

function frameOf(event: StoredEvent): string {
  let frame = frames.get(event)
  if (frame === undefined) {
    frame = `id: ${event.id}\nevent: ${event.type}\ndata: ${event.json}\n\n`
    frames.set(event, frame)
  }
  return frame
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
  /** Resume after this id (Last-Event-ID or `after`); live only when undefined. */
  after: number | undefined
  heartbeatMs: number
  /** What the stream is written to: the bytes waiting in it, and dropping it at once. */
  response: { waiting(): number; abort(): void }
}

/**
 * One `GET /events` stream: the body the route sends. Replays the kept events after `after`
 * (or a `reset` first when some are no longer kept), then sends each event as the log passes
 * it on, each once and in order; a keep-alive comment after `heartbeatMs` without one. The
 * replay waits for the client to read; a live event never waits, and a client that lets more
 * than SLOW_READER_BYTES wait is closed.
 */
export class EventStream {
  readonly body = new PassThrough()
  /** The newest id sent or skipped: nothing at or below it is sent again. */
  #last = 0
  /** Events passed on while the stream was catching up: sent once it has. */
  #held: StoredEvent[] | undefined
  /** Their size; past SLOW_READER_BYTES they are dropped and read from the log again. */
  #heldBytes = 0
  #dropped = false
  #stop: () => void = () => {}
  #heartbeat: NodeJS.Timeout | undefined
  #closed = false

  constructor(private readonly options: StreamOptions) {
    this.body.on('close', () => this.close())
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
      this.#last = log.newest
      this.#stop = log.subscribe((events) => this.#send(events))
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
   * (the client resumes).
   */
  async replay(): Promise<void> {
    try {
      for (;;) {
        const events = await this.options.log.after(this.#last, CATCH_UP_BATCH)
        if (this.#closed) return
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
    this.#send(held)
  }

  #passed(events: StoredEvent[]): void {
    if (this.#held === undefined) {
      this.#send(events)
      return
    }
    for (const event of events) {
      this.#held.push(event)
      this.#heldBytes += event.json.length
    }
    if (this.#heldBytes > SLOW_READER_BYTES) {
      this.#held = []
      this.#heldBytes = 0
      this.#dropped = true
    }
  }

  /** Resolves once the body has room again, or is closed. */
  async #drained(): Promise<void> {
    await Promise.race([once(this.body, 'drain'), once(this.body, 'close')])
  }

  /** Sends a batch the log passed on in one write: one per batch, not per event and stream. */
  #send(events: StoredEvent[]): void {
    let text = ''
    for (const event of events) text += this.#frames(event)
    if (text !== '') this.#write(text)
  }

  /** Sends `event` unless it was already passed or is not for this stream: whether it wrote. */
  #sent(event: StoredEvent): boolean {
    const text = this.#frames(event)
    if (text !== '') this.#write(text)
    return text !== ''
  }

  /**
   * What `event` adds to the stream: nothing when it was already passed or is not for this
   * stream; a reset before it when ids jump (consecutive ids: the events between were
   * forgotten, EVENTS_RETAIN, before this process read them).
   */
  #frames(event: StoredEvent): string {
    if (event.id <= this.#last) return ''
    const reset = event.id > this.#last + 1 ? resetFrame(event.id) : ''
    this.#last = event.id
    return this.#shows(event) ? reset + frameOf(event) : reset
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

  #write(text: string): void {
    if (this.#closed) return
    this.body.write(text)
    this.#heartbeat?.refresh()
    // While replaying, the replay waits for the client instead.
    if (this.#held !== undefined) return
    const body = this.body
    const waiting = body.writableLength + body.readableLength + this.options.response.waiting()
    // A client that does not read: dropped, its memory released (it resumes with Last-Event-ID).
    if (waiting > SLOW_READER_BYTES) {
      this.options.response.abort()
      body.destroy()
    }
  }

  /** Ends it: the response completes. */
  close(): void {
    if (this.#closed) return
    this.#closed = true
    clearTimeout(this.#heartbeat)
    this.#stop()
    this.#held = undefined
    this.body.end()
  }
}
