import { timingSafeEqual } from 'node:crypto'
import type { Identity } from './identity.js'
import {
  type Credential,
  type CredentialRecord,
  type CredentialStore,
  type NewCredential,
  type RefusalReason,
  type Revocation,
  secretDigest,
  USE_NOTED_EVERY_MS,
} from './store.js'

interface Entry {
  digest: Buffer
  credential: Credential
  record: CredentialRecord
  /** Milliseconds since the epoch; undefined: never expires. */
  expires: number | undefined
  revoked: boolean
  /** When its `last_used_at` was last written (milliseconds; -Infinity: never). */
  usedAt: number
}

/**
 * Credentials in process memory, as digests. A lookup digests the presented secret and compares
 * it with every entry using `timingSafeEqual`, without stopping at a match: how long it takes
 * says nothing about how much of a secret was right, nor which entry matched.
 */
export class MemoryCredentialStore implements CredentialStore {
  #entries: Entry[] = []
  #nextId = 1

  constructor(private readonly now: () => Date = () => new Date()) {}

  async add(secret: string, identity: Identity) {
    this.#insert(secret, identity, null)
  }

  async create({ secret, nama, peran, kedaluwarsa }: NewCredential) {
    return { ...this.#insert(secret, { nama, peran }, kedaluwarsa).record }
  }

  #insert(secret: string, { nama, peran }: Identity, kedaluwarsa: Date | null): Entry {
    const digest = secretDigest(secret)
    // Frozen copies: neither the caller's object nor a returned credential can change the table.
    const identity = Object.freeze({ nama, peran })
    const entry: Entry = {
      digest,
      credential: Object.freeze({ identity, ref: digest.toString('hex') }),
      record: {
        id: this.#nextId++,
        nama,
        peran,
        created_at: this.now().toISOString(),
        kedaluwarsa: kedaluwarsa?.toISOString() ?? null,
        last_used_at: null,
      },
      expires: kedaluwarsa?.getTime(),
      revoked: false,
      usedAt: Number.NEGATIVE_INFINITY,
    }
    this.#entries.push(entry)
    return entry
  }

  #find(secret: string): Entry | undefined {
    const presented = secretDigest(secret)
    let found: Entry | undefined
    for (const entry of this.#entries) {
      if (timingSafeEqual(entry.digest, presented)) found = entry
    }
    return found
  }

  async identify(secret: string) {
    const found = this.#find(secret)
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
    const found = this.#find(secret)
    return found === undefined ? 'unknown' : found.revoked ? 'revoked' : 'expired'
  }

  #shown(): Entry[] {
    return this.#entries.filter(({ revoked }) => !revoked)
  }

  async list() {
    return this.#shown().map(({ record }) => ({ ...record }))
  }

  async get(id: number) {
    const entry = this.#shown().find(({ record }) => record.id === id)
    return entry && { ...entry.record }
  }

  async revoke(id: number): Promise<Revocation> {
    const entry = this.#shown().find(({ record }) => record.id === id)
    if (entry === undefined) return 'not-found'
    const now = this.now().getTime()
    const admins = this.#shown().filter((e) => e.record.peran === 'admin' && live(e, now))
    if (admins.length === 1 && admins[0] === entry) return 'last-admin'
    entry.revoked = true
    return 'revoked'
  }
}

const live = (entry: Entry, now: number) =>
  !entry.revoked && (entry.expires === undefined || entry.expires > now)
