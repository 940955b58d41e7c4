import { MemoryCollection } from '../../store/memory-collection.js'
import type { Precondition } from '../../store/precondition.js'
import type { TodoFields } from './rules.js'
import type { Todo } from './schemas.js'
import type { NewTodo, TodoStore } from './store.js'

/** Surface C's todos in process memory. */
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

  async replace(id: number, { title, done }: TodoFields, precondition?: Precondition<Todo>) {
    return this.#todos.change(id, (current) => ({ ...current, title, done }), precondition)
  }

  async delete(id: number, precondition?: Precondition<Todo>) {
    return this.#todos.delete(id, precondition)
  }
}
