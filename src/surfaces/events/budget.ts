/** Something that holds bytes waiting to be sent, and can be dropped to release them. */
export interface Holder {
  /** The bytes waiting for it now, as sent (UTF-8). */
  readonly holding: number
  /** Drops it at once, as a slow reader is: its bytes are released. */
  drop(): void
}

/**
 * The bytes waiting for every open stream of one process together (EVENTS_BUFFER_BYTES,
 * docs/events.md#memory). Each stream tells what it holds after each write; once the sum passes
 * the limit, every stream is asked again on the next turn of the event loop, when what was just
 * written has gone on to the sockets that take it (a batch is written to every stream in one
 * go: counted then, every stream would seem to hold it, readers too). The sum told can only
 * overstate (a client that read since has not said so); if the true sum still passes the
 * limit, the streams holding the most are dropped until it is back under seven eighths of it:
 * the room left spares a recount at every following write.
 */
export class StreamBudget {
  readonly #told = new Map<Holder, number>()
  #total = 0
  #checking = false

  constructor(readonly limit: number) {}

  /** The bytes waiting for all, as last told. */
  get total(): number {
    return this.#total
  }

  /** What `holder` holds now: past the limit, a check on the next turn. */
  note(holder: Holder, bytes: number): void {
    this.#total += bytes - (this.#told.get(holder) ?? 0)
    this.#told.set(holder, bytes)
    if (this.#total <= this.limit || this.#checking) return
    this.#checking = true
    setImmediate(() => {
      this.#checking = false
      this.enforce()
    })
  }

  /** `holder` is gone: what it held no longer counts. */
  forget(holder: Holder): void {
    const told = this.#told.get(holder)
    if (told === undefined) return
    this.#total -= told
    this.#told.delete(holder)
  }

  /** Asks every stream what it holds; drops those holding the most while past the limit. */
  enforce(): void {
    this.#total = 0
    for (const holder of this.#told.keys()) {
      const bytes = holder.holding
      this.#told.set(holder, bytes)
      this.#total += bytes
    }
    if (this.#total <= this.limit) return
    const target = this.limit - Math.floor(this.limit / 8)
    const largestFirst = [...this.#told].sort((a, b) => b[1] - a[1])
    for (const [holder] of largestFirst) {
      if (this.#total <= target) break
      this.forget(holder)
      holder.drop()
    }
  }
}
