import { sentBody } from '../../../http/e2.js'
import { ApiError } from '../../../http/errors.js'
import { requireJsonContentType } from '../../../http/json-body.js'
import { atId } from '../../../http/path-id.js'
import { locationHeader, type RouteSpec } from '../../../http/route-spec.js'
import { notFound, pathId, supportingErrors } from '../errors.js'
import { readOne } from '../read-one.js'
import { e2, failures, idParameter } from '../responses.js'
import { checkNewOrder } from './rules.js'
import { PesananBaru, PesananEnvelope } from './schemas.js'
import type { OrderStore } from './store.js'

const alreadyPaid = (id: number) =>
  new ApiError(409, 'SUDAH_DIBAYAR', `order ${id} is already paid`, { status: 'LUNAS' })

export function orderRoutes({ store }: { store: OrderStore }): RouteSpec[] {
  return [
    {
      method: 'POST',
      path: '/pesanan',
      operationId: 'createPesanan',
      summary: 'Place an order; it starts `MENUNGGU`.',
      description:
        'Checks in order: the Content-Type (415), the body reader (413, 400), then the fields ' +
        '(400 `VALIDATION_ERROR`, each broken rule in `details`).',
      body: { schema: PesananBaru, description: 'The new order.' },
      onRequest: [requireJsonContentType(supportingErrors)],
      responses: {
        201: {
          description: 'Created.',
          schema: PesananEnvelope,
          headers: locationHeader('Path of the new order, `/pesanan/<id>`.'),
        },
        ...failures.body,
      },
      async handler(request, reply) {
        const order = await store.create(checkNewOrder(sentBody(request)))
        return reply.code(201).header('location', `/pesanan/${order.id}`).send({ data: order })
      },
    },
    readOne({
      path: '/pesanan/{id}',
      operationId: 'getPesanan',
      what: 'order',
      schema: PesananEnvelope,
      find: (id) => store.get(id),
      present: (order) => ({ data: order }),
    }),
    {
      method: 'POST',
      path: '/pesanan/{id}/bayar',
      operationId: 'payPesanan',
      summary: 'Pay an order: `MENUNGGU` becomes `LUNAS`, once.',
      description:
        'Takes no body. Checks in order: the id (400), existence (404), then whether the order ' +
        'is already paid (409, nothing changes).',
      parameters: [idParameter('Order')],
      responses: {
        200: { description: 'Paid; the order is `LUNAS`.', schema: PesananEnvelope },
        400: failures.invalidId,
        404: failures.notFound,
        409: e2('Already paid (`SUDAH_DIBAYAR`); `details.status` is `LUNAS`.'),
      },
      async handler(request) {
        const { id, raw } = pathId(request)
        const result = await atId(id, (known) => store.pay(known))
        if (result === undefined || result.outcome === 'missing') throw notFound('order', raw)
        if (result.outcome === 'already-paid') throw alreadyPaid(result.order.id)
        return { data: result.order }
      },
    },
  ]
}
