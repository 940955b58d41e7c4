import { type Static, Type } from 'typebox'
import { orNull, trimmedText, trimmedTextOfThreeBytes } from '../../http/body-schemas.js'

export const PRIORITY_BODY_LIMIT = 1024

/** The priority variant's bounds of `priority`. */
export const PRIORITY_MIN = 1
export const PRIORITY_MAX = 5

export const Todo = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  title: Type.String({ minLength: 1 }),
  done: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
  priority: Type.Optional(Type.Integer({ minimum: PRIORITY_MIN, maximum: PRIORITY_MAX })),
  due_date: Type.Optional(Type.String({ format: 'date' })),
})
export type Todo = Static<typeof Todo>

/** The basic variant's body, of a create and a replace (rules.ts `readTodo`). */
export const TodoFields = Type.Object({
  title: trimmedText({ min: 1, description: 'Required, not null; trimmed, then not empty.' }),
  done: Type.Optional(
    orNull(Type.Boolean({ description: 'False when left out or null (on PUT too).' })),
  ),
})

const MONTH_31 = '(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])'
const MONTH_30 = '(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)'
const FEBRUARY = '02-(?:0[1-9]|1[0-9]|2[0-8])'
/** Years divisible by 4 but not by 100, or by 400 (0000 too, as the proleptic calendar has it). */
const LEAP_YEAR = '[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00'

/**
 * A real calendar date `YYYY-MM-DD`, as a pattern too: a tool that does not check `format`
 * still reads the rule (rules.ts `isCalendarDate`).
 */
const CALENDAR_DATE =
  `^(?:[0-9]{4}-(?:${MONTH_31}|${MONTH_30}|${FEBRUARY})` + `|(?:${LEAP_YEAR})-02-29)$`

/** The priority variant's body (rules.ts `checkPriorityTodo`). */
export const PriorityTodoFields = Type.Object({
  title: trimmedTextOfThreeBytes(
    'Required; trimmed, then at least 3 bytes of UTF-8: 3 characters, or 2 where one is not ' +
      'ASCII, or 1 from U+0800 on.',
  ),
  priority: Type.Integer({
    minimum: PRIORITY_MIN,
    maximum: PRIORITY_MAX,
    description: `Required; an integer from ${PRIORITY_MIN} to ${PRIORITY_MAX}.`,
  }),
  due_date: Type.Optional(
    orNull(
      Type.String({
        format: 'date',
        pattern: CALENDAR_DATE,
        description: '`YYYY-MM-DD`, a real calendar date; `null` counts as left out.',
      }),
    ),
  ),
})

/** The priority variant's 201 body: exactly these three fields. */
export const PriorityTodoCreated = Type.Object(
  { id: Type.Integer(), title: Type.String(), priority: Type.Integer() },
  { additionalProperties: false },
)
