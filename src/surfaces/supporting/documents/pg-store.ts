import { readById } from '../../../store/postgres/by-id.js'
import type { Queryable } from '../../../store/postgres/database.js'
import { writeIfLocked } from '../../../store/postgres/precondition.js'
import { anyRowChanged, first } from '../../../store/postgres/rows.js'
import { fromText, toText } from '../../../store/postgres/text.js'
import type { Precondition } from '../../../store/precondition.js'
import type { Dokumen } from './schemas.js'
import type { DocumentStore } from './store.js'

const DOCUMENT = 'id, judul, pemilik'

const document = (row: Dokumen): Dokumen => ({
  id: row.id,
  judul: fromText(row.judul),
  pemilik: fromText(row.pemilik),
})
const readDocument = readById('dokumen', DOCUMENT, document)

/** Documents in PostgreSQL. */
export class PgDocumentStore implements DocumentStore {
  constructor(private readonly db: Queryable) {}

  async list({ owner }: { owner?: string } = {}) {
    const result =
      owner === undefined
        ? await this.db.query<Dokumen>(`SELECT ${DOCUMENT} FROM dokumen ORDER BY id`)
        : await this.db.query<Dokumen>(
            `SELECT ${DOCUMENT} FROM dokumen WHERE pemilik = $1 ORDER BY id`,
            [toText(owner)],
          )
    return result.rows.map(document)
  }

  async get(id: number) {
    return readDocument(this.db, id)
  }

  async create({ judul, pemilik }: Omit<Dokumen, 'id'>) {
    const result = await this.db.query<Dokumen>(
      `INSERT INTO dokumen (judul, pemilik) VALUES ($1, $2) RETURNING ${DOCUMENT}`,
      [toText(judul), toText(pemilik)],
    )
    return document(first(result) as Dokumen)
  }

  async delete(id: number, precondition?: Precondition<Dokumen>) {
    return writeIfLocked(
      this.db,
      precondition,
      (db) => readDocument(db, id, true),
      async (db) => anyRowChanged(await db.query('DELETE FROM dokumen WHERE id = $1', [id])),
    )
  }
}
