import { createHash, randomUUID } from 'node:crypto'
import type { Queryable } from '../postgres/database.js'
import { first } from '../postgres/rows.js'
import type { Begun, IdempotencyStore, KeyRef, StoredAnswer } from './store.js'
import { keyTimes } from './store.js'

/** How often a process deletes forgotten keys, and how many at most each time. */
const SWEEP_EVERY_MS = 60 * 1000
const SWEEP_BATCH = 10_000
const MAX_ATTEMPTS = 5

/**
 * Takes the key when it is new, forgotten (24 hours old: `$8`), or left in flight past its lease
 * by a request with the same body; a row comes back only then. One statement: of concurrent
 * ones with one key, in however many processes, the unique key lets exactly one take it.
 */
const TAKE = `
  INSERT INTO idempotency_keys AS k
    (scope_hash, key, scope, fingerprint, owner, created_at, lease_until)
  VALUES ($1, $2, $3, $4, $5, $6, $7)
  ON CONFLICT (scope_hash, key) DO UPDATE SET
    scope = EXCLUDED.scope, fingerprint = EXCLUDED.fingerprint, owner = EXCLUDED.owner,
    created_at = EXCLUDED.created_at, lease_until = EXCLUDED.lease_until,
    status = NULL, body = NULL, headers = NULL
  WHERE k.created_at <= $8
    OR (k.status IS NULL AND k.lease_until <= $6 AND k.fingerprint = EXCLUDED.fingerprint)
  RETURNING k.owner`

const READ = `
  SELECT fingerprint, status, body, headers FROM idempotency_keys
  WHERE scope_hash = $1 AND key = $2 AND created_at > $3`

const COMPLETE = `
  UPDATE idempotency_keys SET status = $4, body = $5, headers = $6
  WHERE scope_hash = $1 AND key = $2 AND owner = $3 AND status IS NULL`

const RELEASE = `
  DELETE FROM idempotency_keys
  WHERE scope_hash = $1 AND key = $2 AND owner = $3 AND status IS NULL`

const SWEEP = `
  DELETE FROM idempotency_keys WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM idempotency_keys WHERE created_at <= $1 LIMIT ${SWEEP_BATCH}))`

interface KeyRow {
  fingerprint: string
  status: number | null
  body: Buffer | null
  headers: Record<string, string> | null
}

/**
 * Keys in PostgreSQL (table `idempotency_keys`, migration 002): shared by every process and
 * kept across restarts. Rows older than 24 hours are ignored at once and deleted in batches of
 * up to 10,000, at most once a minute per process (again at the next request while a batch
 * comes back full).
 */
export class PgIdempotencyStore implements IdempotencyStore {
  #nextSweep = 0

  constructor(private readonly db: Queryable) {}

  async begin(ref: KeyRef, fingerprint: string, now: Date): Promise<Begun> {
    const at = now.getTime()
    const times = keyTimes(at)
    const forgotten = new Date(times.forgotten)
    if (at >= this.#nextSweep) await this.#sweep(at, forgotten)
    const [hash, key] = keyOf(ref)
    // The row TAKE did not take may be released before it is read: then try again (a key
    // released over and over between the two statements is, for this request, in flight).
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const owner = randomUUID()
      const taken = await this.db.query(TAKE, [
        hash,
        key,
        ref.scope,
        fingerprint,
        owner,
        now,
        new Date(times.leaseUntil),
        forgotten,
      ])
      if (taken.rows.length > 0) return { outcome: 'new', token: owner }
      const row = first(await this.db.query<KeyRow>(READ, [hash, key, forgotten]))
      if (row === undefined) continue
      if (row.fingerprint !== fingerprint) return { outcome: 'mismatch' }
      if (row.status === null) return { outcome: 'in-flight' }
      const answer: StoredAnswer = {
        status: row.status,
        body: row.body?.toString('utf8') ?? '',
        headers: row.headers ?? {},
      }
      return { outcome: 'replay', answer }
    }
    return { outcome: 'in-flight' }
  }

  async complete(ref: KeyRef, token: string, answer: StoredAnswer): Promise<void> {
    await this.db.query(COMPLETE, [
      ...keyOf(ref),
      token,
      answer.status,
      Buffer.from(answer.body, 'utf8'),
      JSON.stringify(answer.headers),
    ])
  }

  async release(ref: KeyRef, token: string): Promise<void> {
    await this.db.query(RELEASE, [...keyOf(ref), token])
  }

  async #sweep(at: number, forgotten: Date): Promise<void> {
    this.#nextSweep = at + SWEEP_EVERY_MS
    const { rowCount } = await this.db.query(SWEEP, [forgotten])
    if ((rowCount ?? 0) >= SWEEP_BATCH) this.#nextSweep = at
  }
}

function keyOf({ scope, key }: KeyRef): [Buffer, string] {
  return [createHash('sha256').update(scope).digest(), key]
}
