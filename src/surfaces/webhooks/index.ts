import type { FastifyInstance } from 'fastify'
import { useErrorShape } from '../../http/errors.js'
import { acceptJsonBodies, JSON_CONTENT_TYPE } from '../../http/json-body.js'
import { answerOtherMethodsOf } from '../../http/method-not-allowed.js'
import { type RouteSpec, registerRoutes } from '../../http/route-spec.js'
import { admitsCredentials } from '../supporting/access/guard.js'
import { failures, notServed, supportingErrors } from '../supporting/errors.js'

/** The webhooks' group in the document. */
export const WEBHOOKS_TAG = {
  name: 'Webhooks',
  description:
    'Subscriptions (admin only) that deliver events to a URL by a signed `POST` (Standard ' +
    'Webhooks), retried with backoff; what each receives is the `webhooks` entry of this ' +
    'document. Errors are E2.',
}

/** The routes of the webhooks as the document lists them. */
export function webhookOperations(routes: RouteSpec[]): RouteSpec[] {
  return routes.map((route) => ({
    ...route,
    tags: [WEBHOOKS_TAG.name],
    responses: { ...failures.store, ...route.responses },
    servers: ['/'],
    otherMethods: notServed,
  }))
}

/**
 * The webhook subscriptions: E2 errors, JSON bodies up to 1 MiB, 405 with `Allow` for other
 * methods. Deliveries run beside the app (deliverer.ts), not in its requests.
 */
export async function webhooksSurface(
  instance: FastifyInstance,
  { routes }: { routes: RouteSpec[] },
) {
  admitsCredentials(instance)
  acceptJsonBodies(instance, { mediaType: JSON_CONTENT_TYPE })
  useErrorShape(instance, supportingErrors, { notFound: false })
  registerRoutes(instance, routes)
  answerOtherMethodsOf(instance, routes)
}
