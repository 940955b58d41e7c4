import type { EventType, Publish } from './events.js'
import { type Precondition, type PreconditionFailed, writeIf } from './precondition.js'

/**
 * The event a memory write publishes at the instant of its change: `type`, with the item as
 * `data` (as `view` shows it, where the item holds more than its read), or `{ id }` for a
 * deletion. Undefined for a write that publishes nothing (a store without a log, the seed).
 */
export type MemoryPublication<T> =
  | { publish: Publish; type: EventType; view?: (item: T) => unknown; owner?: (item: T) => string }
  | undefined

/** A store's publication of `type`, when it publishes at all. */
export function publishes<T>(
  publish: Publish | undefined,
  type: EventType,
  more: { view?: (item: T) => unknown; owner?: (item: T) => string } = {},
): MemoryPublication<T> {
  return publish && { publish, type, ...more }
}

function publishOf<T extends { id: number }>(
  publication: MemoryPublication<T>,
  item: T,
  deleted = false,
): void {
  if (publication === undefined) return
  const { publish, type, view, owner } = publication
  const data = deleted ? { id: item.id } : (view?.(item) ?? item)
  publish({ type, subject: String(item.id), data, ...(owner && { owner: owner(item) }) })
}

/**
 * Items with ids assigned from 1, held in process memory, in ascending id order. The building
 * block of the simple in-memory stores; items are frozen, so callers hold snapshots.
 */
export class MemoryCollection<T extends { id: number }> {
  readonly #items = new Map<number, Readonly<T>>()
  #nextId = 1

  list(): T[] {
    return [...this.#items.values()]
  }

  get(id: number): T | undefined {
    return this.#items.get(id)
  }

  add(make: (id: number) => T, publication?: MemoryPublication<T>): T {
    const item = Object.freeze(make(this.#nextId++))
    this.#items.set(item.id, item)
    publishOf(publication, item)
    return item
  }

  /**
   * Undefined when there is no item `id`; PRECONDITION_FAILED, changing nothing, when there is
   * one and it fails `precondition`.
   */
  change(id: number, change: (current: T) => T): T | undefined
  change(
    id: number,
    change: (current: T) => T,
    precondition: Precondition<T> | undefined,
    publication?: MemoryPublication<T>,
  ): T | undefined | PreconditionFailed
  change(
    id: number,
    change: (current: T) => T,
    precondition?: Precondition<T>,
    publication?: MemoryPublication<T>,
  ) {
    const current = this.#items.get(id)
    return writeIf(current, precondition, () => {
      if (current === undefined) return undefined
      const next = Object.freeze({ ...change(current), id })
      this.#items.set(id, next)
      publishOf(publication, next)
      return next
    })
  }

  /** Whether there was an item `id`; PRECONDITION_FAILED as `change` says. */
  delete(id: number): boolean
  delete(
    id: number,
    precondition: Precondition<T> | undefined,
    publication?: MemoryPublication<T>,
  ): boolean | PreconditionFailed
  delete(id: number, precondition?: Precondition<T>, publication?: MemoryPublication<T>) {
    const current = this.#items.get(id)
    return writeIf(current, precondition, () => {
      if (current === undefined) return false
      this.#items.delete(id)
      publishOf(publication, current, true)
      return true
    })
  }
}

/**
 * A memory store's base: its one collection (`items`), and the reads every such store answers
 * alike: every item in id order, and one by id.
 */
export class MemoryItems<T extends { id: number }> {
  protected readonly items = new MemoryCollection<T>()

  /** `publish`: where the store's writes publish their events (none: they publish nothing). */
  constructor(protected readonly publish?: Publish) {}

  async list(): Promise<T[]> {
    return this.items.list()
  }

  async get(id: number): Promise<T | undefined> {
    return this.items.get(id)
  }
}
