import { readById } from '../../../store/postgres/by-id.js'
import type { Queryable } from '../../../store/postgres/database.js'
import { writeIfLocked } from '../../../store/postgres/precondition.js'
import { first } from '../../../store/postgres/rows.js'
import { fromText, toText } from '../../../store/postgres/text.js'
import type { Precondition } from '../../../store/precondition.js'
import type { Pesanan } from './schemas.js'
import type { OrderStore, PayResult } from './store.js'

const ORDER = 'id, email, jumlah, status'

const order = (row: Pesanan): Pesanan => ({ ...row, email: fromText(row.email) })
const readOrder = readById('pesanan', ORDER, order)

/** Orders in PostgreSQL. */
export class PgOrderStore implements OrderStore {
  constructor(private readonly db: Queryable) {}

  async get(id: number) {
    return readOrder(this.db, id)
  }

  async create({ email, jumlah }: Pick<Pesanan, 'email' | 'jumlah'>) {
    const result = await this.db.query<Pesanan>(
      `INSERT INTO pesanan (email, jumlah, status) VALUES ($1, $2, 'MENUNGGU') RETURNING ${ORDER}`,
      [toText(email), jumlah],
    )
    return order(first(result) as Pesanan)
  }

  /**
   * One conditional UPDATE: of concurrent payments of one order, in however many processes,
   * exactly one finds it `MENUNGGU`. An order the UPDATE did not change is then read to tell
   * "already paid" from "missing" (a paid order never changes again, so that read is exact).
   * With a precondition, the order's row is locked and checked first, in one transaction.
   */
  async pay(id: number, precondition?: Precondition<Pesanan>) {
    return writeIfLocked(
      this.db,
      precondition,
      (db) => readOrder(db, id, true),
      (db) => this.#pay(db, id),
    )
  }

  async #pay(db: Queryable, id: number): Promise<PayResult> {
    const paid = first(
      await db.query<Pesanan>(
        `UPDATE pesanan SET status = 'LUNAS' WHERE id = $1 AND status = 'MENUNGGU' RETURNING ${ORDER}`,
        [id],
      ),
    )
    if (paid !== undefined) return { outcome: 'paid', order: order(paid) }
    const current = await readOrder(db, id)
    return current === undefined
      ? { outcome: 'missing' }
      : { outcome: 'already-paid', order: current }
  }
}
