import { Type } from 'typebox'
import { orThrow } from '../../../http/errors.js'
import type { RouteSpec } from '../../../http/route-spec.js'
import { notFound, pathId } from '../errors.js'
import { failures, idParameter } from '../responses.js'
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
    {
      method: 'GET',
      path: '/produk/{id}',
      operationId: 'getProduk',
      summary: 'Read one product.',
      parameters: [idParameter('Product')],
      responses: {
        200: { description: 'The product.', schema: Produk },
        400: failures.invalidId,
        404: failures.notFound,
      },
      async handler(request) {
        const id = pathId(request)
        return orThrow(await store.get(id), () => notFound('product', id))
      },
    },
  ]
}
