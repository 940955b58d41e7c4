import type { Queryable } from '../../../store/postgres/database.js'
import { first } from '../../../store/postgres/rows.js'
import { fromText, toText } from '../../../store/postgres/text.js'
import type { Produk } from './schemas.js'
import type { ProductStore } from './store.js'

const PRODUCT = 'id, nama, harga, stok'

const product = (row: Produk): Produk => ({ ...row, nama: fromText(row.nama) })

/** Products in PostgreSQL. */
export class PgProductStore implements ProductStore {
  constructor(private readonly db: Queryable) {}

  async list() {
    return (await this.db.query<Produk>(`SELECT ${PRODUCT} FROM produk ORDER BY id`)).rows.map(
      product,
    )
  }

  async get(id: number) {
    const row = first(
      await this.db.query<Produk>(`SELECT ${PRODUCT} FROM produk WHERE id = $1`, [id]),
    )
    return row && product(row)
  }

  async create({ nama, harga, stok }: Omit<Produk, 'id'>) {
    const result = await this.db.query<Produk>(
      `INSERT INTO produk (nama, harga, stok) VALUES ($1, $2, $3) RETURNING ${PRODUCT}`,
      [toText(nama), harga, stok],
    )
    return product(first(result) as Produk)
  }
}
