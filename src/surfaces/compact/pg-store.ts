import type { Queryable } from '../../store/postgres/database.js'
import type { Published } from '../../store/postgres/outbox.js'
import { PgItems, table } from '../../store/postgres/table.js'
import { fromText, toText } from '../../store/postgres/text.js'
import type { Precondition } from '../../store/precondition.js'
import type { CompactTugas } from './schemas.js'
import type { CompactStore } from './store.js'

export const tasks = table('compact_tugas', 'id, judul, selesai', (row: CompactTugas) => ({
  ...row,
  judul: fromText(row.judul),
}))

/**
 * Surface B's tasks in PostgreSQL: one statement per method; a write with a precondition is one
 * transaction (the row locked, the precondition, the statement).
 */
export class PgCompactStore extends PgItems<CompactTugas> implements CompactStore {
  constructor(db: Queryable, published?: Published) {
    super(db, tasks, published)
  }

  async create(judul: string) {
    const statement = 'INSERT INTO compact_tugas (judul, selesai) VALUES ($1, false)'
    const values = [toText(judul)]
    const publishing = this.publishing('api-tugas.created')
    return (await tasks.returning(this.db, statement, values, publishing)) as CompactTugas
  }

  async replace(
    id: number,
    { judul, selesai }: Omit<CompactTugas, 'id'>,
    precondition?: Precondition<CompactTugas>,
  ) {
    const statement = 'UPDATE compact_tugas SET judul = $2, selesai = $3 WHERE id = $1'
    const values = [id, toText(judul), selesai]
    const publishing = this.publishing('api-tugas.replaced')
    return tasks.update(this.db, id, precondition, statement, values, publishing)
  }

  async delete(id: number, precondition?: Precondition<CompactTugas>) {
    return tasks.remove(this.db, id, precondition, this.publishing('api-tugas.deleted'))
  }
}
