import type { ItemStore } from '../../store/item-store.js'
import type { TodoFields } from './rules.js'
import type { Todo } from './schemas.js'

export type NewTodo = TodoFields & Pick<Todo, 'priority' | 'due_date'>

/**
 * Surface C's data: its own todos. `created_at` is set here and never changes; `replace` sets
 * `title` and `done`.
 */
export type TodoStore = ItemStore<Todo, NewTodo, TodoFields>
