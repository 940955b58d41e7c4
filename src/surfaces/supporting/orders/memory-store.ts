import { MemoryItems, publishes } from '../../../store/memory-collection.js'
import { type Precondition, writeIf } from '../../../store/precondition.js'
import type { Pesanan } from './schemas.js'
import type { OrderStore, PayResult } from './store.js'

/** Orders in process memory. */
export class MemoryOrderStore extends MemoryItems<Pesanan> implements OrderStore {
  async create(fields: Pick<Pesanan, 'email' | 'jumlah'>) {
    const published = publishes<Pesanan>(this.publish, 'pesanan.created')
    return this.items.add((id) => ({ id, ...fields, status: 'MENUNGGU' as const }), published)
  }

  async pay(id: number, precondition?: Precondition<Pesanan>) {
    // No await between the checks and the change.
    const order = this.items.get(id)
    return writeIf(order, precondition, (): PayResult => {
      if (order === undefined) return { outcome: 'missing' }
      if (order.status === 'LUNAS') return { outcome: 'already-paid', order }
      const published = publishes<Pesanan>(this.publish, 'pesanan.paid')
      const paid = this.items.change(
        id,
        (current) => ({ ...current, status: 'LUNAS' }),
        undefined,
        published,
      )
      return { outcome: 'paid', order: paid as Pesanan }
    })
  }
}
