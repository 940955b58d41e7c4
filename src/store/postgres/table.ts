import type pg from 'pg'
import type { Precondition, PreconditionFailed } from '../precondition.js'
import { type ReadById, readById } from './by-id.js'
import type { Queryable } from './database.js'
import type { Published } from './outbox.js'
import { type OutboxEvent, publishing } from './outbox.js'
import { writeIfLocked } from './precondition.js'
import { anyRowChanged, first } from './rows.js'

/**
 * The event a write stores with its change, and who to tell once it is committed (the
 * sequencer); undefined for a write that publishes nothing (the seed's).
 */
export type Publication = { event: OutboxEvent; published: () => void } | undefined

/** A store's publication of `event`, when it publishes at all. */
export function publication(published: Published | undefined, event: OutboxEvent): Publication {
  return published && { event, published: () => published(event.type) }
}

/** One table's items as the PostgreSQL stores read and write them alike. */
export interface Table<T> {
  /** Every item, in id order. */
  list(db: Queryable): Promise<T[]>
  /** One item by id (see readById); undefined when there is no such row. */
  read: ReadById<T>
  /**
   * Runs `statement` (an INSERT or UPDATE without its `RETURNING`) with the table's columns
   * returned: the one item it wrote, or undefined when it wrote none. With a publication, the
   * event of what it wrote is stored by the same statement.
   */
  returning(
    db: Queryable,
    statement: string,
    values: unknown[],
    publication?: Publication,
  ): Promise<T | undefined>
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
    publication?: Publication,
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
    publication?: Publication,
  ): Promise<boolean | PreconditionFailed>
  /** An item from its columns as JSON (`row_to_json`): an event's data (outbox.ts). */
  fromJson(json: Record<string, unknown>): T
}

/** What `table` may be told of its columns beyond their names. */
export interface TableOptions {
  /** Columns of type `timestamptz`: JSON holds them as text, `map` takes a Date. */
  timestamps?: string[]
}

/**
 * The items of table `name`, each made by `map` from the row's `columns`. The texts of the
 * statements that do not vary are made once here.
 */
export function table<R extends pg.QueryResultRow, T>(
  name: string,
  columns: string,
  map: (row: R) => T,
  { timestamps = [] }: TableOptions = {},
): Table<T> {
  const list = `SELECT ${columns} FROM ${name} ORDER BY id`
  const remove = `DELETE FROM ${name} WHERE id = $1`
  const read = readById(name, columns, map)
  const guarded: Table<T>['guarded'] = (db, id, precondition, write) =>
    writeIfLocked(db, precondition, (client) => read(client, id, true), write)
  const returning: Table<T>['returning'] = async (db, statement, values, publication) => {
    const text = publication
      ? publishing(statement, columns, publication.event)
      : `${statement} RETURNING ${columns}`
    const options = publication && { afterCommit: publication.published }
    const row = first(await db.query<R>(text, values, options))
    return row && map(row)
  }
  return {
    async list(db) {
      return (await db.query<R>(list)).rows.map(map)
    },
    read,
    returning,
    update(db, id, precondition, statement, values, publication) {
      return guarded(db, id, precondition, (client) =>
        returning(client, statement, values, publication),
      )
    },
    guarded,
    remove(db, id, precondition, publication) {
      return guarded(db, id, precondition, async (client) => {
        if (publication === undefined) return anyRowChanged(await client.query(remove, [id]))
        const { event, published } = publication
        const returned = event.owner === undefined ? 'id' : `id, ${event.owner}`
        const text = publishing(remove, returned, event)
        return (await client.query(text, [id], { afterCommit: published })).rows.length > 0
      })
    },
    fromJson(json) {
      const row: Record<string, unknown> = { ...json }
      for (const column of timestamps) row[column] = new Date(row[column] as string)
      return map(row as R)
    },
  }
}

/**
 * A PostgreSQL store's base: where it runs its statements (the pool, or a transaction's
 * client), its table, and the reads every such store answers alike.
 */
export class PgItems<T> {
  /** `published`: called once a write's event is committed; none: writes publish nothing. */
  constructor(
    protected readonly db: Queryable,
    protected readonly items: Table<T>,
    protected readonly published?: Published,
  ) {}

  /** The publication of a write of `type` (see publication). */
  protected publishing(type: OutboxEvent['type'], more: Omit<OutboxEvent, 'type'> = {}) {
    return publication(this.published, { type, ...more })
  }

  async list(): Promise<T[]> {
    return this.items.list(this.db)
  }

  async get(id: number): Promise<T | undefined> {
    return this.items.read(this.db, id)
  }
}
