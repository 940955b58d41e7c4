import { EVENT_SOURCES, type EventType, resourceOf } from '../store/events.js'

/** What the log knows of one event once it has its id and time. */
export interface EventParts {
  id: number
  type: EventType
  subject: string
  time: Date
  data: unknown
}

/**
 * The event in the CloudEvents 1.0 structured form, on one line: what every stream sends, and
 * sends again on replay (the same parts always give the same text).
 */
export function cloudEvent({ id, type, subject, time, data }: EventParts): string {
  return JSON.stringify({
    specversion: '1.0',
    id: String(id),
    source: EVENT_SOURCES[resourceOf(type)],
    type,
    subject,
    time: time.toISOString(),
    datacontenttype: 'application/json',
    data,
  })
}
