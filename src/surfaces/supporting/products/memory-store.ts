import { MemoryItems } from '../../../store/memory-collection.js'
import type { Produk } from './schemas.js'
import type { ProductStore } from './store.js'

/** Products in process memory. */
export class MemoryProductStore extends MemoryItems<Produk> implements ProductStore {
  async create(fields: Omit<Produk, 'id'>) {
    return this.items.add((id) => ({ id, ...fields }))
  }
}
