import { readById } from '../../store/postgres/by-id.js'
import type { Queryable } from '../../store/postgres/database.js'
import { writeIfLocked } from '../../store/postgres/precondition.js'
import { anyRowChanged, first } from '../../store/postgres/rows.js'
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

const readTodo = readById('todos', TODO, todoOf)

/**
 * Surface C's todos in PostgreSQL; `created_at` comes from the service's clock. A write with a
 * precondition is one transaction (the row locked, the precondition, the statement).
 */
export class PgTodoStore implements TodoStore {
  constructor(
    private readonly db: Queryable,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async list() {
    return (await this.db.query<TodoRow>(`SELECT ${TODO} FROM todos ORDER BY id`)).rows.map(todoOf)
  }

  async get(id: number) {
    return readTodo(this.db, id)
  }

  /** The todo locked until the transaction `db` is in ends. */
  readonly #locked = (id: number) => (db: Queryable) => readTodo(db, id, true)

  async create({ title, done, priority, due_date }: NewTodo) {
    const result = await this.db.query<TodoRow>(
      `INSERT INTO todos (title, done, priority, due_date, created_at)
       VALUES ($1, $2, $3, $4, $5) RETURNING ${TODO}`,
      // The instant as text with its `Z`: a Date would be sent in the process's time zone.
      [toText(title), done, priority ?? null, due_date ?? null, this.now().toISOString()],
    )
    return todoOf(first(result) as TodoRow)
  }

  async replace(id: number, { title, done }: TodoFields, precondition?: Precondition<Todo>) {
    return writeIfLocked(this.db, precondition, this.#locked(id), async (db) => {
      const row = first(
        await db.query<TodoRow>(
          `UPDATE todos SET title = $2, done = $3 WHERE id = $1 RETURNING ${TODO}`,
          [id, toText(title), done],
        ),
      )
      return row && todoOf(row)
    })
  }

  async delete(id: number, precondition?: Precondition<Todo>) {
    return writeIfLocked(this.db, precondition, this.#locked(id), async (db) =>
      anyRowChanged(await db.query('DELETE FROM todos WHERE id = $1', [id])),
    )
  }
}
