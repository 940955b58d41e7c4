import type { Produk } from './schemas.js'

/** Products: read-only over HTTP; `create` loads the seed. */
export interface ProductStore {
  list(): Promise<Produk[]>
  get(id: number): Promise<Produk | undefined>
  create(fields: Omit<Produk, 'id'>): Promise<Produk>
}
