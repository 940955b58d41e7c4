import type { Precondition, PreconditionFailed } from '../../../store/precondition.js'
import type { Pesanan } from './schemas.js'

export type PayResult =
  | { outcome: 'paid'; order: Pesanan }
  | { outcome: 'already-paid'; order: Pesanan }
  | { outcome: 'missing' }

/** Orders and their one transition, `MENUNGGU` to `LUNAS`. */
export interface OrderStore {
  get(id: number): Promise<Pesanan | undefined>
  create(fields: Pick<Pesanan, 'email' | 'jumlah'>): Promise<Pesanan>
  /**
   * Marks a waiting order paid, in one indivisible step (a database store does it in one
   * conditional UPDATE): of concurrent payments of one order, exactly one is `paid`. With a
   * precondition (If-Match) on the order as it is, evaluated in the same step: when the order
   * exists and fails it, nothing changes and the answer is PRECONDITION_FAILED (before
   * `already-paid`).
   */
  pay(id: number, precondition?: Precondition<Pesanan>): Promise<PayResult | PreconditionFailed>
}
