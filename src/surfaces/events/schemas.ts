import { Type } from 'typebox'
import { ALL_EVENT_TYPES, EVENT_SOURCES } from '../../store/events.js'

/** One event of the change feed: CloudEvents 1.0, structured (docs/events.md#the-events). */
export const Event = Type.Object(
  {
    specversion: Type.Literal('1.0'),
    id: Type.String({ pattern: '^[0-9]+$', description: 'The position in the one sequence.' }),
    source: Type.Enum([...new Set(Object.values(EVENT_SOURCES))], {
      type: 'string',
      description: "The surface's root path.",
    }),
    type: Type.Enum([...ALL_EVENT_TYPES], { type: 'string' }),
    subject: Type.String({
      description: 'The resource id; for a comment `<tugas id>/komentar/<id>`.',
    }),
    time: Type.String({ format: 'date-time', description: 'When the change took effect (UTC).' }),
    datacontenttype: Type.Literal('application/json'),
    data: Type.Unknown({
      description:
        "The resource as its surface's item read returns it after the change (a user never " +
        'with a password), or `{ "id": <id> }` for a deletion.',
    }),
  },
  { description: 'One event: sent as the `data:` line of its Server-Sent Event.' },
)

/** The first event of a stream resumed from an id whose successors are no longer all kept. */
export const ResetData = Type.Object({
  oldest: Type.String({ pattern: '^[0-9]+$', description: 'The oldest id still kept.' }),
})
