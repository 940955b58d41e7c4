import { credentialed } from '../../access/guard.js'
import type { CredentialStore } from '../../access/store.js'
import { newSecret } from '../../events/standard-webhooks.js'
import { taggedItem } from '../../http/conditional.js'
import {
  e2Errors,
  e2Failures,
  e2Response,
  idParameter,
  integerId,
  notFound,
  pathId,
} from '../../http/e2/errors.js'
import { readOne } from '../../http/e2/read-one.js'
import { sentBody } from '../../http/e2/shape.js'
import { requireJsonContentType } from '../../http/json-content-type.js'
import { atId, checkIdFirst } from '../../http/path-id.js'
import { created, locationHeader, type RouteSpec } from '../../http/route-spec.js'
import type { Lookup } from './address.js'
import { checkNewWebhook, checkReplay } from './rules.js'
import {
  CreatedWebhook,
  DeliveryList,
  NewWebhookBody,
  newWebhookExample,
  ReplayBody,
  ReplayQueued,
  replayExample,
  WebhookEnvelope,
  WebhookList,
} from './schemas.js'
import type { Webhook, WebhookStore } from './store.js'

export interface WebhookRouteOptions {
  store: WebhookStore
  credentials: CredentialStore
  /** WEBHOOK_ALLOW_PRIVATE: URLs on private networks are taken (development, tests). */
  allowPrivate: boolean
  /** How a URL's host is looked up: as a delivery does, within WEBHOOK_TIMEOUT_MS. */
  lookup: Lookup
}

const taggedWebhook = taggedItem<Webhook>({
  schema: WebhookEnvelope,
  body: (webhook) => ({ data: webhook }),
})

/**
 * `/webhooks`, admin only. Checks run in the order of docs/supporting.md#credentials-and-roles:
 * the credential (401), the role (403), then the request itself: the id (400), the body (415,
 * 413, 400), existence (404) (docs/webhooks.md#subscriptions).
 */
export function webhookRoutes({
  store,
  credentials,
  allowPrivate,
  lookup,
}: WebhookRouteOptions): RouteSpec[] {
  const routes: RouteSpec[] = [
    {
      method: 'POST',
      path: '/webhooks',
      operationId: 'createWebhook',
      summary: 'Subscribe a URL to events (admin only); the answer holds its secret, once.',
      description:
        'Checks in order: the credential (401), the role, admins only (403), the Content-Type ' +
        '(415), the body reader (413, 400), the fields (400 `VALIDATION_ERROR`, every broken ' +
        'rule in `details`; a URL whose host is or resolves to a private address is refused ' +
        'unless `WEBHOOK_ALLOW_PRIVATE=true`). The `secret` signs every delivery and is never ' +
        'shown again. No `Idempotency-Key`: a replay would show the secret again.',
      body: {
        schema: NewWebhookBody,
        description: 'The URL, and the event types to deliver.',
        example: newWebhookExample,
      },
      onRequest: [requireJsonContentType(e2Errors)],
      responses: {
        201: {
          description: 'Subscribed: the subscription with its `secret`.',
          schema: CreatedWebhook,
          headers: locationHeader('Path of the new subscription, `/webhooks/<id>`.'),
        },
        ...e2Failures.body,
      },
      async handler(request, reply) {
        const fields = await checkNewWebhook(sentBody(request), allowPrivate, lookup)
        const secret = newSecret()
        const { id, url, types, created_at } = await store.create({ ...fields, secret })
        created(reply, `/webhooks/${id}`)
        return { data: { id, url, types, secret, created_at } }
      },
    },
    {
      method: 'GET',
      path: '/webhooks',
      operationId: 'listWebhooks',
      summary: 'Every subscription, without secrets (admin only).',
      description:
        'Every subscription in id order, in `data`: its URL, its types and when it was created; ' +
        'never its secret.',
      responses: { 200: { description: 'The subscriptions.', schema: WebhookList } },
      async handler() {
        return { data: await store.list() }
      },
    },
    readOne({
      path: '/webhooks/{id}',
      operationId: 'getWebhook',
      what: 'webhook',
      item: taggedWebhook,
      find: (id) => store.get(id),
    }),
    {
      method: 'DELETE',
      path: '/webhooks/{id}',
      operationId: 'deleteWebhook',
      summary: 'Unsubscribe (admin only): its pending deliveries are dropped.',
      description:
        'Checks in order: the credential (401), the role, admins only (403), the id (400 ' +
        '`INVALID_ID`), existence (404). Answers 204 with an empty body; the pending deliveries ' +
        'and the recorded attempts of the subscription go with it.',
      parameters: [idParameter('Webhook')],
      responses: {
        204: { description: 'Deleted; empty body.' },
        400: e2Failures.invalidId,
        404: e2Failures.notFound,
      },
      async handler(request, reply) {
        const { id, raw } = pathId(request)
        if (!(await atId(id, (known) => store.delete(known)))) throw notFound('webhook', raw)
        return reply.code(204).send()
      },
    },
    {
      method: 'GET',
      path: '/webhooks/{id}/deliveries',
      operationId: 'listWebhookDeliveries',
      summary: 'The most recent delivery attempts of a subscription, newest first (admin only).',
      description:
        'Up to 100 attempts, newest first: each with its event, its number, the status the ' +
        'receiver answered (`null` when none came) or why none came (`error`), and its result.',
      parameters: [idParameter('Webhook')],
      responses: {
        200: { description: 'The attempts.', schema: DeliveryList },
        400: e2Failures.invalidId,
        404: e2Failures.notFound,
      },
      async handler(request) {
        const { id, raw } = pathId(request)
        const webhook = await atId(id, (known) => store.get(known))
        if (webhook === undefined) throw notFound('webhook', raw)
        return { data: await store.attempts(webhook.id) }
      },
    },
    {
      method: 'POST',
      path: '/webhooks/{id}/replay',
      operationId: 'replayWebhook',
      summary: 'Deliver kept events again to a subscription: a new delivery of each (admin only).',
      description:
        'Queues a new delivery, with attempts and retries of its own, of every event still kept ' +
        '(`EVENTS_RETAIN`) with an id above `after` and up to `until` (included; left out: up ' +
        "to the newest) whose type the subscription's `types` select, in id order; events no " +
        'longer kept are skipped. One event alone: `after` its id - 1, `until` its id. Checks in ' +
        'order: the credential (401), the role, admins only (403), the id (400 `INVALID_ID`), ' +
        'the Content-Type (415), the body reader (413, 400), the fields (400 ' +
        '`VALIDATION_ERROR`, every broken rule in `details`: ids not strings of decimal digits, ' +
        '`until` below `after`), existence (404).',
      parameters: [idParameter('Webhook')],
      body: {
        schema: ReplayBody,
        description: 'The range of event ids to deliver again.',
        example: replayExample,
      },
      onRequest: [checkIdFirst(integerId), requireJsonContentType(e2Errors)],
      responses: {
        202: {
          description: 'Queued: how many deliveries; the deliverer sends them from now on.',
          schema: ReplayQueued,
        },
        ...e2Failures.body,
        400: e2Response(
          'The id is not an integer (`INVALID_ID`), the body not valid JSON (`INVALID_JSON`), ' +
            'or its fields break the rules (`VALIDATION_ERROR`).',
        ),
        404: e2Failures.notFound,
      },
      async handler(request, reply) {
        const { id, raw } = pathId(request)
        const range = checkReplay(sentBody(request))
        const queued = await atId(id, (known) => store.replay(known, range))
        if (queued === undefined) throw notFound('webhook', raw)
        reply.code(202)
        return { data: { queued } }
      },
    },
  ]
  return routes.map((route) => credentialed(credentials, route))
}
