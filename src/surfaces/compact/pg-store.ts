import { readById } from '../../store/postgres/by-id.js'
import type { Queryable } from '../../store/postgres/database.js'
import { writeIfLocked } from '../../store/postgres/precondition.js'
import { anyRowChanged, first } from '../../store/postgres/rows.js'
import { fromText, toText } from '../../store/postgres/text.js'
import type { Precondition } from '../../store/precondition.js'
import type { CompactTugas } from './schemas.js'
import type { CompactStore } from './store.js'

const TASK = 'id, judul, selesai'

const task = (row: CompactTugas): CompactTugas => ({ ...row, judul: fromText(row.judul) })
const readTask = readById('compact_tugas', TASK, task)

/**
 * Surface B's tasks in PostgreSQL: one statement per method; a write with a precondition is one
 * transaction (the row locked, the precondition, the statement).
 */
export class PgCompactStore implements CompactStore {
  constructor(private readonly db: Queryable) {}

  async list() {
    const result = await this.db.query<CompactTugas>(
      `SELECT ${TASK} FROM compact_tugas ORDER BY id`,
    )
    return result.rows.map(task)
  }

  async get(id: number) {
    return readTask(this.db, id)
  }

  /** The task locked until the transaction `db` is in ends. */
  readonly #locked = (id: number) => (db: Queryable) => readTask(db, id, true)

  async create(judul: string) {
    const result = await this.db.query<CompactTugas>(
      `INSERT INTO compact_tugas (judul, selesai) VALUES ($1, false) RETURNING ${TASK}`,
      [toText(judul)],
    )
    return task(first(result) as CompactTugas)
  }

  async replace(
    id: number,
    { judul, selesai }: Omit<CompactTugas, 'id'>,
    precondition?: Precondition<CompactTugas>,
  ) {
    return writeIfLocked(this.db, precondition, this.#locked(id), async (db) => {
      const result = await db.query<CompactTugas>(
        `UPDATE compact_tugas SET judul = $2, selesai = $3 WHERE id = $1 RETURNING ${TASK}`,
        [id, toText(judul), selesai],
      )
      const row = first(result)
      return row && task(row)
    })
  }

  async delete(id: number, precondition?: Precondition<CompactTugas>) {
    return writeIfLocked(this.db, precondition, this.#locked(id), async (db) =>
      anyRowChanged(await db.query('DELETE FROM compact_tugas WHERE id = $1', [id])),
    )
  }
}
