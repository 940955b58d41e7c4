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

  /** Undefined when there is no item `id`. */
  change(id: number, change: (current: T) => T): T | undefined {
    const current = this.#items.get(id)
    if (current === undefined) return undefined
    const next = Object.freeze({ ...change(current), id })
    this.#items.set(id, next)
    return next
  }

  delete(id: number): boolean {
    return this.#items.delete(id)
  }
}
