import { validationError } from '../../http/e2/shape.js'
import { field, isPlainObject } from '../../text.js'
import { bodyBukanJson, titleWajibDiisi } from './errors.js'
import { PRIORITY_MAX, PRIORITY_MIN } from './schemas.js'

export interface TodoFields {
  title: string
  done: boolean
}

/**
 * The basic variant's body, for create and replace. A field of the wrong JSON type is not
 * valid JSON for this surface; `title` missing, null or blank is "wajib diisi"; `done` left
 * out or null is false. A `null` body decodes like `{}`.
 */
export function readTodo(body: unknown): TodoFields {
  if (body === undefined) throw bodyBukanJson()
  const fields = body === null ? {} : body
  if (!isPlainObject(fields)) throw bodyBukanJson()
  const title = field(fields, 'title') ?? null
  const done = field(fields, 'done') ?? false
  if ((title !== null && typeof title !== 'string') || typeof done !== 'boolean') {
    throw bodyBukanJson()
  }
  const trimmed = title?.trim() ?? ''
  if (trimmed === '') throw titleWajibDiisi()
  return { title: trimmed, done }
}

export interface PriorityTodoFields {
  title: string
  priority: number
  due_date?: string
}

/** The priority variant's shortest title, in UTF-8 bytes after trimming. */
export const PRIORITY_TITLE_MIN_BYTES = 3

export const priorityViolations = {
  title: `title is required: text of at least ${PRIORITY_TITLE_MIN_BYTES} bytes`,
  priority: `priority is required: an integer from ${PRIORITY_MIN} to ${PRIORITY_MAX}`,
  due_date: 'due_date must be a real calendar date in the form YYYY-MM-DD',
} as const

function isCalendarDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value)
  if (match === null) return false
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number]
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0 to 99 as 1900 to 1999.
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  return (
    date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
  )
}

/**
 * The priority variant's body (step 4 of docs/todos.md#todos_variantpriority): every field is
 * checked and every violation reported together, 400 VALIDATION_ERROR with the map `fields`.
 * `title` is trimmed, then counted in UTF-8 bytes.
 */
export function checkPriorityTodo(body: unknown): PriorityTodoFields {
  const fields = isPlainObject(body) ? body : {}
  const violations: Record<string, string> = {}
  const title = field(fields, 'title')
  const trimmed = typeof title === 'string' ? title.trim() : undefined
  if (trimmed === undefined || Buffer.byteLength(trimmed, 'utf8') < PRIORITY_TITLE_MIN_BYTES) {
    violations.title = priorityViolations.title
  }
  const priority = field(fields, 'priority')
  const inRange = (value: number) => value >= PRIORITY_MIN && value <= PRIORITY_MAX
  if (!Number.isInteger(priority) || !inRange(priority as number)) {
    violations.priority = priorityViolations.priority
  }
  const dueDate = field(fields, 'due_date') ?? undefined
  if (dueDate !== undefined && (typeof dueDate !== 'string' || !isCalendarDate(dueDate))) {
    violations.due_date = priorityViolations.due_date
  }
  if (Object.keys(violations).length > 0) {
    throw validationError(violations)
  }
  return {
    title: trimmed as string,
    priority: priority as number,
    ...(dueDate !== undefined && { due_date: dueDate as string }),
  }
}
