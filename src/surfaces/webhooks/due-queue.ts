/** An item a DueQueue orders: by `dueAt`, then by `key` (the order they were queued in). */
export interface Due {
  readonly key: number
  /** Changed only through the queue's reschedule while the item is in a queue. */
  dueAt: number
  /**
   * The queue's own note of where the item sits (an item is in one queue at most): kept on the
   * item, not in a map, as a backlog of many thousands moves items on every claim.
   */
  slot?: number
}

const before = (a: Due, b: Due) => a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.key < b.key)

/**
 * Items by due time, soonest first, as a binary heap: adding, removing and rescheduling one
 * cost O(log n), and the first `count` due cost O(count log n), however many wait behind them.
 * Each item is in one queue at most.
 */
export class DueQueue<T extends Due> {
  readonly #heap: T[] = []

  get size(): number {
    return this.#heap.length
  }

  /** Every item, in no particular order. */
  items(): readonly T[] {
    return this.#heap
  }

  add(item: T): void {
    this.#heap.push(item)
    item.slot = this.#heap.length - 1
    this.#up(this.#heap.length - 1)
  }

  remove(item: T): void {
    const slot = this.#slotOf(item)
    if (slot === undefined) return
    item.slot = undefined
    const last = this.#heap.pop() as T
    if (slot === this.#heap.length) return
    this.#place(last, slot)
    this.#settle(slot)
  }

  reschedule(item: T, dueAt: number): void {
    item.dueAt = dueAt
    const slot = this.#slotOf(item)
    if (slot !== undefined) this.#settle(slot)
  }

  /**
   * Up to `count` items due at `now`, soonest first; the queue is left as it was. Read in place:
   * the soonest of the slots whose parents were taken is the next, as the heap orders each
   * below its parent (O(count²) for the few a claim asks for, nothing moved).
   */
  firstDue(now: number, count: number): T[] {
    const heap = this.#heap
    const found: T[] = []
    const frontier = heap.length > 0 ? [0] : []
    while (found.length < count && frontier.length > 0) {
      let best = 0
      for (let at = 1; at < frontier.length; at++) {
        if (before(heap[frontier[at] as number] as T, heap[frontier[best] as number] as T)) {
          best = at
        }
      }
      const slot = frontier[best] as number
      const item = heap[slot] as T
      if (item.dueAt > now) break
      found.push(item)
      frontier[best] = frontier[frontier.length - 1] as number
      frontier.pop()
      const left = 2 * slot + 1
      if (left < heap.length) frontier.push(left)
      if (left + 1 < heap.length) frontier.push(left + 1)
    }
    return found
  }

  /** Where `item` sits in this queue, if it does. */
  #slotOf(item: T): number | undefined {
    const slot = item.slot
    return slot !== undefined && this.#heap[slot] === item ? slot : undefined
  }

  #settle(slot: number): void {
    if (!this.#up(slot)) this.#down(slot)
  }

  /** Moves the item at `slot` towards the root while it is due before its parent. */
  #up(slot: number): boolean {
    const item = this.#heap[slot] as T
    let at = slot
    while (at > 0) {
      const parent = (at - 1) >> 1
      const above = this.#heap[parent] as T
      if (!before(item, above)) break
      this.#place(above, at)
      at = parent
    }
    this.#place(item, at)
    return at !== slot
  }

  #down(slot: number): void {
    const item = this.#heap[slot] as T
    const length = this.#heap.length
    let at = slot
    for (;;) {
      const left = 2 * at + 1
      if (left >= length) break
      const right = left + 1
      const child =
        right < length && before(this.#heap[right] as T, this.#heap[left] as T) ? right : left
      const below = this.#heap[child] as T
      if (!before(below, item)) break
      this.#place(below, at)
      at = child
    }
    this.#place(item, at)
  }

  #place(item: T, slot: number): void {
    this.#heap[slot] = item
    item.slot = slot
  }
}
