import type { Publish } from '../../store/events.js'
import { MemoryItems, publishes } from '../../store/memory-collection.js'
import type { Precondition } from '../../store/precondition.js'
import type { TodoFields } from './rules.js'
import type { Todo } from './schemas.js'
import type { NewTodo, TodoStore } from './store.js'

/** Surface C's todos in process memory. */
export class MemoryTodoStore extends MemoryItems<Todo> implements TodoStore {
  constructor(
    private readonly now: () => Date = () => new Date(),
    publish?: Publish,
  ) {
    super(publish)
  }

  async create(fields: NewTodo) {
    const created_at = this.now().toISOString()
    const published = publishes<Todo>(this.publish, 'todos.created')
    return this.items.add((id) => ({ id, ...fields, created_at }), published)
  }

  async replace(id: number, { title, done }: TodoFields, precondition?: Precondition<Todo>) {
    const published = publishes<Todo>(this.publish, 'todos.replaced')
    return this.items.change(
      id,
      (current) => ({ ...current, title, done }),
      precondition,
      published,
    )
  }

  async delete(id: number, precondition?: Precondition<Todo>) {
    return this.items.delete(id, precondition, publishes(this.publish, 'todos.deleted'))
  }
}
