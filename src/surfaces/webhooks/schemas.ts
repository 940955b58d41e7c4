import { Type } from 'typebox'
import { EVENT_ID } from '../../events/event-id.js'
import type { OperationSpec } from '../../http/route-spec.js'
import { ALL_EVENT_TYPES, EVENT_TYPES } from '../../store/events.js'
import { Event } from '../events/schemas.js'

const id = Type.Integer({ minimum: 1 })
const createdAt = Type.String({ format: 'date-time', description: 'RFC 3339, UTC.' })

/** The names a webhook's `types` may hold: each type, and `<resource>.*` for each resource. */
export const TYPE_NAMES = [
  ...ALL_EVENT_TYPES,
  ...Object.keys(EVENT_TYPES).map((resource) => `${resource}.*`),
]

const types = Type.Array(Type.Union(TYPE_NAMES.map((name) => Type.Literal(name))), {
  minItems: 1,
  description: 'Event types, or `<resource>.*` for every type of one resource; not empty.',
})

const url = Type.String({
  format: 'uri',
  description:
    'An http or https URL whose host is not, and does not resolve to, a loopback, private, ' +
    'link-local, unique-local or unspecified address (unless `WEBHOOK_ALLOW_PRIVATE=true`).',
})

export const Webhook = Type.Object(
  { id, url, types, created_at: createdAt },
  { description: 'A webhook subscription. Its secret is shown only when it is created.' },
)

export const WebhookEnvelope = Type.Object({ data: Webhook })

export const WebhookList = Type.Object({ data: Type.Array(Webhook) })

export const CreatedWebhook = Type.Object({
  data: Type.Object({
    id,
    url,
    types,
    secret: Type.String({
      pattern: '^whsec_[A-Za-z0-9+/]{43}=$',
      description:
        "`whsec_` and the base64 of 32 random bytes: the key of every delivery's signature. " +
        'Shown only in this answer.',
    }),
    created_at: createdAt,
  }),
})

export const NewWebhookBody = Type.Object({ url, types })

/** A documentation address (TEST-NET-3): public, so taken, and nothing is ever delivered there. */
export const newWebhookExample = { url: 'https://203.0.113.10/hooks/pesanan', types: ['pesanan.*'] }

const eventId = (description: string) =>
  Type.String({ pattern: EVENT_ID.source, description: `An event id: ${description}` })

export const ReplayBody = Type.Object({
  after: eventId(
    'the events after this one are replayed; `"0"` for every event kept. Decimal digits, as ' +
      "`GET /events` and the event's `id` write ids.",
  ),
  until: Type.Optional(
    eventId(
      'the last event replayed, this one included; not below `after` (400 otherwise). Left ' +
        'out: up to the newest.',
    ),
  ),
})

/** Every event kept, for any subscription: the first replay a client tries. */
export const replayExample = { after: '0' }

export const ReplayQueued = Type.Object({
  data: Type.Object({
    queued: Type.Integer({
      minimum: 0,
      description:
        'How many deliveries were queued: the kept events of the range of types the ' +
        'subscription selects.',
    }),
  }),
})

export const DeliveryAttempt = Type.Object({
  event_id: id,
  attempt: Type.Integer({
    minimum: 1,
    description: "The attempt's number for this event, from 1.",
  }),
  status_code: Type.Union([Type.Integer(), Type.Null()], {
    description: "The receiver's status; null when no answer came.",
  }),
  error: Type.Union([Type.String(), Type.Null()], {
    description:
      'Why no answer came: `timeout`, `connection refused`, `refused: ...` (a private ' +
      'address); null when one did.',
  }),
  time: Type.String({ format: 'date-time', description: 'When the attempt ended.' }),
  duration_ms: Type.Integer({ minimum: 0 }),
  result: Type.Union(
    [Type.Literal('delivered'), Type.Literal('retrying'), Type.Literal('failed')],
    {
      description:
        '`delivered` (a 2xx), `retrying` (another attempt follows), or `failed` (the last: ' +
        'WEBHOOK_MAX_ATTEMPTS reached).',
    },
  ),
})

export const DeliveryList = Type.Object({
  data: Type.Array(DeliveryAttempt, { description: 'The most recent attempts, newest first.' }),
})

/** What a subscriber's URL receives, as OpenAPI 3.1 `webhooks` describes it. */
export const deliveryOperation: OperationSpec = {
  method: 'POST',
  path: '/',
  operationId: 'deliverEvent',
  tags: ['Webhooks'],
  summary: "One event, delivered to a subscription's URL (Standard Webhooks).",
  description:
    'Sent for each event of a subscribed type. Verify `webhook-signature` before trusting the ' +
    'body: `v1,` and the base64 HMAC-SHA256, keyed with the bytes of the secret (the base64 ' +
    'after `whsec_`), of `<webhook-id>.<webhook-timestamp>.<body>`; refuse a timestamp far ' +
    'from now. Any 2xx within WEBHOOK_TIMEOUT_MS is delivered; anything else (another status, ' +
    'no answer, a redirect) is retried with backoff. The same event may arrive more than once ' +
    '(at least once): `webhook-id` tells a repeat.',
  parameters: [
    {
      name: 'webhook-id',
      in: 'header',
      required: true,
      description: 'The event id: the same on every attempt of the event.',
      schema: Type.String({ pattern: '^[0-9]+$' }),
    },
    {
      name: 'webhook-timestamp',
      in: 'header',
      required: true,
      description: 'When this attempt was sent, in Unix seconds.',
      schema: Type.String({ pattern: '^[0-9]+$' }),
    },
    {
      name: 'webhook-signature',
      in: 'header',
      required: true,
      description: '`v1,` and the base64 HMAC-SHA256 of `<id>.<timestamp>.<body>`.',
      schema: Type.String({ pattern: '^v1,[A-Za-z0-9+/]{43}=$' }),
    },
  ],
  body: { schema: Event, description: 'The event, as `GET /events` sends it.' },
  responses: {
    200: { description: 'Any 2xx: delivered.' },
    500: { description: 'Anything else, or no answer in time: attempted again later.' },
  },
}
