import type { FastifyInstance } from 'fastify'
import { useErrorShape } from '../../http/errors.js'
import { acceptJsonBodies, JSON_CONTENT_TYPE } from '../../http/json-body.js'
import { answerOtherMethodsOf } from '../../http/method-not-allowed.js'
import { registerRoutes } from '../../http/route-spec.js'
import { priorityErrors, todosErrors } from './errors.js'
import type { TodosRouteTable } from './routes.js'
import { PRIORITY_BODY_LIMIT } from './schemas.js'

export { TODOS_TAG, type TodosRouteTable, todosRouteTable } from './routes.js'

/**
 * Surface C (`todosRouteTable`, at its full paths) and the 405 of each of its paths. Unknown
 * paths below `/todos` fall through to the service's generic 404.
 */
export async function todosSurface(
  instance: FastifyInstance,
  { table }: { table: TodosRouteTable },
) {
  useErrorShape(instance, todosErrors, { notFound: false })
  registerRoutes(instance, table.basic, {
    bodies: (basic) => acceptJsonBodies(basic, { anyContentType: true }),
  })
  registerRoutes(instance, table.priority, {
    bodies(priority) {
      acceptJsonBodies(priority, { mediaType: JSON_CONTENT_TYPE, bodyLimit: PRIORITY_BODY_LIMIT })
      useErrorShape(priority, priorityErrors, { notFound: false })
    },
  })
  answerOtherMethodsOf(instance, [...table.basic, ...table.priority])
}
