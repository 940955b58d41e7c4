import type { EventType } from '../../store/events.js'
import { readById } from '../../store/postgres/by-id.js'
import type { Queryable } from '../../store/postgres/database.js'
import { FOREIGN_KEY_VIOLATION, sqlState } from '../../store/postgres/errors.js'
import type { Published } from '../../store/postgres/outbox.js'
import { type OutboxEvent, publishing } from '../../store/postgres/outbox.js'
import { writeIfLocked } from '../../store/postgres/precondition.js'
import { anyRowChanged, first } from '../../store/postgres/rows.js'
import { fromText, toText } from '../../store/postgres/text.js'
import type { Precondition } from '../../store/precondition.js'
import type { SortField } from './list-query.js'
import { FOLD_EVERY, type Folder } from './pg-buckets.js'
import type { TugasInput } from './rules.js'
import type { Komentar, Tugas } from './schemas.js'
import { titleSortKey } from './sort-key.js'
import type { TugasQuery, TugasSlice, TugasStore } from './store.js'

const TASK = 'id, title, status'
/** Rows per statement when creating many: large enough to be quick, small enough to send. */
const CREATE_BATCH = 5000
const COMMENT = 'id, tugas_id AS "tugasId", isi'

/** The ORDER BY of each sort, ties in ascending id both ways; each has an index (migrations). */
const ORDER: Record<SortField, [ascending: string, descending: string]> = {
  id: ['id', 'id DESC'],
  // Descending titles as their index keeps them (migrations/003): the same order as
  // `title_key DESC, id`, in one direction.
  title: ['title_key, id', 'title_key DESC, -id DESC'],
  status: ['status, id', 'status DESC, id'],
}

/**
 * The ids of a deep page, as `tugas_page_ids(order, status, offset, limit)` calls
 * (migrations/003): order 0 is ids ascending, 1 titles ascending, 2 titles ascending with ties
 * in descending id. Ids descending, and titles descending (ties in ascending id), are orders 0
 * and 2 counted from their end; sorting by status is each status's rows by id, one status
 * after the other.
 */
function deepIds(sort: SortField, descending: boolean, filtered: boolean): string {
  const ids = (ord: number, status: string, offset: string, limit: string) =>
    `SELECT tugas_page_ids(${ord}::smallint, ${status}, ${offset}, ${limit}) AS id`
  const status = filtered ? '$3::text' : 'NULL::text'
  const fromStart = (ord: number) => ids(ord, status, '$2::bigint', '$1::bigint')
  const fromEnd = (ord: number) =>
    ids(
      ord,
      status,
      'greatest((SELECT total FROM counted) - $2::bigint - $1::bigint, 0)',
      'least($1::bigint, (SELECT total FROM counted) - $2::bigint)',
    )
  if (sort === 'title') return descending ? fromEnd(2) : fromStart(1)
  if (sort === 'id') return descending ? fromEnd(0) : fromStart(0)
  if (filtered) return fromStart(0)
  // By status, unfiltered: the first status's rows, then the second's.
  const [first, second] = descending ? ["'selesai'", "'belum'"] : ["'belum'", "'selesai'"]
  const inFirst = `(SELECT coalesce(sum(n), 0) FROM tugas_count WHERE status = ${first})::bigint`
  const fromFirst = `greatest(least($1::bigint, ${inFirst} - $2::bigint), 0)`
  return `${ids(0, first, '$2::bigint', fromFirst)}
    UNION ALL ${ids(0, second, `greatest($2::bigint - ${inFirst}, 0)`, `$1::bigint - ${fromFirst}`)}`
}

/**
 * The page statement of every filter and order: fixed texts, values always parameters. One
 * statement reads the page and the count in one snapshot, so `total` always agrees with it.
 * The page's ids come from the counted buckets (deepIds), without walking the rows before it;
 * a page past the end reads nothing but the counts. Only the page's rows are then read from
 * the table (docs/performance.md#counted-buckets).
 */
function pageStatement(sort: SortField, descending: boolean, filtered: boolean): string {
  const filter = filtered ? 'status = $3' : 'true'
  const order = ORDER[sort][descending ? 1 : 0]
  return `WITH counted AS (
      SELECT coalesce(sum(n), 0)::bigint AS total FROM tugas_count WHERE ${filter}),
    keys AS MATERIALIZED (
      SELECT id FROM (${deepIds(sort, descending, filtered)}) found
      WHERE $2::bigint < (SELECT total FROM counted)),
    page AS (SELECT id, title, title_key, status FROM tugas
      WHERE id = ANY ((SELECT array_agg(id) FROM keys)::bigint[]))
    SELECT coalesce((SELECT json_agg(json_build_object('id', id, 'title', title, 'status', status)
        ORDER BY ${order}) FROM page), '[]') AS items,
      (SELECT total FROM counted) AS total, tugas_pending_rows(${FOLD_EVERY}) AS pending`
}
/**
 * The page statement for an offset under SHALLOW_OFFSET: the rows read in the order's index
 * and the table as they come, the skipped ones included. There as cheap as finding the bucket
 * (docs/performance.md#the-page-statement); dearer past it.
 */
function shallowPageStatement(sort: SortField, descending: boolean, filtered: boolean): string {
  const where = filtered ? 'WHERE status = $3' : ''
  const order = ORDER[sort][descending ? 1 : 0]
  return `WITH page AS (
      SELECT id, title, title_key, status FROM tugas ${where} ORDER BY ${order} LIMIT $1 OFFSET $2)
    SELECT coalesce((SELECT json_agg(json_build_object('id', id, 'title', title, 'status', status)
        ORDER BY ${order}) FROM page), '[]') AS items,
      (SELECT coalesce(sum(n), 0) FROM tugas_count ${where})::bigint AS total,
      tugas_pending_rows(${FOLD_EVERY}) AS pending`
}

/** Offsets from which a page starts from its counted bucket (pageStatement). */
export const SHALLOW_OFFSET = 100

const PAGES = new Map<string, string>()
for (const sort of Object.keys(ORDER) as SortField[]) {
  for (const descending of [false, true]) {
    for (const filtered of [false, true]) {
      const key = `${sort}:${descending}:${filtered}`
      PAGES.set(`${key}:deep`, pageStatement(sort, descending, filtered))
      PAGES.set(`${key}:shallow`, shallowPageStatement(sort, descending, filtered))
    }
  }
}

/** The statement of a page, and its values (bench/pg-pages.ts measures these). */
export function pageQuery({ status, sort, descending, offset, limit }: TugasQuery) {
  const depth = offset < SHALLOW_OFFSET ? 'shallow' : 'deep'
  const text = PAGES.get(`${sort}:${descending}:${status !== undefined}:${depth}`) as string
  return { text, values: status === undefined ? [limit, offset] : [limit, offset, status] }
}

export const task = (row: Tugas): Tugas => ({
  id: row.id,
  title: fromText(row.title),
  status: row.status,
})
export const komentar = (row: Komentar): Komentar => ({
  id: row.id,
  tugasId: row.tugasId,
  isi: fromText(row.isi),
})
const readTask = readById('tugas', TASK, task)

/**
 * Surface A's data in PostgreSQL. Each method is one statement, so each is atomic on its own:
 * the per-status counts change in the same statement as the rows (a trigger), and a comment
 * on a task deleted meanwhile fails its foreign key instead of landing. A write with a
 * precondition is one transaction: the task's row locked, the precondition, the statement.
 * Each write stores its event in the same statement (publishing), when the store publishes.
 */
export class PgTugasStore implements TugasStore {
  /** Keeps the counted buckets near the rows; none for a store inside one transaction. */
  readonly folder: Folder | undefined

  constructor(
    private readonly db: Queryable,
    folder?: Folder,
    private readonly published?: Published,
  ) {
    this.folder = folder
  }

  /** `statement` returning `columns`, with `event` stored by it when this store publishes. */
  #writing(statement: string, columns: string, event: OutboxEvent) {
    if (this.published === undefined) return { text: `${statement} RETURNING ${columns}` }
    const published = this.published
    const options = { afterCommit: () => published(event.type) }
    return { text: publishing(statement, columns, event), options }
  }

  async all() {
    return (await this.db.query<Tugas>(`SELECT ${TASK} FROM tugas ORDER BY id`)).rows.map(task)
  }

  async query(query: TugasQuery): Promise<TugasSlice> {
    const { text, values } = pageQuery(query)
    const result = await this.db.query<TugasSlice & { pending: number }>(text, values)
    const { items, total, pending } = first(result) as TugasSlice & { pending: number }
    this.folder?.seen(pending)
    return { items: items.map(task), total }
  }

  async get(id: number) {
    return readTask(this.db, id)
  }

  /** The task locked until the transaction `db` is in ends. */
  readonly #locked = (id: number) => (db: Queryable) => readTask(db, id, true)

  async create({ title, status }: TugasInput) {
    const { text, options } = this.#writing(
      'INSERT INTO tugas (title, title_key, status) VALUES ($1, $2, $3)',
      TASK,
      { type: 'tugas.created' },
    )
    const values = [toText(title), titleSortKey(title), status]
    const result = await this.db.query<Tugas>(text, values, options)
    this.folder?.written(1)
    return task(first(result) as Tugas)
  }

  async createMany(inputs: TugasInput[]) {
    const created: Tugas[] = []
    // In batches, each one statement: ids are drawn in the order of the rows given.
    for (let at = 0; at < inputs.length; at += CREATE_BATCH) {
      const batch = inputs.slice(at, at + CREATE_BATCH)
      const result = await this.db.query<Tugas>(
        `INSERT INTO tugas (title, title_key, status)
         SELECT title, title_key, status
         FROM unnest($1::text[], $2::bytea[], $3::text[]) WITH ORDINALITY
           AS given (title, title_key, status, n)
         ORDER BY n RETURNING ${TASK}`,
        [
          batch.map(({ title }) => toText(title)),
          batch.map(({ title }) => titleSortKey(title)),
          batch.map(({ status }) => status),
        ],
      )
      created.push(...result.rows.sort((a, b) => a.id - b.id).map(task))
    }
    this.folder?.written(created.length)
    return created
  }

  async replace(id: number, input: TugasInput, precondition?: Precondition<Tugas>) {
    return this.#change(id, input, precondition, 'tugas.replaced')
  }

  async update(id: number, changes: Partial<TugasInput>, precondition?: Precondition<Tugas>) {
    return this.#change(id, changes, precondition, 'tugas.updated')
  }

  async #change(
    id: number,
    changes: Partial<TugasInput>,
    precondition: Precondition<Tugas> | undefined,
    type: EventType,
  ) {
    const updated = await writeIfLocked(this.db, precondition, this.#locked(id), (db) =>
      this.#update(db, id, changes, type),
    )
    this.folder?.written(1)
    return updated
  }

  async #update(
    db: Queryable,
    id: number,
    { title, status }: Partial<TugasInput>,
    type: EventType,
  ) {
    const { text, options } = this.#writing(
      `UPDATE tugas SET title = coalesce($2, title), title_key = coalesce($3, title_key),
         status = coalesce($4, status) WHERE id = $1`,
      TASK,
      { type },
    )
    const result = await db.query<Tugas>(
      text,
      [
        id,
        title === undefined ? null : toText(title),
        title === undefined ? null : titleSortKey(title),
        status ?? null,
      ],
      options,
    )
    const row = first(result)
    return row && task(row)
  }

  async delete(id: number, precondition?: Precondition<Tugas>) {
    const { text, options } = this.#writing('DELETE FROM tugas WHERE id = $1', 'id', {
      type: 'tugas.deleted',
    })
    const deleted = await writeIfLocked(this.db, precondition, this.#locked(id), async (db) =>
      anyRowChanged(await db.query(text, [id], options)),
    )
    this.folder?.written(1)
    return deleted
  }

  async comments(tugasId: number): Promise<Komentar[] | undefined> {
    // One statement: the task's existence and its comments seen at the same instant.
    const { rows } = await this.db.query<Komentar | { id: null }>(
      `SELECT k.id, k.tugas_id AS "tugasId", k.isi
       FROM tugas t LEFT JOIN komentar k ON k.tugas_id = t.id WHERE t.id = $1 ORDER BY k.id`,
      [tugasId],
    )
    if (rows.length === 0) return undefined
    // A task without comments is one row of nulls.
    return rows.flatMap((row) => (row.id === null ? [] : [komentar(row as Komentar)]))
  }

  async comment(tugasId: number, id: number) {
    const result = await this.db.query<Komentar>(
      `SELECT ${COMMENT} FROM komentar WHERE id = $2 AND tugas_id = $1`,
      [tugasId, id],
    )
    const row = first(result)
    return row && komentar(row)
  }

  async addComment(tugasId: number, isi: string) {
    try {
      // No row, so no id drawn, for a task that does not exist: ids stay without gaps.
      const { text, options } = this.#writing(
        `INSERT INTO komentar (tugas_id, isi)
         SELECT $1, $2 WHERE EXISTS (SELECT 1 FROM tugas WHERE id = $1)`,
        COMMENT,
        { type: 'komentar.created', subject: `"tugasId" || '/komentar/' || id` },
      )
      const result = await this.db.query<Komentar>(text, [tugasId, toText(isi)], options)
      const row = first(result)
      return row && komentar(row)
    } catch (error) {
      // The task was deleted while this insert was landing: the foreign key refuses it.
      if (sqlState(error) === FOREIGN_KEY_VIOLATION) return undefined
      throw error
    }
  }
}
