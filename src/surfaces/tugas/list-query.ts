// The query of `GET /tugas`: which form answers, and the four parameters' rules. Every violation is
// collected (docs/tugas.md#the-list), in the order docs/tugas.md#errors lists them.
import type { Checked } from './rules.js'
import { BATAS_MAX, TUGAS_STATUSES, type TugasStatus } from './schemas.js'

export const SORT_FIELDS = ['id', 'title', 'status'] as const
export type SortField = (typeof SORT_FIELDS)[number]
export const LIST_PARAMETERS = ['halaman', 'batas', 'status', 'urut'] as const

export const queryViolationTexts = {
  halaman: 'halaman is not an integer of at least 1',
  batas: 'batas is not an integer of at least 1',
  batasTooLarge: `batas is over ${BATAS_MAX}`,
  status: `status is not one of ${TUGAS_STATUSES.join(', ')}`,
  urut: `urut is not one of ${SORT_FIELDS.join(', ')} (optionally prefixed with -)`,
} as const

export interface PageQuery {
  halaman: number
  batas: number
  status: TugasStatus | undefined
  sort: SortField
  descending: boolean
}

type Query = Record<string, unknown>

/** True when any list parameter is present, even empty: the answer is then the envelope. */
export function wantsPage(query: Query): boolean {
  return LIST_PARAMETERS.some((name) => Object.hasOwn(query, name))
}

/** Digits only, as a safe integer; a repeated parameter (an array) is never an integer. */
function wholeNumber(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^[0-9]+$/.test(value)) return undefined
  const number = Number(value)
  return Number.isSafeInteger(number) ? number : undefined
}

export function checkPageQuery(query: Query, batasDefault: number): Checked<PageQuery> {
  const violations: string[] = []
  const given = (name: string) => Object.hasOwn(query, name)

  let halaman = 1
  if (given('halaman')) {
    const value = wholeNumber(query.halaman)
    if (value === undefined || value < 1) violations.push(queryViolationTexts.halaman)
    else halaman = value
  }

  let batas = batasDefault
  if (given('batas')) {
    const value = wholeNumber(query.batas)
    if (value === undefined || value < 1) violations.push(queryViolationTexts.batas)
    else if (value > BATAS_MAX) violations.push(queryViolationTexts.batasTooLarge)
    else batas = value
  }

  let status: TugasStatus | undefined
  if (given('status')) {
    if ((TUGAS_STATUSES as readonly unknown[]).includes(query.status)) {
      status = query.status as TugasStatus
    } else violations.push(queryViolationTexts.status)
  }

  let sort: SortField = 'id'
  let descending = false
  if (given('urut')) {
    const raw = query.urut
    const name = typeof raw === 'string' && raw.startsWith('-') ? raw.slice(1) : raw
    if ((SORT_FIELDS as readonly unknown[]).includes(name)) {
      sort = name as SortField
      descending = raw !== name
    } else violations.push(queryViolationTexts.urut)
  }

  if (violations.length > 0) return { ok: false, violations }
  return { ok: true, value: { halaman, batas, status, sort, descending } }
}
