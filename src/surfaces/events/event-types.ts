// Each event type as generators read it (docs/events.md#described-for-generators): the type's
// event schema (the CloudEvents envelope with that type's `data`), named once, and the webhook
// delivery of each type. /openapi.json (`webhooks`, `GET /events`) and /asyncapi.json are both
// built from these very objects, so the two documents cannot describe an event differently.
import { type TSchema, Type } from 'typebox'
import { DELIVERY_CONTENT_TYPE } from '../../events/standard-webhooks.js'
import type { OperationSpec } from '../../http/route-spec.js'
import { ALL_EVENT_TYPES, type EventType } from '../../store/events.js'
import { CompactTugas } from '../compact/schemas.js'
import { Pesanan } from '../supporting/orders/schemas.js'
import { User } from '../supporting/users/schemas.js'
import { Todo } from '../todos/schemas.js'
import { Komentar, Tugas } from '../tugas/schemas.js'
import { deliveryOperation } from '../webhooks/schemas.js'
import { eventSchema, ResetData } from './schemas.js'

/** The `data` of a deletion: the id of what was deleted. */
export const DeletedData = Type.Object(
  { id: Type.Integer({ minimum: 1 }) },
  { description: 'What a deletion carries: the id of what was deleted.' },
)

/**
 * Each type's `data`: the resource as its item read returns it, or `DeletedData`; the typed
 * client's event types are derived from it (src/client/typed-event.ts).
 */
export const EVENT_DATA = {
  'tugas.created': Tugas,
  'tugas.replaced': Tugas,
  'tugas.updated': Tugas,
  'tugas.deleted': DeletedData,
  'komentar.created': Komentar,
  'api-tugas.created': CompactTugas,
  'api-tugas.replaced': CompactTugas,
  'api-tugas.deleted': DeletedData,
  'todos.created': Todo,
  'todos.replaced': Todo,
  'todos.deleted': DeletedData,
  'users.created': User,
  'pesanan.created': Pesanan,
  'pesanan.paid': Pesanan,
  'dokumen.deleted': DeletedData,
} as const satisfies Record<EventType, TSchema>

/** `tugas.created` as a name in code: `TugasCreated`; `api-tugas.deleted`: `ApiTugasDeleted`. */
export const pascalName = (type: string) =>
  type
    .split(/[.-]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')

/**
 * The event types the feed publishes in this configuration, in the order of docs/events.md:
 * every surface is served in every configuration, so every type.
 */
export const PUBLISHED_TYPES: readonly EventType[] = ALL_EVENT_TYPES

/** The event schema of each type. */
export const EVENT_SCHEMAS = Object.fromEntries(
  PUBLISHED_TYPES.map((type) => [type, eventSchema(type, EVENT_DATA[type])]),
) as Record<EventType, TSchema>

/**
 * The schemas both documents name (`components.schemas`): each type's event (`TugasCreatedEvent`)
 * and the deletion's data. The resources' own schemas are the surfaces' components.
 */
export const eventComponents: Record<string, TSchema> = {
  ...Object.fromEntries(
    PUBLISHED_TYPES.map((type) => [`${pascalName(type)}Event`, EVENT_SCHEMAS[type]]),
  ),
  DeletedData,
}

/** What `GET /events` sends, by SSE event name (`event:`): each type's event, and `reset`. */
export const streamEvents: Record<string, TSchema> = { ...EVENT_SCHEMAS, reset: ResetData }

/**
 * The delivery of one type to a subscription's URL: the `POST` of every delivery, with its
 * three Standard Webhooks headers, and the type's event as the body, in the media type a
 * delivery is sent with (`application/cloudevents+json`).
 */
export function deliveryOf(type: EventType): OperationSpec {
  return {
    ...deliveryOperation,
    operationId: `deliver${pascalName(type)}`,
    summary: `A \`${type}\` event, delivered to a subscription's URL (Standard Webhooks).`,
    body: {
      schema: EVENT_SCHEMAS[type],
      description: `The \`${type}\` event, as \`GET /events\` sends it.`,
      mediaType: DELIVERY_CONTENT_TYPE,
    },
  }
}

/** OpenAPI 3.1 `webhooks`: one delivery per type, named by the type. */
export const deliveries = (): Record<string, OperationSpec> =>
  Object.fromEntries(PUBLISHED_TYPES.map((type) => [type, deliveryOf(type)]))
