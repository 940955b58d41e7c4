import { randomUUID } from 'node:crypto'
import type { Begun, IdempotencyStore, KeyRef, StoredAnswer } from './store.js'
import { keyTimes } from './store.js'

/** The bounds of the memory store: whichever is reached first evicts the oldest keys. */
export interface MemoryIdempotencyLimits {
  /** Keys held at most: 100,000 by default. */
  maxEntries?: number
  /**
   * Text held at most, counted as 2 bytes a character (scope, key, fingerprint, stored body and
   * headers) plus 200 per key: 64 MiB by default.
   */
  maxBytes?: number
}

interface Entry {
  fingerprint: string
  token: string
  /** Milliseconds since the epoch: the first request, and the end of its lease. */
  createdAt: number
  leaseUntil: number
  answer?: StoredAnswer
  size: number
}

const ENTRY_OVERHEAD = 200

/**
 * Keys in process memory, bounded: at most `maxEntries` keys and about `maxBytes` of text. A
 * Map keeps its keys in the order they were taken, which is the order of their first requests
 * (a key taken over after its lease moves to the end), so the oldest are at the front: expired
 * keys are swept from there on every `begin`, and when a bound is reached the oldest keys are
 * forgotten first, answered or not; a retry with a forgotten key is processed anew.
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  readonly #entries = new Map<string, Entry>()
  readonly #maxEntries: number
  readonly #maxBytes: number
  #bytes = 0

  constructor({ maxEntries = 100_000, maxBytes = 64 * 1024 * 1024 }: MemoryIdempotencyLimits = {}) {
    this.#maxEntries = maxEntries
    this.#maxBytes = maxBytes
  }

  /** Keys held now (tests of the bound). */
  get size(): number {
    return this.#entries.size
  }

  async begin(ref: KeyRef, fingerprint: string, now: Date): Promise<Begun> {
    const at = now.getTime()
    const { forgotten, leaseUntil } = keyTimes(at)
    this.#sweep(forgotten)
    const id = idOf(ref)
    const entry = this.#entries.get(id)
    if (entry !== undefined && entry.createdAt > forgotten) {
      if (entry.fingerprint !== fingerprint) return { outcome: 'mismatch' }
      if (entry.answer !== undefined) return { outcome: 'replay', answer: entry.answer }
      if (entry.leaseUntil > at) return { outcome: 'in-flight' }
    }
    // Never seen, forgotten, or left in flight past its lease: this request takes the key.
    if (entry !== undefined) this.#remove(id, entry)
    const token = randomUUID()
    const taken: Entry = {
      fingerprint,
      token,
      createdAt: at,
      leaseUntil,
      size: ENTRY_OVERHEAD + 2 * (id.length + fingerprint.length + token.length),
    }
    this.#entries.set(id, taken)
    this.#bytes += taken.size
    this.#evict(taken)
    return { outcome: 'new', token }
  }

  async complete(ref: KeyRef, token: string, answer: StoredAnswer): Promise<void> {
    const entry = this.#entries.get(idOf(ref))
    if (entry === undefined || entry.token !== token || entry.answer !== undefined) return
    const kept = Object.freeze({ ...answer, headers: Object.freeze({ ...answer.headers }) })
    entry.answer = kept
    const added = 2 * (kept.body.length + headersLength(kept.headers))
    entry.size += added
    this.#bytes += added
    this.#evict(entry)
  }

  async release(ref: KeyRef, token: string): Promise<void> {
    const id = idOf(ref)
    const entry = this.#entries.get(id)
    if (entry !== undefined && entry.token === token && entry.answer === undefined) {
      this.#remove(id, entry)
    }
  }

  /** Forgets the keys of first requests 24 hours old or older (`forgotten`), from the front. */
  #sweep(forgotten: number): void {
    for (const [id, entry] of this.#entries) {
      if (entry.createdAt > forgotten) return
      this.#remove(id, entry)
    }
  }

  /** Forgets the oldest keys, never `keep`, until both bounds hold. */
  #evict(keep: Entry): void {
    for (const [id, entry] of this.#entries) {
      if (this.#entries.size <= this.#maxEntries && this.#bytes <= this.#maxBytes) return
      if (entry === keep) continue
      this.#remove(id, entry)
    }
  }

  #remove(id: string, entry: Entry): void {
    this.#entries.delete(id)
    this.#bytes -= entry.size
  }
}

/** Neither part holds a line feed: a request target cannot, a key is visible ASCII. */
function idOf({ scope, key }: KeyRef): string {
  return `${scope}\n${key}`
}

function headersLength(headers: Record<string, string>): number {
  let length = 0
  for (const [name, value] of Object.entries(headers)) length += name.length + value.length
  return length
}
