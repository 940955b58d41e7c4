import { bodyFields, EMAIL_RULE, emailAddress } from '../../../http/e2/fields.js'
import { validationError } from '../../../http/e2/shape.js'

export const orderViolations = {
  email: EMAIL_RULE,
  jumlah: 'jumlah is required: an integer greater than 0',
} as const

/** `email` with an at-sign and `jumlah` a whole number above 0, both reported together. */
export function checkNewOrder(body: unknown): { email: string; jumlah: number } {
  const read = bodyFields(body)
  const violations: Record<string, string> = {}
  const email = emailAddress(read('email'))
  if (email === undefined) violations.email = orderViolations.email
  const jumlah = read('jumlah')
  if (!Number.isSafeInteger(jumlah) || (jumlah as number) < 1) {
    violations.jumlah = orderViolations.jumlah
  }
  if (Object.keys(violations).length > 0) throw validationError(violations)
  return { email: email as string, jumlah: jumlah as number }
}
