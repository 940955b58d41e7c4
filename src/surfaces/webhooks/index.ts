import type { FastifyInstance } from 'fastify'
import { serveWithCredentials } from '../../access/surface.js'
import { e2Failures, notServed } from '../../http/e2/errors.js'
import type { RouteSpec } from '../../http/route-spec.js'

/** The webhooks' group in the document. */
export const WEBHOOKS_TAG = {
  name: 'Webhooks',
  description:
    'Subscriptions (admin only) that deliver events to a URL by a signed `POST` (Standard ' +
    'Webhooks), retried with backoff; what each receives is described by the `webhooks` entries ' +
    'of this document, one per event type. Errors are E2.',
}

/** The routes of the webhooks as the document lists them. */
export function webhookOperations(routes: RouteSpec[]): RouteSpec[] {
  return routes.map((route) => ({
    ...route,
    tags: [WEBHOOKS_TAG.name],
    responses: { ...e2Failures.store, ...route.responses },
    servers: ['/'],
    otherMethods: notServed,
  }))
}

/** The webhooks' routes: E2 errors, JSON bodies, credentials, 405 with `Allow`. */
export async function webhooksSurface(
  instance: FastifyInstance,
  { routes }: { routes: RouteSpec[] },
) {
  serveWithCredentials(instance, routes)
}
