import { MemoryCollection } from '../../store/memory-collection.js'
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

export class MemoryTodoStore implements TodoStore {
  readonly #todos = new MemoryCollection<Todo>()

  constructor(private readonly now: () => Date = () => new Date()) {}

  async list() {
    return this.#todos.list()
  }

  async get(id: number) {
    return this.#todos.get(id)
  }

  async create(fields: NewTodo) {
    const created_at = this.now().toISOString()
    return this.#todos.add((id) => ({ id, ...fields, created_at }))
  }

  async replace(id: number, { title, done }: TodoFields) {
    return this.#todos.change(id, (current) => ({ ...current, title, done }))
  }

  async delete(id: number) {
    return this.#todos.delete(id)
  }
}
