import { Type } from 'typebox'
import type { RouteSpec } from '../../../http/route-spec.js'
import { readOne } from '../read-one.js'
import { Produk } from './schemas.js'
import type { ProductStore } from './store.js'

export function productRoutes({ store }: { store: ProductStore }): RouteSpec[] {
  return [
    {
      method: 'GET',
      path: '/produk',
      operationId: 'listProduk',
      summary: 'Every product, as a flat array.',
      responses: { 200: { description: 'The products.', schema: Type.Array(Produk) } },
      handler: async () => store.list(),
    },
    readOne({
      path: '/produk/{id}',
      operationId: 'getProduk',
      what: 'product',
      schema: Produk,
      find: (id) => store.get(id),
    }),
  ]
}
