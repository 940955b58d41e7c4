import type pg from 'pg'
import type { Precondition, PreconditionFailed } from '../precondition.js'
import { type ReadById, readById } from './by-id.js'
import type { Queryable } from './database.js'
import { writeIfLocked } from './precondition.js'
import { anyRowChanged, first } from './rows.js'

/** One table's items as the PostgreSQL stores read and write them alike. */
export interface Table<T> {
  /** Every item, in id order. */
  list(db: Queryable): Promise<T[]>
  /** One item by id (see readById); undefined when there is no such row. */
  read: ReadById<T>
  /**
   * Runs `statement` (an INSERT or UPDATE without its `RETURNING`) with the table's columns
   * returned: the one item it wrote, or undefined when it wrote none.
   */
  returning(db: Queryable, statement: string, values: unknown[]): Promise<T | undefined>
  /**
   * Runs `statement` (an UPDATE of item `id` without its `RETURNING`) guarded by `precondition`:
   * the item as written, or undefined when there is none.
   */
  update(
    db: Queryable,
    id: number,
    precondition: Precondition<T> | undefined,
    statement: string,
    values: unknown[],
  ): Promise<T | undefined | PreconditionFailed>
  /** `write` of item `id` guarded by `precondition`: writeIfLocked, with the item's row locked. */
  guarded<R>(
    db: Queryable,
    id: number,
    precondition: Precondition<T> | undefined,
    write: (db: Queryable) => Promise<R>,
  ): Promise<R | PreconditionFailed>
  /** Deletes item `id`, guarded by `precondition`: whether there was one. */
  remove(
    db: Queryable,
    id: number,
    precondition: Precondition<T> | undefined,
  ): Promise<boolean | PreconditionFailed>
}

/**
 * The items of table `name`, each made by `map` from the row's `columns`. The texts of the
 * statements that do not vary are made once here.
 */
export function table<R extends pg.QueryResultRow, T>(
  name: string,
  columns: string,
  map: (row: R) => T,
): Table<T> {
  const list = `SELECT ${columns} FROM ${name} ORDER BY id`
  const remove = `DELETE FROM ${name} WHERE id = $1`
  const read = readById(name, columns, map)
  const guarded: Table<T>['guarded'] = (db, id, precondition, write) =>
    writeIfLocked(db, precondition, (client) => read(client, id, true), write)
  const returning: Table<T>['returning'] = async (db, statement, values) => {
    const row = first(await db.query<R>(`${statement} RETURNING ${columns}`, values))
    return row && map(row)
  }
  return {
    async list(db) {
      return (await db.query<R>(list)).rows.map(map)
    },
    read,
    returning,
    update(db, id, precondition, statement, values) {
      return guarded(db, id, precondition, (client) => returning(client, statement, values))
    },
    guarded,
    remove(db, id, precondition) {
      return guarded(db, id, precondition, async (client) =>
        anyRowChanged(await client.query(remove, [id])),
      )
    },
  }
}

/**
 * A PostgreSQL store's base: where it runs its statements (the pool, or a transaction's
 * client), its table, and the reads every such store answers alike.
 */
export class PgItems<T> {
  constructor(
    protected readonly db: Queryable,
    protected readonly items: Table<T>,
  ) {}

  async list(): Promise<T[]> {
    return this.items.list(this.db)
  }

  async get(id: number): Promise<T | undefined> {
    return this.items.read(this.db, id)
  }
}
