import { MemoryCollection } from '../../../store/memory-collection.js'
import type { User } from './schemas.js'

export interface NewUserRecord {
  name: string
  email: string
  /** The salted scrypt hash, never the password; absent in the flat variant. */
  passwordHash?: string
}

export type CreateUserResult = { user: User } | { emailTaken: true }

/** Users. Representations never carry the password hash. */
export interface UserStore {
  list(): Promise<User[]>
  get(id: number): Promise<User | undefined>
  /** Adds the user unless the email is taken, ignoring letter case: one indivisible step. */
  create(fields: NewUserRecord): Promise<CreateUserResult>
}

type StoredUser = User & { passwordHash?: string }

const publicUser = ({ id, name, email, created_at }: StoredUser): User => ({
  id,
  name,
  email,
  created_at,
})

export const emailKey = (email: string) => email.toLowerCase()

export class MemoryUserStore implements UserStore {
  readonly #users = new MemoryCollection<StoredUser>()
  readonly #emails = new Set<string>()

  constructor(private readonly now: () => Date = () => new Date()) {}

  async list() {
    return this.#users.list().map(publicUser)
  }

  async get(id: number) {
    const user = this.#users.get(id)
    return user && publicUser(user)
  }

  /** What is kept in place of a password: lets tests check it is a salted hash. */
  storedPasswordHash(id: number): string | undefined {
    return this.#users.get(id)?.passwordHash
  }

  async create(fields: NewUserRecord): Promise<CreateUserResult> {
    // No await between the check and the insert: concurrent creates of one email cannot both pass.
    const key = emailKey(fields.email)
    if (this.#emails.has(key)) return { emailTaken: true }
    this.#emails.add(key)
    const created_at = this.now().toISOString()
    return { user: publicUser(this.#users.add((id) => ({ id, ...fields, created_at }))) }
  }
}
