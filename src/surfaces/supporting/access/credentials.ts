import { createHash, timingSafeEqual } from 'node:crypto'
import type { Identity } from '../../../seed.js'

/** A known credential: who it is, and a stable reference that is not the secret. */
export interface Credential {
  identity: Identity
  /** Stands for the secret wherever one is needed as a key (rate-limit buckets). */
  ref: string
}

/** The one credential table: Bearer tokens and API keys are looked up in it alike. */
export interface CredentialStore {
  /** The credential a secret belongs to, or undefined for an unknown secret. */
  identify(secret: string): Promise<Credential | undefined>
}

const digest = (secret: string) => createHash('sha256').update(secret, 'utf8').digest()

/**
 * Credentials from the seed, held as SHA-256 digests. A lookup digests the presented secret and
 * compares it with every entry using `timingSafeEqual`, without stopping at a match: how long it
 * takes says nothing about how much of a secret was right, nor which entry matched.
 */
export class MemoryCredentialStore implements CredentialStore {
  readonly #entries: { digest: Buffer; credential: Credential }[]

  constructor(credentials: Record<string, Identity>) {
    this.#entries = Object.entries(credentials).map(([secret, identity]) => {
      const hash = digest(secret)
      return { digest: hash, credential: { identity, ref: hash.toString('hex') } }
    })
  }

  async identify(secret: string) {
    const presented = digest(secret)
    let found: Credential | undefined
    for (const entry of this.#entries) {
      if (timingSafeEqual(entry.digest, presented)) found = entry.credential
    }
    return found
  }
}
