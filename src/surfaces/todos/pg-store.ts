import type { Queryable } from '../../store/postgres/database.js'
import type { Published } from '../../store/postgres/outbox.js'
import { PgItems, table } from '../../store/postgres/table.js'
import { fromText, toText } from '../../store/postgres/text.js'
import type { Precondition } from '../../store/precondition.js'
import type { TodoFields } from './rules.js'
import type { Todo } from './schemas.js'
import type { NewTodo, TodoStore } from './store.js'

const TODO = 'id, title, done, priority, due_date, created_at'

interface TodoRow {
  id: number
  title: string
  done: boolean
  priority: number | null
  due_date: string | null
  created_at: Date
}

/** The representation the memory store keeps: no `priority` or `due_date` key when unset. */
function todoOf(row: TodoRow): Todo {
  return {
    id: row.id,
    title: fromText(row.title),
    done: row.done,
    created_at: row.created_at.toISOString(),
    ...(row.priority !== null && { priority: row.priority }),
    ...(row.due_date !== null && { due_date: row.due_date }),
  }
}

export const todos = table('todos', TODO, todoOf, { timestamps: ['created_at'] })

/**
 * Surface C's todos in PostgreSQL; `created_at` comes from the service's clock. A write with a
 * precondition is one transaction (the row locked, the precondition, the statement).
 */
export class PgTodoStore extends PgItems<Todo> implements TodoStore {
  constructor(
    db: Queryable,
    private readonly now: () => Date = () => new Date(),
    published?: Published,
  ) {
    super(db, todos, published)
  }

  async create({ title, done, priority, due_date }: NewTodo) {
    const created = await todos.returning(
      this.db,
      `INSERT INTO todos (title, done, priority, due_date, created_at)
       VALUES ($1, $2, $3, $4, $5)`,
      // The instant as text with its `Z`: a Date would be sent in the process's time zone.
      [toText(title), done, priority ?? null, due_date ?? null, this.now().toISOString()],
      this.publishing('todos.created'),
    )
    return created as Todo
  }

  async replace(id: number, { title, done }: TodoFields, precondition?: Precondition<Todo>) {
    const statement = 'UPDATE todos SET title = $2, done = $3 WHERE id = $1'
    const values = [id, toText(title), done]
    const publishing = this.publishing('todos.replaced')
    return todos.update(this.db, id, precondition, statement, values, publishing)
  }

  async delete(id: number, precondition?: Precondition<Todo>) {
    return todos.remove(this.db, id, precondition, this.publishing('todos.deleted'))
  }
}
