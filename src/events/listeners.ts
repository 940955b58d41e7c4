import type { EventType } from '../store/events.js'
import type { StoredEvent } from './store.js'

/** Counts one more event of `type` in `counts`. */
export function countType(counts: Map<EventType, number>, type: EventType): void {
  counts.set(type, (counts.get(type) ?? 0) + 1)
}

/**
 * After a hand-over that took longer than this, in milliseconds, the next waits (PACE_FACTOR):
 * a few streams are written to at once, every event as it comes.
 */
const SLOW_HAND_OVER_MS = 1

/**
 * How many times the last hand-over's duration the next one waits after it. Writing one batch to
 * a thousand streams takes milliseconds whatever the batch holds, so events that arrive
 * meanwhile wait and go out together, and the writes that make them keep most of the process
 * (docs/events.md#memory).
 */
const PACE_FACTOR = 4

/** The longest pause, in milliseconds, however long a hand-over took: events are late by no more. */
const MAX_PAUSE_MS = 200

/**
 * The bytes of events (their JSON) that may wait for a pause to end: more go out at once, so
 * that a hand-over of large events writes a bounded amount to each stream and a request that
 * arrives meanwhile does not wait behind it; small events still go out hundreds at a time.
 */
const MAX_WAITING_BYTES = 64 * 1024

/**
 * The listeners of one log, called with each batch in order. A listener that throws is a bug
 * of its own: the others are still called. When handing a batch over took long (many streams),
 * what arrives in the next PACE_FACTOR times as long is handed over in one batch after it.
 */
export class Listeners {
  readonly #listeners = new Set<(events: StoredEvent[]) => void>()
  #newest = 0
  /** Events waiting for the pause after a slow hand-over to end, in order; their bytes. */
  #waiting: StoredEvent[] | undefined
  #waitingBytes = 0
  #pauseTimer: NodeJS.Timeout | undefined
  /** When the pause after the last hand-over ends (performance.now()). */
  #pauseEnds = 0

  /**
   * The newest id passed on, or noted as given out while no one listened: it never moves back,
   * so that a stream opened now, which starts after it, is never given an event from before.
   * Events waiting for a pause to end count as passed on: a stream opened meanwhile starts
   * after them.
   */
  get newest(): number {
    return this.#newest
  }

  set newest(id: number) {
    if (id > this.#newest) this.#newest = id
  }

  /** Whether anyone listens: when not, nothing need be read. */
  get listening(): boolean {
    return this.#listeners.size > 0
  }

  subscribe(listener: (events: StoredEvent[]) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** Passes `events` on, but for those at or below `newest` (read before it moved past them). */
  emit(events: StoredEvent[]): void {
    const fresh =
      (events[0]?.id ?? 0) > this.#newest
        ? events
        : events.filter((event) => event.id > this.#newest)
    const last = fresh.at(-1)
    if (last === undefined) return
    this.#newest = last.id
    const starting = this.#waiting === undefined
    if (starting && this.#pauseEnds <= performance.now()) {
      this.#handOver(fresh)
      return
    }
    const waiting = this.#waiting ?? []
    if (starting) {
      this.#waiting = waiting
      this.#waitingBytes = 0
    }
    for (const event of fresh) {
      waiting.push(event)
      this.#waitingBytes += event.json.length
    }
    // Only once they wait: the pause may have ended since the clock was read above, and then
    // they go out now.
    if (this.#waitingBytes > MAX_WAITING_BYTES) this.#flush()
    else if (starting) this.#waitOutPause()
  }

  /**
   * Flushes once the pause has ended. A timer can fire up to a millisecond early by
   * performance.now() (the event loop's clock is read once per turn): it is set again then.
   */
  #waitOutPause(): void {
    const left = this.#pauseEnds - performance.now()
    if (left <= 0) {
      this.#flush()
      return
    }
    this.#pauseTimer = setTimeout(() => this.#waitOutPause(), Math.ceil(left))
    this.#pauseTimer.unref()
  }

  /** Hands over what waits, now. */
  #flush(): void {
    clearTimeout(this.#pauseTimer)
    const waiting = this.#waiting ?? []
    this.#waiting = undefined
    if (waiting.length > 0) this.#handOver(waiting)
  }

  #handOver(events: StoredEvent[]): void {
    const started = performance.now()
    for (const listener of this.#listeners) {
      try {
        listener(events)
      } catch {
        // The others are not held up.
      }
    }
    // Timed to the end of the ticks queued meanwhile: an HTTP response writes to its socket in
    // one (it uncorks it there), which is most of what a stream's event costs.
    process.nextTick(() => {
      const ended = performance.now()
      const took = ended - started
      this.#pauseEnds =
        took > SLOW_HAND_OVER_MS ? ended + Math.min(MAX_PAUSE_MS, PACE_FACTOR * took) : 0
    })
  }
}

/** Callbacks told that something happened, nothing more: each is called, whatever another does. */
export class Signal {
  readonly #listeners = new Set<() => void>()

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  emit(): void {
    for (const listener of this.#listeners) {
      try {
        listener()
      } catch {
        // The others are not held up.
      }
    }
  }
}
