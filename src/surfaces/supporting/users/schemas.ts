import { type Static, Type } from 'typebox'
import type { UsersVariant } from '../../../config.js'
import { PASSWORD_MIN } from './rules.js'

export const User = Type.Object(
  {
    id: Type.Integer({ minimum: 1 }),
    name: Type.String(),
    email: Type.String(),
    created_at: Type.String({ format: 'date-time', description: 'RFC 3339, UTC.' }),
  },
  { description: 'A user. The password is never part of any representation.' },
)
export type User = Static<typeof User>

export const UserEnvelope = Type.Object({ data: User })

export const UserList = Type.Object({
  data: Type.Array(User),
  meta: Type.Object({ page: Type.Literal(1), total: Type.Integer({ minimum: 0 }) }),
})

const newUserFields = {
  name: Type.String({ description: 'Required; trimmed; not empty.' }),
  email: Type.String({ description: 'Required; contains @; unique ignoring letter case.' }),
}

/** The body of `POST /users` as `variant` reads it: only the enveloped variant takes a password. */
export function newUser(variant: UsersVariant) {
  if (variant === 'flat') {
    return Type.Object(newUserFields, {
      description: 'Any other member, `password` included, is ignored.',
    })
  }
  return Type.Object({
    ...newUserFields,
    password: Type.String({
      minLength: PASSWORD_MIN,
      description: `Required; ${PASSWORD_MIN} or more characters. Kept only as a salted hash.`,
    }),
  })
}
