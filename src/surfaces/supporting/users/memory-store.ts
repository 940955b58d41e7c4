import type { Publish } from '../../../store/events.js'
import { MemoryCollection, publishes } from '../../../store/memory-collection.js'
import type { User } from './schemas.js'
import { type CreateUserResult, emailKey, type NewUserRecord, type UserStore } from './store.js'

type StoredUser = User & { passwordHash?: string }

const publicUser = ({ id, name, email, created_at }: StoredUser): User => ({
  id,
  name,
  email,
  created_at,
})

/** Users in process memory. */
export class MemoryUserStore implements UserStore {
  readonly #users = new MemoryCollection<StoredUser>()
  readonly #emails = new Set<string>()

  constructor(
    private readonly now: () => Date = () => new Date(),
    private readonly publish?: Publish,
  ) {}

  async list() {
    return this.#users.list().map(publicUser)
  }

  async get(id: number) {
    const user = this.#users.get(id)
    return user && publicUser(user)
  }

  async passwordHash(id: number) {
    return this.#users.get(id)?.passwordHash
  }

  async create(fields: NewUserRecord): Promise<CreateUserResult> {
    // No await between the check and the insert: concurrent creates of one email cannot both pass.
    const key = emailKey(fields.email)
    if (this.#emails.has(key)) return { emailTaken: true }
    this.#emails.add(key)
    const created_at = this.now().toISOString()
    const published = publishes(this.publish, 'users.created', { view: publicUser })
    return { user: publicUser(this.#users.add((id) => ({ id, ...fields, created_at }), published)) }
  }
}
