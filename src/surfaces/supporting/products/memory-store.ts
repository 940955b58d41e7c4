import { MemoryCollection } from '../../../store/memory-collection.js'
import type { Produk } from './schemas.js'
import type { ProductStore } from './store.js'

/** Products in process memory. */
export class MemoryProductStore implements ProductStore {
  readonly #products = new MemoryCollection<Produk>()

  async list() {
    return this.#products.list()
  }

  async get(id: number) {
    return this.#products.get(id)
  }

  async create(fields: Omit<Produk, 'id'>) {
    return this.#products.add((id) => ({ id, ...fields }))
  }
}
