import type { Queryable } from '../store/postgres/database.js'
import { first } from '../store/postgres/rows.js'
import { fromText, toText } from '../store/postgres/text.js'
import type { Identity, Peran } from './identity.js'
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

interface Row {
  id: number
  nama: string
  peran: Peran
  created_at: Date
  kedaluwarsa: Date | null
  last_used_at: Date | null
}

/**
 * How long a credential found is trusted without reading the table again
 * (docs/decisions.md#credentials-managed-at-run-time): under a second, so that a revocation
 * holds everywhere within one, the lookup that follows included.
 */
const CACHE_MS = 900
/** Credentials cached at most; past it the cache starts afresh. */
const CACHE_MAX = 10_000

const COLUMNS = 'id, nama, peran, created_at, kedaluwarsa, last_used_at'

const record = (row: Row): CredentialRecord => ({
  id: row.id,
  nama: fromText(row.nama),
  peran: row.peran,
  created_at: row.created_at.toISOString(),
  kedaluwarsa: row.kedaluwarsa?.toISOString() ?? null,
  last_used_at: row.last_used_at?.toISOString() ?? null,
})

/**
 * The credential table in PostgreSQL, keyed by the SHA-256 digest of each secret: the secret
 * itself is never stored, and a lookup by digest reveals nothing usable about it. A credential
 * found is trusted for at most a second (never past its expiry), while the database answers:
 * a revocation elsewhere holds here within that second (docs/decisions.md).
 */
export class PgCredentialStore implements CredentialStore {
  /** When this process last wrote each credential's `last_used_at` (milliseconds). */
  readonly #noted = new Map<number, number>()
  /** Credentials found of late, by digest (hex): a credentialed request reads no table. */
  readonly #cache = new Map<string, { id: number; credential: Credential; until: number }>()

  constructor(
    private readonly db: Queryable,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async add(secret: string, identity: Identity) {
    await this.#insert({ ...identity, secret, kedaluwarsa: null })
  }

  async create(credential: NewCredential) {
    return record(await this.#insert(credential))
  }

  async #insert({ secret, nama, peran, kedaluwarsa }: NewCredential): Promise<Row> {
    const { rows } = await this.db.query<Row>(
      `INSERT INTO credentials (digest, nama, peran, created_at, kedaluwarsa)
       VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
      [secretDigest(secret), toText(nama), peran, this.now(), kedaluwarsa],
    )
    return rows[0] as Row
  }

  async identify(secret: string) {
    const digest = secretDigest(secret)
    const now = this.now()
    const key = digest.toString('hex')
    const cached = this.#cache.get(key)
    // Only while the database answers: once a statement finds it away, every credentialed
    // request asks it again, and so is 503 until it is back (docs/decisions.md).
    if (cached !== undefined && cached.until > now.getTime() && this.db.answering !== false) {
      await this.#used(cached.id, now)
      return cached.credential
    }
    const found = await this.#lookUp(digest, now)
    if (found === undefined) return undefined
    // Kept for at most a second, and never past the credential's expiry: a revocation or an
    // expiry elsewhere holds here within that second (docs/decisions.md#credentials-managed-at-run-time).
    if (this.#cache.size >= CACHE_MAX) this.#cache.clear()
    const until = Math.min(now.getTime() + CACHE_MS, found.expires ?? Number.POSITIVE_INFINITY)
    this.#cache.set(key, { id: found.id, credential: found.credential, until })
    await this.#used(found.id, now)
    return found.credential
  }

  async #lookUp(digest: Buffer, now: Date) {
    const row = first(
      await this.db.query<Row>(
        `SELECT id, nama, peran, kedaluwarsa FROM credentials
         WHERE digest = $1 AND revoked_at IS NULL AND (kedaluwarsa IS NULL OR kedaluwarsa > $2)`,
        [digest, now],
      ),
    )
    if (row === undefined) return undefined
    // Frozen: the cache hands the same object to every request that presents the secret.
    const identity = Object.freeze({ nama: fromText(row.nama), peran: row.peran })
    return {
      id: row.id,
      credential: Object.freeze({ identity, ref: digest.toString('hex') }),
      expires: row.kedaluwarsa?.getTime(),
    }
  }

  async whyRefused(secret: string): Promise<RefusalReason> {
    const row = first(
      await this.db.query<{ revoked: boolean }>(
        'SELECT revoked_at IS NOT NULL AS revoked FROM credentials WHERE digest = $1',
        [secretDigest(secret)],
      ),
    )
    return row === undefined ? 'unknown' : row.revoked ? 'revoked' : 'expired'
  }

  /** Notes a use, at most once a second per credential from this process. */
  async #used(id: number, now: Date): Promise<void> {
    const last = this.#noted.get(id)
    if (last !== undefined && now.getTime() - last < USE_NOTED_EVERY_MS) return
    this.#noted.set(id, now.getTime())
    await this.db.query(
      'UPDATE credentials SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2)',
      [id, now],
    )
  }

  async list() {
    const { rows } = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM credentials WHERE revoked_at IS NULL ORDER BY id`,
    )
    return rows.map(record)
  }

  async get(id: number) {
    const { rows } = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM credentials WHERE id = $1 AND revoked_at IS NULL`,
      [id],
    )
    return rows[0] && record(rows[0])
  }

  async revoke(id: number): Promise<Revocation> {
    const now = this.now()
    return this.db.transaction(async (client) => {
      // Every admin credential locked with the one revoked: revocations run one at a time.
      const { rows } = await client.query<{ id: number; peran: Peran; live: boolean }>(
        `SELECT id, peran, (kedaluwarsa IS NULL OR kedaluwarsa > $2) AS live FROM credentials
         WHERE (id = $1 OR peran = 'admin') AND revoked_at IS NULL ORDER BY id FOR UPDATE`,
        [id, now],
      )
      const target = rows.find((row) => row.id === id)
      if (target === undefined) return 'not-found'
      const liveAdmins = rows.filter((row) => row.peran === 'admin' && row.live)
      if (liveAdmins.length === 1 && liveAdmins[0]?.id === id) return 'last-admin'
      await client.query('UPDATE credentials SET revoked_at = $2 WHERE id = $1', [id, now])
      // In this process at once; in the others within CACHE_MS.
      this.#cache.clear()
      return 'revoked'
    })
  }
}
