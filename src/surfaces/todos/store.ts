import type { Precondition, PreconditionFailed } from '../../store/precondition.js'
import type { TodoFields } from './rules.js'
import type { Todo } from './schemas.js'

export type NewTodo = TodoFields & Pick<Todo, 'priority' | 'due_date'>

/**
 * Surface C's data: its own todos. `created_at` is set here and never changes. `replace` and
 * `delete` take an optional precondition (If-Match) on the todo as it is, evaluated in the same
 * step: when the todo exists and fails it, nothing changes and the answer is
 * PRECONDITION_FAILED.
 */
export interface TodoStore {
  list(): Promise<Todo[]>
  get(id: number): Promise<Todo | undefined>
  create(fields: NewTodo): Promise<Todo>
  /** Sets `title` and `done`; undefined when the todo does not exist. */
  replace(
    id: number,
    fields: TodoFields,
    precondition?: Precondition<Todo>,
  ): Promise<Todo | undefined | PreconditionFailed>
  delete(id: number, precondition?: Precondition<Todo>): Promise<boolean | PreconditionFailed>
}
