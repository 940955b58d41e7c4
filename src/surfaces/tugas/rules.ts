// Surface A's body rules, written out because their order and wording are contract
// (docs/tugas.md#rules, docs/tugas.md#errors): every violation that applies, in this order.
import { codePointLength, field, isPlainObject } from '../../text.js'
import { ISI_MAX, TITLE_MAX, TITLE_MIN, TUGAS_STATUSES, type TugasStatus } from './schemas.js'

export const violationTexts = {
  notObject: 'body is not a JSON object',
  titleNotText: 'title is not text',
  titleTooShort: `title is under ${TITLE_MIN} characters`,
  titleTooLong: `title is over ${TITLE_MAX} characters`,
  statusInvalid: `status is not one of ${TUGAS_STATUSES.join(', ')}`,
  isiNotText: 'isi is not text',
  isiEmpty: 'isi is empty',
  isiTooLong: `isi is over ${ISI_MAX} characters`,
} as const

export interface TugasInput {
  title: string
  status: TugasStatus
}

export type Checked<T> = { ok: true; value: T } | { ok: false; violations: string[] }

function checkTitle(value: unknown, violations: string[]): string | undefined {
  if (typeof value !== 'string') {
    violations.push(violationTexts.titleNotText)
    return undefined
  }
  const title = value.trim()
  const length = codePointLength(title)
  if (length < TITLE_MIN) violations.push(violationTexts.titleTooShort)
  if (length > TITLE_MAX) violations.push(violationTexts.titleTooLong)
  return title
}

function checkStatus(value: unknown, violations: string[]): TugasStatus | undefined {
  if ((TUGAS_STATUSES as readonly unknown[]).includes(value)) return value as TugasStatus
  violations.push(violationTexts.statusInvalid)
  return undefined
}

/**
 * A full task (create and PUT): `title` required, `status` optional and `belum` when left out.
 * A body that is not an object has no title either, so both entries apply.
 */
export function checkTugas(body: unknown): Checked<TugasInput> {
  const violations: string[] = []
  const fields = isPlainObject(body) ? body : {}
  if (!isPlainObject(body)) violations.push(violationTexts.notObject)
  const title = checkTitle(field(fields, 'title'), violations)
  const rawStatus = field(fields, 'status')
  const status = rawStatus === undefined ? 'belum' : checkStatus(rawStatus, violations)
  if (violations.length > 0 || title === undefined || status === undefined) {
    return { ok: false, violations }
  }
  return { ok: true, value: { title, status } }
}

/** A partial task (PATCH): each field that is sent is checked with the create rules. */
export function checkTugasPatch(body: unknown): Checked<Partial<TugasInput>> {
  if (!isPlainObject(body)) return { ok: false, violations: [violationTexts.notObject] }
  const violations: string[] = []
  const changes: Partial<TugasInput> = {}
  if (Object.hasOwn(body, 'title')) {
    const title = checkTitle(body.title, violations)
    if (title !== undefined) changes.title = title
  }
  if (Object.hasOwn(body, 'status')) {
    const status = checkStatus(body.status, violations)
    if (status !== undefined) changes.status = status
  }
  return violations.length > 0 ? { ok: false, violations } : { ok: true, value: changes }
}

/** A new comment: `isi` text, trimmed, 1 to 500 characters. */
export function checkKomentar(body: unknown): Checked<{ isi: string }> {
  const violations: string[] = []
  if (!isPlainObject(body)) violations.push(violationTexts.notObject)
  const raw = isPlainObject(body) ? field(body, 'isi') : undefined
  if (typeof raw !== 'string') {
    violations.push(violationTexts.isiNotText)
    return { ok: false, violations }
  }
  const isi = raw.trim()
  const length = codePointLength(isi)
  if (length === 0) violations.push(violationTexts.isiEmpty)
  if (length > ISI_MAX) violations.push(violationTexts.isiTooLong)
  return violations.length > 0 ? { ok: false, violations } : { ok: true, value: { isi } }
}
