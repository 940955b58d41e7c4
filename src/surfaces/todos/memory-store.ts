import { MemoryItems } from '../../store/memory-collection.js'
import type { Precondition } from '../../store/precondition.js'
import type { TodoFields } from './rules.js'
import type { Todo } from './schemas.js'
import type { NewTodo, TodoStore } from './store.js'

/** Surface C's todos in process memory. */
export class MemoryTodoStore extends MemoryItems<Todo> implements TodoStore {
  constructor(private readonly now: () => Date = () => new Date()) {
    super()
  }

  async create(fields: NewTodo) {
    const created_at = this.now().toISOString()
    return this.items.add((id) => ({ id, ...fields, created_at }))
  }

  async replace(id: number, { title, done }: TodoFields, precondition?: Precondition<Todo>) {
    return this.items.change(id, (current) => ({ ...current, title, done }), precondition)
  }

  async delete(id: number, precondition?: Precondition<Todo>) {
    return this.items.delete(id, precondition)
  }
}
