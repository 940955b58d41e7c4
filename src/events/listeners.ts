import type { EventType } from '../store/events.js'
import type { StoredEvent } from './store.js'

/** Counts one more event of `type` in `counts`. */
export function countType(counts: Map<EventType, number>, type: EventType): void {
  counts.set(type, (counts.get(type) ?? 0) + 1)
}

/**
 * The listeners of one log, called with each batch in order. A listener that throws is a bug
 * of its own: the others are still called.
 */
export class Listeners {
  readonly #listeners = new Set<(events: StoredEvent[]) => void>()
  #newest = 0

  /**
   * The newest id passed on, or noted as given out while no one listened: it never moves back,
   * so that a stream opened now, which starts after it, is never given an event from before.
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
    for (const listener of this.#listeners) {
      try {
        listener(fresh)
      } catch {
        // The others are not held up.
      }
    }
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
