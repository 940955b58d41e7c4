import type { FastifyInstance } from 'fastify'
import { useErrorShape } from '../../http/errors.js'
import { acceptJsonBodies } from '../../http/json-body.js'
import { answerOtherMethodsOf } from '../../http/method-not-allowed.js'
import { encapsulated } from '../../http/plugin.js'
import { type RouteSpec, registerRoutes } from '../../http/route-spec.js'
import { compactErrors } from './errors.js'
import { COMPACT_PREFIX } from './routes.js'

export { UNKNOWN_PATH } from './errors.js'
export { COMPACT_PREFIX, COMPACT_TAG, compactRoutes } from './routes.js'

/**
 * Surface B: its routes (`compactRoutes`, at their full paths), the 405 of each of its paths,
 * and the empty 404 of every other path under `/api`.
 */
export async function compactSurface(
  instance: FastifyInstance,
  { routes }: { routes: RouteSpec[] },
) {
  acceptJsonBodies(instance)
  useErrorShape(instance, compactErrors, { notFound: false })
  instance.register(
    encapsulated('compact not found', async (unknown) => useErrorShape(unknown, compactErrors)),
    { prefix: COMPACT_PREFIX },
  )
  registerRoutes(instance, routes)
  answerOtherMethodsOf(instance, routes)
}
