import type { Queryable } from '../../../store/postgres/database.js'
import { PgItems, table } from '../../../store/postgres/table.js'
import { fromText, toText } from '../../../store/postgres/text.js'
import type { Produk } from './schemas.js'
import type { ProductStore } from './store.js'

const products = table('produk', 'id, nama, harga, stok', (row: Produk) => ({
  ...row,
  nama: fromText(row.nama),
}))

/** Products in PostgreSQL. */
export class PgProductStore extends PgItems<Produk> implements ProductStore {
  constructor(db: Queryable) {
    super(db, products)
  }

  async create({ nama, harga, stok }: Omit<Produk, 'id'>) {
    const statement = 'INSERT INTO produk (nama, harga, stok) VALUES ($1, $2, $3)'
    return (await products.returning(this.db, statement, [toText(nama), harga, stok])) as Produk
  }
}
