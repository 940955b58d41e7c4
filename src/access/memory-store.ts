import type { Identity } from './identity.js'
import {
  type Credential,
  type CredentialRecord,
  type CredentialStore,
  type NewCredential,
  type RefusalReason,
  type Revocation,
  secretDigestHex,
  USE_NOTED_EVERY_MS,
} from './store.js'

interface Entry {
  /** The secret's SHA-256, in hex: its key. */
  key: string
  credential: Credential
  record: CredentialRecord
  /** Milliseconds since the epoch; undefined: never expires. */
  expires: number | undefined
  /** When its `last_used_at` was last written (milliseconds; -Infinity: never). */
  usedAt: number
}

/** Digests of revoked credentials remembered at most, for the metrics' reason. */
export const REVOKED_KEPT = 10_000

/**
 * Credentials in process memory, keyed by the SHA-256 digest of each secret: a lookup digests
 * the presented secret and finds its key, so how long it takes says nothing about how much of
 * a secret was right (the digest of a near miss shares nothing with it), and it does not grow
 * with the table. A revoked credential is removed; only its digest is remembered, the latest
 * REVOKED_KEPT, so that a later use of it is counted as `revoked` (docs/supporting.md).
 */
export class MemoryCredentialStore implements CredentialStore {
  readonly #bySecret = new Map<string, Entry>()
  /** In id order, which is the order of creation. */
  readonly #byId = new Map<number, Entry>()
  /** In the order they were revoked. */
  readonly #revoked = new Set<string>()
  /** Never handed out twice, revoked credentials' ids included. */
  #nextId = 1

  constructor(private readonly now: () => Date = () => new Date()) {}

  async add(secret: string, identity: Identity) {
    this.#insert(secret, identity, null)
  }

  async create({ secret, nama, peran, kedaluwarsa }: NewCredential) {
    return { ...this.#insert(secret, { nama, peran }, kedaluwarsa).record }
  }

  #insert(secret: string, { nama, peran }: Identity, kedaluwarsa: Date | null): Entry {
    const key = secretDigestHex(secret)
    // Frozen copies: neither the caller's object nor a returned credential can change the table.
    const identity = Object.freeze({ nama, peran })
    const entry: Entry = {
      key,
      credential: Object.freeze({ identity, ref: key }),
      record: {
        id: this.#nextId++,
        nama,
        peran,
        created_at: this.now().toISOString(),
        kedaluwarsa: kedaluwarsa?.toISOString() ?? null,
        last_used_at: null,
      },
      expires: kedaluwarsa?.getTime(),
      usedAt: Number.NEGATIVE_INFINITY,
    }
    this.#bySecret.set(key, entry)
    this.#byId.set(entry.record.id, entry)
    this.#revoked.delete(key)
    return entry
  }

  async identify(secret: string) {
    const found = this.#bySecret.get(secretDigestHex(secret))
    const now = this.now().getTime()
    if (found === undefined || !live(found, now)) return undefined
    // Written at most once a second, as on PostgreSQL: a date's text per request is measurable.
    if (now - found.usedAt >= USE_NOTED_EVERY_MS) {
      found.usedAt = now
      found.record.last_used_at = new Date(now).toISOString()
    }
    return found.credential
  }

  async whyRefused(secret: string): Promise<RefusalReason> {
    const key = secretDigestHex(secret)
    if (this.#bySecret.has(key)) return 'expired'
    return this.#revoked.has(key) ? 'revoked' : 'unknown'
  }

  async list() {
    return [...this.#byId.values()].map(({ record }) => ({ ...record }))
  }

  async get(id: number) {
    const entry = this.#byId.get(id)
    return entry && { ...entry.record }
  }

  async revoke(id: number): Promise<Revocation> {
    const entry = this.#byId.get(id)
    if (entry === undefined) return 'not-found'
    const now = this.now().getTime()
    if (isLiveAdmin(entry, now) && !this.#anotherLiveAdmin(entry, now)) return 'last-admin'
    this.#byId.delete(id)
    // Another entry may hold the same secret (a seed that names it twice): the later one wins.
    if (this.#bySecret.get(entry.key) === entry) {
      this.#bySecret.delete(entry.key)
      this.#revoked.add(entry.key)
      for (const oldest of this.#revoked) {
        if (this.#revoked.size <= REVOKED_KEPT) break
        this.#revoked.delete(oldest)
      }
    }
    return 'revoked'
  }

  #anotherLiveAdmin(entry: Entry, now: number): boolean {
    for (const other of this.#byId.values()) {
      if (other !== entry && isLiveAdmin(other, now)) return true
    }
    return false
  }
}

const live = (entry: Entry, now: number) => entry.expires === undefined || entry.expires > now

const isLiveAdmin = (entry: Entry, now: number) =>
  entry.record.peran === 'admin' && live(entry, now)
