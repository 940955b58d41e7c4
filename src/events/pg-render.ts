import type { EventResource, EventType } from '../store/events.js'
import { resourceOf } from '../store/events.js'
import { fromText } from '../store/postgres/text.js'
import { cloudEvent } from './cloud-event.js'

/** Each resource's item from its written row as JSON (the outbox's `data`); deletions are `{ id }`. */
export type EventRenderers = Partial<
  Record<EventResource, (row: Record<string, unknown>) => unknown>
>

/** An event as the outbox stores it once numbered: its id given. */
export interface NumberedEvent {
  id: number
  type: EventType
  subject: string
  time: Date
  /** The written row's columns as JSON. */
  data: string
}

/**
 * The CloudEvents JSON of a numbered event, its data rendered as the item read: what the change
 * feed sends and what a webhook delivery posts.
 */
export function renderEvent(
  { id, type, subject, time, data }: NumberedEvent,
  renderers: EventRenderers,
): string {
  const row = JSON.parse(data) as Record<string, unknown>
  const render = type.endsWith('.deleted') ? undefined : renderers[resourceOf(type)]
  return cloudEvent({
    id,
    type,
    subject: fromText(subject),
    time,
    data: render ? render(row) : row,
  })
}
