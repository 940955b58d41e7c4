import { type Static, Type } from 'typebox'
import type { UsersVariant } from '../../../config.js'
import { trimmedText } from '../../../http/body-schemas.js'
import { emailSchema } from '../../../http/e2/fields.js'
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
  name: trimmedText({ min: 1, description: 'Required; trimmed, then not empty; stored trimmed.' }),
  email: emailSchema(
    'Required; contains @; stored trimmed; unique ignoring letter case (409 otherwise).',
  ),
}

/**
 * A body `POST /users` accepts in `variant`, once: the demo data has no user, and a second
 * user with the same email is 409.
 */
export function newUserExample(variant: UsersVariant) {
  const user = { name: 'Rina Wijaya', email: 'rina.wijaya@example.com' }
  return variant === 'flat' ? user : { ...user, password: 'kata-sandi-rina' }
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
      description:
        `Required; ${PASSWORD_MIN} or more characters (Unicode code points), not trimmed. ` +
        'Kept only as a salted hash.',
    }),
  })
}
