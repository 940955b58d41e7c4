import { hash } from 'node:crypto'
import type { Identity } from './identity.js'

/** A known credential: who it is, and a stable reference that is not the secret. */
export interface Credential {
  identity: Identity
  /** Stands for the secret wherever one is needed as a key (rate-limit buckets). */
  ref: string
}

/**
 * The one credential table: Bearer tokens and API keys are looked up in it alike. Secrets are
 * kept as SHA-256 digests, never in clear; `add` loads the seed.
 */
export interface CredentialStore {
  /** The credential a secret belongs to, or undefined for an unknown secret. */
  identify(secret: string): Promise<Credential | undefined>
  add(secret: string, identity: Identity): Promise<void>
}

/** What every store keeps in place of a secret, and the credential's `ref` (in hex). */
export const secretDigest = (secret: string) => hash('sha256', secret, 'buffer')
