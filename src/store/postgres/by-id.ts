import type pg from 'pg'
import type { Queryable } from './database.js'
import { first } from './rows.js'

/** Reads one item by id on `db`; with `lock`, its row stays locked until `db`'s transaction ends. */
export type ReadById<T> = (db: Queryable, id: number, lock?: boolean) => Promise<T | undefined>

/**
 * A store's read of one item by its id, as `map` makes it from the row's `columns`; undefined
 * when there is no such row. `lock` is for a guarded write (see writeIfLocked). Both texts are
 * made once here, so each table's read stays two fixed statements (two prepared names).
 */
export function readById<R extends pg.QueryResultRow, T>(
  table: string,
  columns: string,
  map: (row: R) => T,
): ReadById<T> {
  const read = `SELECT ${columns} FROM ${table} WHERE id = $1`
  const locked = `${read} FOR UPDATE`
  return async (db, id, lock = false) => {
    const row = first(await db.query<R>(lock ? locked : read, [id]))
    return row && map(row)
  }
}
