import { type Precondition, type PreconditionFailed, writeIf } from './precondition.js'

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

  add(make: (id: number) => T): T {
    const item = Object.freeze(make(this.#nextId++))
    this.#items.set(item.id, item)
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
  ): T | undefined | PreconditionFailed
  change(id: number, change: (current: T) => T, precondition?: Precondition<T>) {
    const current = this.#items.get(id)
    return writeIf(current, precondition, () => {
      if (current === undefined) return undefined
      const next = Object.freeze({ ...change(current), id })
      this.#items.set(id, next)
      return next
    })
  }

  /** Whether there was an item `id`; PRECONDITION_FAILED as `change` says. */
  delete(id: number): boolean
  delete(id: number, precondition: Precondition<T> | undefined): boolean | PreconditionFailed
  delete(id: number, precondition?: Precondition<T>) {
    return writeIf(this.#items.get(id), precondition, () => this.#items.delete(id))
  }
}

/**
 * A memory store's base: its one collection (`items`), and the reads every such store answers
 * alike: every item in id order, and one by id.
 */
export class MemoryItems<T extends { id: number }> {
  protected readonly items = new MemoryCollection<T>()

  async list(): Promise<T[]> {
    return this.items.list()
  }

  async get(id: number): Promise<T | undefined> {
    return this.items.get(id)
  }
}
