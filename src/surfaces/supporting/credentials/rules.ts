import type { Peran } from '../../../access/identity.js'
import { bodyFields, nonBlankText } from '../../../http/e2/fields.js'
import { validationError } from '../../../http/e2/shape.js'
import { codePointLength, rfc3339Instant } from '../../../text.js'

export const NAMA_MAX = 100

export const credentialViolations = {
  nama: `nama is required: text of 1 to ${NAMA_MAX} characters after trimming`,
  peran: 'peran is required: "user" or "admin"',
  kedaluwarsa: 'kedaluwarsa, when given, must be an RFC 3339 date-time with offset, in the future',
} as const

export interface CredentialInput {
  nama: string
  peran: Peran
  kedaluwarsa: Date | null
}

/**
 * `nama` text of 1 to 100 code points once trimmed (stored trimmed), `peran` `user` or `admin`,
 * `kedaluwarsa` absent or an RFC 3339 date-time with offset after `now`. Every violation is
 * reported at once: 400 `VALIDATION_ERROR`.
 */
export function checkNewCredential(body: unknown, now: Date): CredentialInput {
  const read = bodyFields(body)
  const violations: Record<string, string> = {}
  const nama = nonBlankText(read('nama'))
  if (nama === undefined || codePointLength(nama) > NAMA_MAX) {
    violations.nama = credentialViolations.nama
  }
  const peran = read('peran')
  if (peran !== 'user' && peran !== 'admin') violations.peran = credentialViolations.peran
  const sent = read('kedaluwarsa')
  const kedaluwarsa = typeof sent === 'string' ? rfc3339Instant(sent) : undefined
  if (sent !== undefined && (kedaluwarsa === undefined || kedaluwarsa <= now)) {
    violations.kedaluwarsa = credentialViolations.kedaluwarsa
  }
  if (Object.keys(violations).length > 0) throw validationError(violations)
  return { nama: nama as string, peran: peran as Peran, kedaluwarsa: kedaluwarsa ?? null }
}
