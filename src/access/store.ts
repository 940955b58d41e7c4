import { hash } from 'node:crypto'
import type { Identity, Peran } from './identity.js'

/** A known credential: who it is, and a stable reference that is not the secret. */
export interface Credential {
  identity: Identity
  /** Stands for the secret wherever one is needed as a key (rate-limit buckets). */
  ref: string
}

/** A credential as `/kredensial` shows it: never its secret, nor its digest. */
export interface CredentialRecord {
  id: number
  nama: string
  peran: Peran
  created_at: string
  /** When it stops being accepted; null: never. */
  kedaluwarsa: string | null
  /** Null until its first use; then within a few seconds of its latest. */
  last_used_at: string | null
}

/** A credential as it is created: its secret is shown once, and only its digest kept. */
export interface NewCredential extends Identity {
  secret: string
  kedaluwarsa: Date | null
}

/** Why a credential presented was refused (401). */
export type RefusalReason = 'unknown' | 'revoked' | 'expired'

/** What came of a revocation. */
export type Revocation = 'revoked' | 'not-found' | 'last-admin'

/**
 * The one credential table: Bearer tokens and API keys are looked up in it alike. Secrets are
 * kept as SHA-256 digests, never in clear; `add` loads the seed, `create` is `POST /kredensial`.
 * Ids count from 1, the seed's first.
 */
export interface CredentialStore {
  /**
   * The credential a secret belongs to, or undefined for an unknown, revoked or expired one.
   * A use is noted (`last_used_at`), at most once a second per credential and process.
   */
  identify(secret: string): Promise<Credential | undefined>
  /** Why `identify` refused a secret, for the metrics: asked only when it did. */
  whyRefused(secret: string): Promise<RefusalReason>
  add(secret: string, identity: Identity): Promise<void>
  create(credential: NewCredential): Promise<CredentialRecord>
  list(): Promise<CredentialRecord[]>
  get(id: number): Promise<CredentialRecord | undefined>
  /**
   * Removes it, unless it is the last admin credential that has not expired (`last-admin`):
   * atomically, so that two revocations at once cannot remove the last two. Its digest is kept,
   * out of sight, so that a later use of it is told apart (`revoked`): in memory only the latest
   * revoked ones' (docs/decisions.md#credentials-managed-at-run-time). Its id is never reused.
   */
  revoke(id: number): Promise<Revocation>
}

/** What every store keeps in place of a secret, and the credential's `ref` (in hex). */
export const secretDigest = (secret: string) => hash('sha256', secret, 'buffer')

/** The same digest in lowercase hex, as the credential's `ref` and the memory store's key. */
export const secretDigestHex = (secret: string) => hash('sha256', secret, 'hex')

/** How often one process writes a credential's `last_used_at` at most. */
export const USE_NOTED_EVERY_MS = 1000
