import type { FastifyInstance } from 'fastify'
import { e2Errors } from '../http/e2/errors.js'
import { useErrorShape } from '../http/errors.js'
import { acceptJsonBodies, JSON_CONTENT_TYPE } from '../http/json-body.js'
import { answerOtherMethodsOf } from '../http/method-not-allowed.js'
import { type RouteSpec, registerRoutes } from '../http/route-spec.js'
import { admitsCredentials } from './guard.js'

/**
 * Serves `routes` in `instance` as every surface that takes credentials does (D with
 * /kredensial, the feed, webhooks), each once in a context of its own: the request's credential
 * slot, JSON bodies with a Content-Type starting `application/json` (up to 1 MiB), E2 errors
 * whose 401s carry the challenge, and 405 `METHOD_NOT_ALLOWED` with `Allow` on their paths.
 * Unknown paths fall through to the service's generic 404. It lives here, not in http/, for the
 * credential slot.
 */
export function serveWithCredentials(instance: FastifyInstance, routes: RouteSpec[]): void {
  admitsCredentials(instance)
  acceptJsonBodies(instance, { mediaType: JSON_CONTENT_TYPE })
  useErrorShape(instance, e2Errors, { notFound: false })
  registerRoutes(instance, routes)
  answerOtherMethodsOf(instance, routes)
}
