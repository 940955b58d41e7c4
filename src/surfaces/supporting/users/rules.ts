import type { UsersVariant } from '../../../config.js'
import { bodyFields, EMAIL_RULE, emailAddress, nonBlankText } from '../../../http/e2/fields.js'
import { validationError } from '../../../http/e2/shape.js'
import { codePointLength } from '../../../text.js'

export const PASSWORD_MIN = 8

export const userViolations = {
  name: 'name is required: text, not empty after trimming',
  email: EMAIL_RULE,
  password: `password is required: text of at least ${PASSWORD_MIN} characters`,
} as const

export interface UserInput {
  name: string
  email: string
  /** Present in the enveloped variant only. */
  password?: string
}

/**
 * Both variants: `name` required and not blank (stored trimmed), `email` with an at-sign
 * (stored trimmed). The enveloped variant also requires a `password` of at least 8 code points.
 * Every violation is reported at once: 400 `VALIDATION_ERROR`.
 */
export function checkNewUser(body: unknown, variant: UsersVariant): UserInput {
  const read = bodyFields(body)
  const violations: Record<string, string> = {}
  const name = nonBlankText(read('name'))
  if (name === undefined) violations.name = userViolations.name
  const email = emailAddress(read('email'))
  if (email === undefined) violations.email = userViolations.email
  const password = read('password')
  const enveloped = variant === 'enveloped'
  if (enveloped && (typeof password !== 'string' || codePointLength(password) < PASSWORD_MIN)) {
    violations.password = userViolations.password
  }
  if (Object.keys(violations).length > 0) throw validationError(violations)
  return {
    name: name as string,
    email: email as string,
    ...(enveloped && { password: password as string }),
  }
}
