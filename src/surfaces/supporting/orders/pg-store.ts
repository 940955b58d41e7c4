import type { Queryable } from '../../../store/postgres/database.js'
import type { Published } from '../../../store/postgres/outbox.js'
import { PgItems, table } from '../../../store/postgres/table.js'
import { fromText, toText } from '../../../store/postgres/text.js'
import type { Precondition } from '../../../store/precondition.js'
import type { Pesanan } from './schemas.js'
import type { OrderStore, PayResult } from './store.js'

export const orders = table('pesanan', 'id, email, jumlah, status', (row: Pesanan) => ({
  ...row,
  email: fromText(row.email),
}))

/** Orders in PostgreSQL. */
export class PgOrderStore extends PgItems<Pesanan> implements OrderStore {
  constructor(db: Queryable, published?: Published) {
    super(db, orders, published)
  }

  async create({ email, jumlah }: Pick<Pesanan, 'email' | 'jumlah'>) {
    const statement = "INSERT INTO pesanan (email, jumlah, status) VALUES ($1, $2, 'MENUNGGU')"
    const values = [toText(email), jumlah]
    const publishing = this.publishing('pesanan.created')
    return (await orders.returning(this.db, statement, values, publishing)) as Pesanan
  }

  /**
   * One conditional UPDATE: of concurrent payments of one order, in however many processes,
   * exactly one finds it `MENUNGGU`. An order the UPDATE did not change is then read to tell
   * "already paid" from "missing" (a paid order never changes again, so that read is exact).
   * With a precondition, the order's row is locked and checked first, in one transaction.
   */
  async pay(id: number, precondition?: Precondition<Pesanan>) {
    return orders.guarded(this.db, id, precondition, (db) => this.#pay(db, id))
  }

  async #pay(db: Queryable, id: number): Promise<PayResult> {
    const paid = await orders.returning(
      db,
      "UPDATE pesanan SET status = 'LUNAS' WHERE id = $1 AND status = 'MENUNGGU'",
      [id],
      this.publishing('pesanan.paid'),
    )
    if (paid !== undefined) return { outcome: 'paid', order: paid }
    const current = await orders.read(db, id)
    return current === undefined
      ? { outcome: 'missing' }
      : { outcome: 'already-paid', order: current }
  }
}
