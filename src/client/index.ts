// The typed client of the service (`tugas/client`): openapi-fetch over the types that
// openapi-typescript generates from /openapi.json (schema.ts, `npm run client:types`), the
// change feed as an async iterator (events.ts), and the check of a webhook delivery.

import createClient, { type Client, type ClientOptions } from 'openapi-fetch'
import {
  verifyWebhook as verifyDelivery,
  type WebhookHeaders,
} from '../events/standard-webhooks.js'
import type { components, operations, paths } from './schema.js'
import type { TugasEvent } from './typed-event.js'

export { type WebhookHeaders, WebhookVerificationError } from '../events/standard-webhooks.js'
export {
  type EventsOptions,
  eventMessages,
  events,
  FeedError,
  type FeedItem,
  type FeedMessage,
} from './events.js'
export type {
  EventData,
  EventType,
  FeedReset,
  TugasEvent,
  TugasEventOf,
} from './typed-event.js'
export type { components, operations, paths }

/** The schemas of the document by name: `Schemas['Tugas']`, `Schemas['ErrorE2']`... */
export type Schemas = components['schemas']

/** `client.GET('/tugas/{id}', ...)`, `client.POST('/users', ...)`: every documented operation. */
export type TugasClient = Client<paths>

/** openapi-fetch's options (default `headers`, a custom `fetch`...), the base URL aside. */
export type TugasClientOptions = Omit<ClientOptions, 'baseUrl'>

/**
 * A client of the service at `baseUrl`: the service's root (`http://127.0.0.1:8080`), not the
 * `/v1` server prefix of surface A. Every path of the document is served from the root, surface
 * A's both with and without the prefix, so one client reaches every surface.
 */
export function createTugasClient(
  baseUrl: string | URL,
  options: TugasClientOptions = {},
): TugasClient {
  return createClient<paths>({ ...options, baseUrl: String(baseUrl) })
}

/**
 * The typed event of a webhook delivery whose signature `secret` makes and whose timestamp is
 * within five minutes of `now`; a WebhookVerificationError otherwise
 * (docs/client.md#verifying-a-delivery-verifywebhook). `rawBody` is the body as received.
 */
export function verifyWebhook(
  secret: string,
  headers: WebhookHeaders,
  rawBody: string | Uint8Array,
  now?: Date,
): TugasEvent {
  return verifyDelivery<TugasEvent>(secret, headers, rawBody, now)
}
