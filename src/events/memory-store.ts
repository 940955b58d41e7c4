import type { EventType, NewEvent, Publish } from '../store/events.js'
import { cloudEvent } from './cloud-event.js'
import { countType, Listeners } from './listeners.js'
import type { EventLog, LogBounds, StoredEvent } from './store.js'

/**
 * An event of the memory log. Its CloudEvents text is made once, when first read, from the
 * parts it was published with: every memory store publishes frozen snapshots as `data`, so the
 * text is the one it would have been at the change.
 */
class KeptEvent implements StoredEvent {
  readonly type: EventType
  readonly owner: string | undefined
  readonly #subject: string
  /** Dropped once the text is made. */
  #data: unknown
  readonly #time: Date
  #json: string | undefined

  constructor(
    readonly id: number,
    { type, subject, data, owner }: NewEvent,
    time: Date,
  ) {
    this.type = type
    this.owner = owner
    this.#subject = subject
    this.#data = data
    this.#time = time
  }

  get json(): string {
    if (this.#json === undefined) {
      const { id, type } = this
      this.#json = cloudEvent({
        id,
        type,
        subject: this.#subject,
        time: this.#time,
        data: this.#data,
      })
      this.#data = undefined
    }
    return this.#json
  }
}

/**
 * The events of the memory stores, for as long as the process lives: ids from 1 in the order
 * of the writes, the `retain` most recent kept. Listeners are called after the write that
 * published, never inside it.
 */
export class MemoryEventLog implements EventLog {
  /** Kept events from `#head` on; ids are consecutive, so an id's place is arithmetic. */
  #kept: StoredEvent[] = []
  #head = 0
  #lastId = 0
  #waiting: StoredEvent[] = []
  readonly #listeners = new Listeners()
  readonly publishedByType = new Map<EventType, number>()

  constructor(
    private readonly retain: number,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * The stores' publisher: the event takes its id and time now, at the change; its text is made
   * when something first reads it (KeptEvent), so a write nobody listens to renders nothing.
   */
  readonly publish: Publish = (event: NewEvent) => {
    const id = ++this.#lastId
    const stored = new KeptEvent(id, event, this.now())
    countType(this.publishedByType, event.type)
    this.#kept.push(stored)
    if (this.#kept.length - this.#head > this.retain) this.#forgetOldest()
    // Delivered once per turn of the event loop: each stream then writes once for all of it.
    if (this.#waiting.push(stored) === 1) setImmediate(() => this.#deliver())
  }

  #forgetOldest(): void {
    this.#head += 1
    // Dropped in one go once they are half the array: each event is moved at most once.
    if (this.#head * 2 >= this.#kept.length) {
      this.#kept = this.#kept.slice(this.#head)
      this.#head = 0
    }
  }

  #deliver(): void {
    const events = this.#waiting
    this.#waiting = []
    this.#listeners.emit(events)
  }

  async after(after: number, limit: number): Promise<StoredEvent[]> {
    const first = this.#kept[this.#head]
    if (first === undefined) return []
    const from = this.#head + Math.max(0, after + 1 - first.id)
    return this.#kept.slice(from, from + limit)
  }

  async bounds(): Promise<LogBounds> {
    return { oldest: this.#kept[this.#head]?.id, newest: this.#lastId }
  }

  subscribe(listener: (events: StoredEvent[]) => void): () => void {
    return this.#listeners.subscribe(listener)
  }

  /** The newest id given, passed on yet or not: a stream opened now starts after it. */
  get newest(): number {
    return this.#lastId
  }

  async close(): Promise<void> {}
}
