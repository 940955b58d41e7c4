import { timingSafeEqual } from 'node:crypto'
import type { Identity } from './identity.js'
import { type Credential, type CredentialStore, secretDigest } from './store.js'

/**
 * Credentials in process memory, as digests. A lookup digests the presented secret and compares
 * it with every entry using `timingSafeEqual`, without stopping at a match: how long it takes
 * says nothing about how much of a secret was right, nor which entry matched.
 */
export class MemoryCredentialStore implements CredentialStore {
  readonly #entries: { digest: Buffer; credential: Credential }[] = []

  async add(secret: string, { nama, peran }: Identity) {
    const digest = secretDigest(secret)
    // Frozen copies: neither the caller's object nor a returned credential can change the table.
    const identity = Object.freeze({ nama, peran })
    this.#entries.push({
      digest,
      credential: Object.freeze({ identity, ref: digest.toString('hex') }),
    })
  }

  async identify(secret: string) {
    const presented = secretDigest(secret)
    let found: Credential | undefined
    for (const entry of this.#entries) {
      if (timingSafeEqual(entry.digest, presented)) found = entry.credential
    }
    return found
  }
}
