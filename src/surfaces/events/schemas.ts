import { type TSchema, Type } from 'typebox'
import { ALL_EVENT_TYPES, EVENT_SOURCES, type EventType, resourceOf } from '../../store/events.js'

const eventId = Type.String({
  pattern: '^[0-9]+$',
  description: 'The position in the one sequence.',
})
const subject = Type.String({
  description: 'The resource id; for a comment `<tugas id>/komentar/<id>`.',
})
const time = Type.String({
  format: 'date-time',
  description: 'When the change took effect (UTC).',
})
const specversion = Type.Literal('1.0')
const datacontenttype = Type.Literal('application/json')

/** One event of the change feed: CloudEvents 1.0, structured (docs/events.md#the-events). */
export const Event = Type.Object(
  {
    specversion,
    id: eventId,
    source: Type.Enum([...new Set(Object.values(EVENT_SOURCES))], {
      type: 'string',
      description: "The surface's root path.",
    }),
    type: Type.Enum([...ALL_EVENT_TYPES], { type: 'string' }),
    subject,
    time,
    datacontenttype,
    data: Type.Unknown({
      description:
        "The resource as its surface's item read returns it after the change (a user never " +
        'with a password), or `{ "id": <id> }` for a deletion.',
    }),
  },
  { description: 'One event: sent as the `data:` line of its Server-Sent Event.' },
)

/**
 * The event of one type, `data` being that type's: what `GET /events` sends as the `data:` line
 * of an event named `type`, and what a webhook delivery of it carries as its body. The same
 * envelope as `Event`, its `source` and `type` fixed.
 */
export function eventSchema(type: EventType, data: TSchema): TSchema {
  return Type.Object(
    {
      specversion,
      id: eventId,
      source: Type.Literal(EVENT_SOURCES[resourceOf(type)], {
        description: "The surface's root path.",
      }),
      type: Type.Literal(type),
      subject,
      time,
      datacontenttype,
      data,
    },
    { description: `A \`${type}\` event (CloudEvents 1.0, structured).` },
  )
}

/** The first event of a stream resumed from an id whose successors are no longer all kept. */
export const ResetData = Type.Object({
  oldest: Type.String({ pattern: '^[0-9]+$', description: 'The oldest id still kept.' }),
})
