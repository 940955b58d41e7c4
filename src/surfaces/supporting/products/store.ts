import { MemoryCollection } from '../../../store/memory-collection.js'
import type { Produk } from './schemas.js'

/** Products: read-only over HTTP, loaded from the seed. */
export interface ProductStore {
  list(): Promise<Produk[]>
  get(id: number): Promise<Produk | undefined>
}

export class MemoryProductStore implements ProductStore {
  readonly #products = new MemoryCollection<Produk>()

  constructor(seed: Omit<Produk, 'id'>[]) {
    for (const product of seed) this.#products.add((id) => ({ id, ...product }))
  }

  async list() {
    return this.#products.list()
  }

  async get(id: number) {
    return this.#products.get(id)
  }
}
