import type { RouteSpec } from '../../http/route-spec.js'
import { failures, notServed } from '../supporting/errors.js'

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
