// What an `Idempotency-Key` (IETF draft-ietf-httpapi-idempotency-key-header;
// docs/decisions.md#safe-retries) needs from a store: one atomic step that either hands the key to
// the request that sent it first, or says what became of that first request; then the first answer
// kept for the replays.

/** Which key: the client's `Idempotency-Key`, within its request target. */
export interface KeyRef {
  /** The method and request target, `POST /tugas/1/komentar`: a key is per target. */
  scope: string
  /** The `Idempotency-Key` value as sent (1 to 255 visible ASCII characters). */
  key: string
}

/** The first answer to a key, as replayed: status, body text, and the headers that name it. */
export interface StoredAnswer {
  status: number
  /** The body exactly as sent (JSON text); empty when there was none. */
  body: string
  /** Lowercase header names and their values (`content-type`, `location`, `etag`). */
  headers: Record<string, string>
}

/** What `begin` found. */
export type Begun =
  /** No live entry: this request owns the key now; `token` proves it to `complete`/`release`. */
  | { outcome: 'new'; token: string }
  /** The first request with this key and body was answered: its answer, to send again. */
  | { outcome: 'replay'; answer: StoredAnswer }
  /** The key was first sent with another body. */
  | { outcome: 'mismatch' }
  /** The first request with this key and body has not been answered yet. */
  | { outcome: 'in-flight' }

/**
 * How long a key is remembered, from its first request: 24 hours (docs/decisions.md#safe-retries).
 */
export const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000

/**
 * How long an unanswered first request holds its key: after 60 s without an answer (its process
 * died, or lost the store before it could release the key) a request with the same key and body
 * takes the key over and is processed. Longer than any request takes: a statement is given up
 * on after `DATABASE_STATEMENT_TIMEOUT_MS` plus a second.
 */
export const LEASE_MS = 60 * 1000

/**
 * The times a `begin` at `at` (milliseconds since the epoch) goes by, the same in every store: a
 * key first sent at or before `forgotten` is forgotten; the key it takes is held until
 * `leaseUntil`.
 */
export function keyTimes(at: number): { forgotten: number; leaseUntil: number } {
  return { forgotten: at - KEY_LIFETIME_MS, leaseUntil: at + LEASE_MS }
}

/**
 * The keys of idempotent requests, kept `KEY_LIFETIME_MS` from the first request (an injected
 * clock, `now`), in the same store as the data: in process memory, or in PostgreSQL, where they
 * hold across processes and restarts.
 */
export interface IdempotencyStore {
  /**
   * In one atomic step: a key never seen (or forgotten: older than 24 hours) is taken for this
   * request, `new`; otherwise a `fingerprint` (the body's) other than the first request's is a
   * `mismatch`; the same one is a `replay` of the stored answer, or `in-flight` while the first
   * request holds the key, until its lease runs out and this request takes the key over (`new`).
   * Of any number of concurrent calls with one key, at most one is `new`.
   */
  begin(ref: KeyRef, fingerprint: string, now: Date): Promise<Begun>
  /** Keeps `answer` for the replays, if `token` (from `begin`) still owns the key. */
  complete(ref: KeyRef, token: string, answer: StoredAnswer): Promise<void>
  /**
   * Forgets the key, if `token` still owns it and it has no answer: the request ended without an
   * answer worth replaying (a 5xx), so a retry is processed anew.
   */
  release(ref: KeyRef, token: string): Promise<void>
}
