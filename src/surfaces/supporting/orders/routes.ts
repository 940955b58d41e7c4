import {
  conditionalWrite,
  preconditionHeld,
  taggedItem,
  withETag,
} from '../../../http/conditional.js'
import { readOne } from '../../../http/e2/read-one.js'
import { sentBody } from '../../../http/e2/shape.js'
import { idempotent } from '../../../http/idempotency.js'
import { requireJsonContentType } from '../../../http/json-content-type.js'
import { atId } from '../../../http/path-id.js'
import { created, locationHeader, type RouteSpec } from '../../../http/route-spec.js'
import { PRECONDITION_FAILED } from '../../../store/precondition.js'
import {
  alreadyPaid,
  e2Errors,
  failures,
  idParameter,
  notFound,
  pathId,
  preconditionFailed,
} from '../errors.js'
import { checkNewOrder } from './rules.js'
import { type Pesanan, PesananBaru, PesananEnvelope } from './schemas.js'
import type { OrderStore } from './store.js'

const MISSING = { outcome: 'missing' } as const

/** An order as `GET /pesanan/{id}` sends it, `{ data }`, with its ETag. */
const taggedOrder = taggedItem<Pesanan>({
  schema: PesananEnvelope,
  body: (order) => ({ data: order }),
})

export function orderRoutes({ store }: { store: OrderStore }): RouteSpec[] {
  return [
    idempotent(
      {
        method: 'POST',
        path: '/pesanan',
        operationId: 'createPesanan',
        summary: 'Place an order; it starts `MENUNGGU`.',
        description:
          'Checks in order: the Content-Type (415), the body reader (413, 400), then the fields ' +
          '(400 `VALIDATION_ERROR`, each broken rule in `details`).',
        body: {
          schema: PesananBaru,
          description: 'The new order.',
          example: { email: 'rina.wijaya@example.com', jumlah: 2 },
        },
        onRequest: [requireJsonContentType(e2Errors)],
        responses: {
          201: withETag({
            description: 'Created.',
            schema: PesananEnvelope,
            headers: locationHeader('Path of the new order, `/pesanan/<id>`.'),
          }),
          ...failures.body,
        },
        async handler(request, reply) {
          const order = await store.create(checkNewOrder(sentBody(request)))
          return taggedOrder.send(created(reply, `/pesanan/${order.id}`), order)
        },
      },
      failures.idempotency,
    ),
    readOne({
      path: '/pesanan/{id}',
      operationId: 'getPesanan',
      what: 'order',
      item: taggedOrder,
      find: (id) => store.get(id),
    }),
    idempotent(
      conditionalWrite(
        {
          method: 'POST',
          path: '/pesanan/{id}/bayar',
          operationId: 'payPesanan',
          summary: 'Pay an order: `MENUNGGU` becomes `LUNAS`, once.',
          description:
            'Takes no body. Checks in order: the id (400), existence (404), `If-Match` (412), then ' +
            'whether the order is already paid (409, nothing changes).',
          parameters: [idParameter('Order')],
          responses: {
            200: { description: 'Paid; the order is `LUNAS`.', schema: PesananEnvelope },
            400: failures.invalidId,
            404: failures.notFound,
            409: failures.alreadyPaid,
          },
          async handler(request, reply) {
            const { id, raw } = pathId(request)
            const ifMatch = taggedOrder.ifMatch(request, reply)
            const result = (await atId(id, (known) => store.pay(known, ifMatch))) ?? MISSING
            if (result !== PRECONDITION_FAILED && result.outcome === 'missing') {
              throw notFound('order', raw)
            }
            const paid = preconditionHeld(result, () => preconditionFailed('order', raw))
            if (paid.outcome === 'already-paid') throw alreadyPaid(paid.order.id)
            return taggedOrder.send(reply, paid.order)
          },
        },
        failures.preconditionFailed,
      ),
      failures.idempotency,
    ),
  ]
}
