import { compareEventIds, EVENT_ID, eventIdValue } from '../../events/event-id.js'
import { bodyFields } from '../../http/e2/fields.js'
import { validationError } from '../../http/e2/shape.js'
import { selectedTypes } from '../../store/events.js'
import { type Lookup, resolveDestination } from './address.js'
import { TYPE_NAMES } from './schemas.js'
import type { ReplayRange } from './store.js'

/** The longest URL a subscription takes. */
export const URL_MAX = 2048

export const webhookViolations = {
  url: `url is required: an http or https URL of at most ${URL_MAX} characters`,
  private:
    'url must not be or resolve to a loopback, private, link-local, unique-local or unspecified address',
  unresolved: 'url host does not resolve to any address',
  timeout: 'url host did not resolve in time',
  types: `types is required: a non-empty array of event types or <resource>.*: ${TYPE_NAMES.join(', ')}`,
} as const

/** An http or https URL, as the URL parser writes it; undefined for anything else. */
function webhookUrl(value: unknown): URL | undefined {
  if (typeof value !== 'string' || value.length > URL_MAX) return undefined
  const url = URL.canParse(value) ? new URL(value) : undefined
  return url && (url.protocol === 'http:' || url.protocol === 'https:') ? url : undefined
}

/**
 * `url` an http or https URL whose host is not and does not resolve to a private address
 * (unless `allowPrivate`), looked up as a delivery does, `types` a non-empty array of types or
 * `<resource>.*`. Every violation is reported at once: 400 `VALIDATION_ERROR`.
 */
export async function checkNewWebhook(
  body: unknown,
  allowPrivate: boolean,
  lookup: Lookup,
): Promise<{ url: string; types: string[] }> {
  const read = bodyFields(body)
  const violations: Record<string, string> = {}
  const url = webhookUrl(read('url'))
  if (url === undefined) violations.url = webhookViolations.url
  else {
    const destination = await resolveDestination(url.hostname, allowPrivate, lookup)
    if ('refused' in destination) violations.url = webhookViolations[destination.refused]
  }
  const types = read('types')
  const valid =
    Array.isArray(types) &&
    types.length > 0 &&
    types.every((name) => typeof name === 'string') &&
    selectedTypes(types) !== undefined
  if (!valid) violations.types = webhookViolations.types
  if (Object.keys(violations).length > 0) throw validationError(violations)
  return { url: (url as URL).href, types: [...new Set(types as string[])] }
}

export const replayViolations = {
  after:
    'after is required: an event id, a string of decimal digits ("0": from the oldest event kept)',
  until: 'until must be an event id, a string of decimal digits, when sent',
  belowAfter: 'until must not be below after',
} as const

const isEventId = (value: unknown): value is string =>
  typeof value === 'string' && EVENT_ID.test(value)

/**
 * A replay's range (docs/webhooks.md#replay): `after` an event id (`"0"` for every event kept),
 * `until`, when sent, one not below it. Ids as `GET /events` writes them, strings of decimal
 * digits; one past every id a store gives names none. Every violation at once: 400
 * `VALIDATION_ERROR`.
 */
export function checkReplay(body: unknown): ReplayRange {
  const read = bodyFields(body)
  const after = read('after')
  const until = read('until')
  const violations: Record<string, string> = {}
  if (!isEventId(after)) violations.after = replayViolations.after
  if (until !== undefined && !isEventId(until)) violations.until = replayViolations.until
  else if (isEventId(after) && isEventId(until) && compareEventIds(until, after) < 0) {
    violations.until = replayViolations.belowAfter
  }
  if (Object.keys(violations).length > 0) throw validationError(violations)
  return {
    after: eventIdValue(after as string),
    until: until === undefined ? undefined : eventIdValue(until as string),
  }
}
