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
  /** What is kept in place of user `id`'s password: a salted hash, or undefined (flat variant). */
  passwordHash(id: number): Promise<string | undefined>
}

/**
 * The form of an email that uniqueness compares, computed here once for every store: a
 * database computing its own (`lower()`) would disagree with JavaScript for some scripts.
 */
export const emailKey = (email: string) => email.toLowerCase()
