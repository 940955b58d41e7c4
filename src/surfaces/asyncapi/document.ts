// The events as an AsyncAPI 3.0.0 document (docs/events.md#described-for-generators): the
// change feed and the webhook deliveries, with the very schema objects /openapi.json publishes.
import type { Config } from '../../config.js'
import { DELIVERY_CONTENT_TYPE } from '../../events/standard-webhooks.js'
import type { EventType } from '../../store/events.js'
import { EVENT_SCHEMAS, PUBLISHED_TYPES, pascalName } from '../events/event-types.js'
import { ResetData } from '../events/schemas.js'
import { type Json, schemaWriter, usedSchemas } from '../openapi/document.js'
import { DEFAULT_ORIGIN } from '../openapi/origin.js'
import { serviceComponents } from '../openapi/service.js'
import { deliveryOperation } from '../webhooks/schemas.js'
import { SERVICE_SERVER, serverAt } from './index.js'

/** Where a message of `channel` named `name` is, for an operation's `messages`. */
const channelMessage = (channel: string, name: string): Json => ({
  $ref: `#/channels/${channel}/messages/${name}`,
})

const message = (name: string): Json => ({ $ref: `#/components/messages/${name}` })

/**
 * The AsyncAPI 3.0.0 document of the events this configuration publishes. The service is the
 * application it describes: it sends every event on the `events` channel (`GET /events`, to
 * each open stream) and on the `deliveries` channel (a `POST` to each subscription's URL). Each
 * message's payload is the `$ref` of the same component `/openapi.json` gives that type's
 * webhook body, and the delivery's headers are the webhook's three header parameters.
 */
export function asyncApiDocument(config: Config): Record<string, Json> {
  const { toJson, componentSchemas } = schemaWriter(serviceComponents)
  const headers = deliveryOperation.parameters ?? []
  const deliveryHeaders: Json = {
    type: 'object',
    description: 'The Standard Webhooks headers of a delivery.',
    required: headers.map(({ name }) => name),
    properties: Object.fromEntries(
      headers.map(({ name, description, schema }) => [
        name,
        { ...(toJson(schema) as Record<string, Json>), description },
      ]),
    ),
  }
  const payloadOf = (type: EventType) => toJson(EVENT_SCHEMAS[type])
  const eventMessage = (type: EventType): Json => ({
    name: type,
    title: type,
    summary: `A \`${type}\` event, as the \`data:\` line of an SSE event named \`${type}\`.`,
    contentType: 'application/json',
    payload: payloadOf(type),
  })
  const deliveryMessage = (type: EventType): Json => ({
    name: type,
    title: type,
    summary: `A \`${type}\` event, delivered to a subscription's URL (Standard Webhooks).`,
    contentType: DELIVERY_CONTENT_TYPE,
    headers: deliveryHeaders,
    payload: payloadOf(type),
  })
  const messages: Record<string, Json> = {
    ...Object.fromEntries(
      PUBLISHED_TYPES.map((type) => [`${pascalName(type)}Event`, eventMessage(type)]),
    ),
    Reset: {
      name: 'reset',
      title: 'reset',
      summary:
        'The first event of a stream resumed from an id whose successors are no longer all ' +
        'kept: read the state again. Its `id:` is the oldest kept id minus one.',
      contentType: 'application/json',
      payload: toJson(ResetData),
    },
    ...Object.fromEntries(
      PUBLISHED_TYPES.map((type) => [`${pascalName(type)}Delivery`, deliveryMessage(type)]),
    ),
  }
  const streamed: Record<string, Json> = {
    ...Object.fromEntries(
      PUBLISHED_TYPES.map((type) => [type, message(`${pascalName(type)}Event`)]),
    ),
    reset: message('Reset'),
  }
  const delivered: Record<string, Json> = Object.fromEntries(
    PUBLISHED_TYPES.map((type) => [type, message(`${pascalName(type)}Delivery`)]),
  )
  const modes = `TUGAS_VERSIONING=${config.tugasVersioning}, PRODUK_VERSIONING=${config.produkVersioning}, USERS_VARIANT=${config.usersVariant}, TODOS_VARIANT=${config.todosVariant}`
  const channels: Record<string, Json> = {
    events: {
      address: '/events',
      title: 'The change feed',
      description:
        'Server-Sent Events (`GET /events`, `Content-Type: text/event-stream`): first ' +
        '`retry: 2000`, then each event as `id: <id>`, `event: <type>` (the message name) and ' +
        '`data: <the event JSON on one line>` (the message payload), and `: keep-alive` after ' +
        '`EVENTS_HEARTBEAT_MS` without one. Resume with the header `Last-Event-ID: <id>` (what ' +
        '`EventSource` sends on reconnecting) or the query `after=<id>`: every kept event ' +
        'after it, then live; `types=<list>` (types, or `<resource>.*`) sends only those. No ' +
        'credential is needed; `dokumen.*` events reach only a stream opened with a credential ' +
        'that may read the document. Errors are described in `/openapi.json`.',
      servers: [{ $ref: `#/servers/${SERVICE_SERVER}` }],
      messages: streamed,
    },
    deliveries: {
      address: null,
      title: 'Webhook deliveries',
      description:
        "A subscription's URL (`POST /webhooks`), which receives each event of its types as " +
        `a \`POST\` with \`Content-Type: ${DELIVERY_CONTENT_TYPE}\`. ${deliveryOperation.description}`,
      servers: [{ $ref: '#/servers/subscriber' }],
      messages: delivered,
    },
  }
  return {
    asyncapi: '3.0.0',
    id: 'urn:tugas:events',
    info: {
      title: 'tugas: events',
      version: '1.0.0',
      description:
        'Every write of the service that answers 2xx publishes one event, a CloudEvents 1.0 ' +
        'event in structured form, in one order (`id`). Clients read them as Server-Sent ' +
        'Events (the `events` channel); subscriptions receive them as webhook deliveries (the ' +
        '`deliveries` channel). The payloads are the schemas `/openapi.json` gives the same ' +
        `events (its \`webhooks\`). This document describes this deployment: ${modes}.`,
      contact: { name: 'tugas maintainers' },
      license: { name: 'MIT', url: 'https://spdx.org/licenses/MIT.html' },
    },
    defaultContentType: 'application/json',
    servers: {
      [SERVICE_SERVER]: {
        ...serverAt(DEFAULT_ORIGIN),
        description: 'This deployment: the scheme, host and port this document was fetched from.',
      },
      subscriber: {
        host: '{host}',
        protocol: 'https',
        description:
          "A subscription's URL, http or https, on a public address (unless " +
          '`WEBHOOK_ALLOW_PRIVATE=true`).',
        variables: {
          host: {
            description: "The host (and port) of the subscription's URL.",
            examples: ['203.0.113.10'],
          },
        },
      },
    },
    channels,
    operations: {
      streamEvents: {
        action: 'send',
        channel: { $ref: '#/channels/events' },
        title: 'Stream the events',
        summary: 'Each event, to every stream of `GET /events` whose filter takes it.',
        bindings: { http: { method: 'GET', bindingVersion: '0.3.0' } },
        messages: Object.keys(streamed).map((name) => channelMessage('events', name)),
      },
      deliverEvents: {
        action: 'send',
        channel: { $ref: '#/channels/deliveries' },
        title: 'Deliver the events',
        summary:
          "Each event, to every subscription whose types take it; the receiver's 2xx is " +
          'delivered, anything else is retried.',
        bindings: { http: { method: 'POST', bindingVersion: '0.3.0' } },
        messages: Object.keys(delivered).map((name) => channelMessage('deliveries', name)),
      },
    },
    components: {
      schemas: usedSchemas([messages], componentSchemas()),
      messages,
    },
  }
}
