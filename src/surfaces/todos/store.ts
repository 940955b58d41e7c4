import type { TodoFields } from './rules.js'
import type { Todo } from './schemas.js'

export type NewTodo = TodoFields & Pick<Todo, 'priority' | 'due_date'>

/** Surface C's data: its own todos. `created_at` is set here and never changes. */
export interface TodoStore {
  list(): Promise<Todo[]>
  get(id: number): Promise<Todo | undefined>
  create(fields: NewTodo): Promise<Todo>
  /** Sets `title` and `done`; undefined when the todo does not exist. */
  replace(id: number, fields: TodoFields): Promise<Todo | undefined>
  delete(id: number): Promise<boolean>
}
