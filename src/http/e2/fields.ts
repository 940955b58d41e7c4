import { Type } from 'typebox'
import { field, isPlainObject } from '../../text.js'

/**
 * Reads a JSON body's fields for the E2 create rules: a body that is not an object has none of
 * them, so each required field is reported missing, together (all violations at once:
 * docs/supporting.md#users).
 */
export function bodyFields(body: unknown): (name: string) => unknown {
  const fields = isPlainObject(body) ? body : {}
  return (name) => field(fields, name)
}

/** Text that is not blank, trimmed; undefined for anything else. */
export function nonBlankText(value: unknown): string | undefined {
  const trimmed = typeof value === 'string' ? value.trim() : ''
  return trimmed === '' ? undefined : trimmed
}

/** An email: text with an at-sign, trimmed (docs/supporting.md#users). */
export function emailAddress(value: unknown): string | undefined {
  const email = nonBlankText(value)
  return email?.includes('@') ? email : undefined
}

export const EMAIL_RULE = 'email is required: text containing @'

/**
 * `emailAddress` as a schema: text with an at-sign, which is never trimmed away, so the
 * at-sign alone says "not blank" too.
 */
export const emailSchema = (description: string) =>
  Type.String({ minLength: 1, pattern: '@', description })
