import type { EventType, NewEvent, Publish } from '../store/events.js'
import { cloudEvent } from './cloud-event.js'
import { countType, Listeners } from './listeners.js'
import type { EventLog, LogBounds, StoredEvent } from './store.js'

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

  /** The stores' publisher: the event takes its id and time now, at the change. */
  readonly publish: Publish = (event: NewEvent) => {
    const id = ++this.#lastId
    const json = cloudEvent({ ...event, id, time: this.now() })
    const stored: StoredEvent = { id, type: event.type, owner: event.owner, json }
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
