import { type Static, Type } from 'typebox'
import { PRIORITY_MAX, PRIORITY_MIN } from './rules.js'

export const PRIORITY_BODY_LIMIT = 1024

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
