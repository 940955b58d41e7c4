import type { Queryable } from '../../../store/postgres/database.js'
import type { Published } from '../../../store/postgres/outbox.js'
import { PgItems, table } from '../../../store/postgres/table.js'
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
const documents = table('dokumen', DOCUMENT, document)

/** Documents in PostgreSQL. */
export class PgDocumentStore extends PgItems<Dokumen> implements DocumentStore {
  constructor(db: Queryable, published?: Published) {
    super(db, documents, published)
  }

  override async list({ owner }: { owner?: string } = {}) {
    if (owner === undefined) return super.list()
    const result = await this.db.query<Dokumen>(
      `SELECT ${DOCUMENT} FROM dokumen WHERE pemilik = $1 ORDER BY id`,
      [toText(owner)],
    )
    return result.rows.map(document)
  }

  async create({ judul, pemilik }: Omit<Dokumen, 'id'>) {
    const statement = 'INSERT INTO dokumen (judul, pemilik) VALUES ($1, $2)'
    return (await documents.returning(this.db, statement, [
      toText(judul),
      toText(pemilik),
    ])) as Dokumen
  }

  async delete(id: number, precondition?: Precondition<Dokumen>) {
    const publishing = this.publishing('dokumen.deleted', { owner: 'pemilik' })
    return documents.remove(this.db, id, precondition, publishing)
  }
}
