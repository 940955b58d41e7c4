import { MemoryCollection } from '../../../store/memory-collection.js'
import { type Precondition, writeIf } from '../../../store/precondition.js'
import type { Pesanan } from './schemas.js'
import type { OrderStore, PayResult } from './store.js'

/** Orders in process memory. */
export class MemoryOrderStore implements OrderStore {
  readonly #orders = new MemoryCollection<Pesanan>()

  async get(id: number) {
    return this.#orders.get(id)
  }

  async create(fields: Pick<Pesanan, 'email' | 'jumlah'>) {
    return this.#orders.add((id) => ({ id, ...fields, status: 'MENUNGGU' as const }))
  }

  async pay(id: number, precondition?: Precondition<Pesanan>) {
    // No await between the checks and the change.
    const order = this.#orders.get(id)
    return writeIf(order, precondition, (): PayResult => {
      if (order === undefined) return { outcome: 'missing' }
      if (order.status === 'LUNAS') return { outcome: 'already-paid', order }
      const paid = this.#orders.change(id, (current) => ({ ...current, status: 'LUNAS' }))
      return { outcome: 'paid', order: paid as Pesanan }
    })
  }
}
