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
   * conditional UPDATE): of concurrent payments of one order, exactly one is `paid`.
   */
  pay(id: number): Promise<PayResult>
}
