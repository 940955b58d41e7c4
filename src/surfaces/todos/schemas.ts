import { type Static, Type } from 'typebox'

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

/** The priority variant's 201 body: exactly these three fields. */
export const PriorityTodoCreated = Type.Object(
  { id: Type.Integer(), title: Type.String(), priority: Type.Integer() },
  { additionalProperties: false },
)
