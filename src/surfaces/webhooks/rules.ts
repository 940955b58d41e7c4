import { bodyFields } from '../../http/e2/fields.js'
import { validationError } from '../../http/e2/shape.js'
import { selectedTypes } from '../../store/events.js'
import { type Lookup, resolveDestination } from './address.js'
import { TYPE_NAMES } from './schemas.js'

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
