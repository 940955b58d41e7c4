// An event id as clients write it (docs/events.md#the-stream, docs/webhooks.md#replay): the
// decimal digits `GET /events` gives ids in (`id:`, the event's `id`), taken back as `after`,
// `Last-Event-ID` and a replay's range.
import { MAX_ID } from '../http/path-id.js'

/** Decimal digits and nothing else; `0` and leading zeros included. */
export const EVENT_ID = /^[0-9]+$/

const significant = (digits: string) => digits.replace(/^0+/, '')

/**
 * Below zero when the id `a` is below `b`, above when above, 0 when the same: compared as
 * digits (EVENT_ID), exactly at any length, without reading a long one as a number.
 */
export function compareEventIds(a: string, b: string): number {
  const [x, y] = [significant(a), significant(b)]
  if (x.length !== y.length) return x.length - y.length
  return x < y ? -1 : x > y ? 1 : 0
}

/** The id `digits` (EVENT_ID) names, at most MAX_ID: one past it is past every id given. */
export function eventIdValue(digits: string): number {
  const value = significant(digits)
  return value.length > String(MAX_ID).length ? MAX_ID : Math.min(Number(value), MAX_ID)
}
