import type { Queryable } from '../../../store/postgres/database.js'
import { sqlState, UNIQUE_VIOLATION } from '../../../store/postgres/errors.js'
import type { Published } from '../../../store/postgres/outbox.js'
import { first } from '../../../store/postgres/rows.js'
import { PgItems, table } from '../../../store/postgres/table.js'
import { fromText, toText } from '../../../store/postgres/text.js'
import type { User } from './schemas.js'
import { type CreateUserResult, emailKey, type NewUserRecord, type UserStore } from './store.js'

type UserRow = Omit<User, 'created_at'> & { created_at: Date }

const userOf = (row: UserRow): User => ({
  id: row.id,
  name: fromText(row.name),
  email: fromText(row.email),
  created_at: row.created_at.toISOString(),
})

export const users = table('users', 'id, name, email, created_at', userOf, {
  timestamps: ['created_at'],
})

/**
 * Users in PostgreSQL. Email uniqueness is the unique index on `email_key`, the key computed
 * once by `emailKey` for both stores: of two creates of one email, the database admits one.
 */
export class PgUserStore extends PgItems<User> implements UserStore {
  constructor(
    db: Queryable,
    private readonly now: () => Date = () => new Date(),
    published?: Published,
  ) {
    super(db, users, published)
  }

  async passwordHash(id: number) {
    const result = await this.db.query<{ password_hash: string | null }>(
      'SELECT password_hash FROM users WHERE id = $1',
      [id],
    )
    return first(result)?.password_hash ?? undefined
  }

  async create({ name, email, passwordHash }: NewUserRecord): Promise<CreateUserResult> {
    try {
      // An email seen taken inserts no row, so draws no id: ids stay without gaps.
      const user = await users.returning(
        this.db,
        `INSERT INTO users (name, email, email_key, password_hash, created_at)
           SELECT $1, $2, $3, $4, $5
           WHERE NOT EXISTS (SELECT 1 FROM users WHERE email_key = $3)`,
        [
          toText(name),
          toText(email),
          toText(emailKey(email)),
          passwordHash ?? null,
          // The instant as text with its `Z`: a Date would be sent in the process's time zone.
          this.now().toISOString(),
        ],
        this.publishing('users.created'),
      )
      return user === undefined ? { emailTaken: true } : { user }
    } catch (error) {
      // Two creates of one email at once: the unique index admits one (this one drew an id).
      if (sqlState(error) === UNIQUE_VIOLATION) return { emailTaken: true }
      throw error
    }
  }
}
