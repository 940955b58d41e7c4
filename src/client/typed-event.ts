// The events of the change feed and of a webhook delivery as TypeScript types, for the typed
// client's `events()` and `verifyWebhook()` (docs/client.md#the-change-feed-events): each
// event type with its own `data`, derived from the schemas the service answers with, so they
// cannot drift apart. Types only: nothing here runs.
import type { Static } from 'typebox'
import type { EventType } from '../store/events.js'
import type { EVENT_DATA } from '../surfaces/events/event-types.js'
import type { Event, ResetData } from '../surfaces/events/schemas.js'

/** The `data` of an event of type `T` (docs/events.md#the-events). */
export type EventData<T extends EventType> = Static<(typeof EVENT_DATA)[T]>

/** One event of type `T`: the CloudEvents envelope, its `type` and its `data` typed. */
export type TugasEventOf<T extends EventType> = Omit<Static<typeof Event>, 'type' | 'data'> & {
  type: T
  data: EventData<T>
}

/** Any event of the feed or of a delivery, told apart by `type`. */
export type TugasEvent = { [T in EventType]: TugasEventOf<T> }[EventType]

/**
 * The feed could not resume where it was asked to: the events before `data.oldest` are no
 * longer kept (or the id was above any given). Read the state again; every kept event follows.
 */
export interface FeedReset {
  type: 'reset'
  /** The oldest kept id minus one. */
  id: string
  data: Static<typeof ResetData>
}

export type { EventType }
