import type { Queryable } from '../../../store/postgres/database.js'
import { first } from '../../../store/postgres/rows.js'
import { fromText, toText } from '../../../store/postgres/text.js'
import type { Identity } from './identity.js'
import { type CredentialStore, secretDigest } from './store.js'

/**
 * The credential table in PostgreSQL, keyed by the SHA-256 digest of each secret: the secret
 * itself is never stored, and a lookup by digest reveals nothing usable about it.
 */
export class PgCredentialStore implements CredentialStore {
  constructor(private readonly db: Queryable) {}

  async add(secret: string, { nama, peran }: Identity) {
    await this.db.query('INSERT INTO credentials (digest, nama, peran) VALUES ($1, $2, $3)', [
      secretDigest(secret),
      toText(nama),
      peran,
    ])
  }

  async identify(secret: string) {
    const digest = secretDigest(secret)
    const row = first(
      await this.db.query<Identity>('SELECT nama, peran FROM credentials WHERE digest = $1', [
        digest,
      ]),
    )
    return (
      row && {
        identity: { nama: fromText(row.nama), peran: row.peran },
        ref: digest.toString('hex'),
      }
    )
  }
}
