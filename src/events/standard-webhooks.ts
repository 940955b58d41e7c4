// Standard Webhooks signing (https://www.standardwebhooks.com): the `webhook-signature` header
// a receiver checks to trust a delivery, the secret it is keyed with, the headers of a
// delivery (docs/webhooks.md#delivery), which the deliverer and `tugas listen` both send, and
// the receiver's check of them (`verifyWebhook`, exported by the typed client).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

const PREFIX = 'whsec_'

/** A new subscription's secret: `whsec_` and the base64 of 32 random bytes. */
export function newSecret(): string {
  return PREFIX + randomBytes(32).toString('base64')
}

/** The HMAC-SHA256, keyed with the secret's bytes (the base64 after `whsec_`), of a delivery. */
function mac(secret: string, id: string, timestamp: number | string, body: string | Uint8Array) {
  const key = Buffer.from(
    secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret,
    'base64',
  )
  return createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest()
}

/**
 * The `webhook-signature` of one delivery: `v1,` and the base64 HMAC-SHA256, keyed with the
 * secret's bytes (the base64 after `whsec_`), of `<id>.<timestamp>.<body>`.
 */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${mac(secret, id, timestamp, body).toString('base64')}`
}

/** The media type of a delivery: a CloudEvent in structured mode (docs/decisions.md). */
export const DELIVERY_CONTENT_TYPE = 'application/cloudevents+json'

/** The headers of one delivery of the event `id` whose body is `body`, signed with `secret`. */
export function deliveryHeaders(
  secret: string,
  id: string,
  body: string,
  timestamp = Math.floor(Date.now() / 1000),
): Record<string, string> {
  return {
    'content-type': DELIVERY_CONTENT_TYPE,
    'user-agent': 'tugas-webhooks',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature(secret, id, timestamp, body),
  }
}

/** How far a delivery's timestamp may be from now, either way, for it to be trusted. */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60

/** Why `verifyWebhook` refused a delivery: `reason` tells the cases apart. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError'
  constructor(
    readonly reason: 'missing-headers' | 'stale-timestamp' | 'bad-signature' | 'bad-body',
    message: string,
  ) {
    super(message)
  }
}

/**
 * A delivery's headers as any server gives them: a fetch `Headers`, or an object of names to
 * values (Node's `IncomingHttpHeaders`, lower-case names, arrays for repeated headers).
 */
export type WebhookHeaders =
  | { get(name: string): string | null }
  | Record<string, string | readonly string[] | undefined>

function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof headers.get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined
  }
  const record = headers as Record<string, string | readonly string[] | undefined>
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name)
  const value = key === undefined ? undefined : record[key]
  return typeof value === 'string' ? value : value?.join(', ')
}

/**
 * The event of a delivery (docs/client.md#verifying-a-delivery-verifywebhook), once its
 * `webhook-signature` is valid for `secret` over `<webhook-id>.<webhook-timestamp>.<rawBody>`
 * and its `webhook-timestamp` is within five minutes of `now`; a WebhookVerificationError
 * otherwise. `rawBody` is the body exactly as received: parsed and serialized again, it would
 * not be what was signed. Every `v1,` signature of the header is tried (a secret being
 * rotated sends several), each compared in constant time. What the `standardwebhooks` package
 * accepts, this accepts.
 */
export function verifyWebhook<Event = unknown>(
  secret: string,
  headers: WebhookHeaders,
  rawBody: string | Uint8Array,
  now: Date = new Date(),
): Event {
  const id = headerOf(headers, 'webhook-id')
  const timestamp = headerOf(headers, 'webhook-timestamp')
  const signatures = headerOf(headers, 'webhook-signature')
  const missing = [
    id === undefined && 'webhook-id',
    timestamp === undefined && 'webhook-timestamp',
    signatures === undefined && 'webhook-signature',
  ].filter((name) => name !== false)
  if (id === undefined || timestamp === undefined || signatures === undefined) {
    throw new WebhookVerificationError('missing-headers', `missing header: ${missing.join(', ')}`)
  }
  const seconds = /^[0-9]{1,15}$/.test(timestamp) ? Number(timestamp) : Number.NaN
  if (!(Math.abs(Math.floor(now.getTime() / 1000) - seconds) <= TIMESTAMP_TOLERANCE_SECONDS)) {
    throw new WebhookVerificationError(
      'stale-timestamp',
      'webhook-timestamp is not within five minutes of now',
    )
  }
  // Signed as a number, as the standardwebhooks package reads it: `0170...` is `170...`.
  const expected = mac(secret, id, seconds, rawBody)
  const valid = signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',', 2)
    if (version !== 'v1' || value === undefined) return false
    const given = Buffer.from(value, 'base64')
    return given.length === expected.length && timingSafeEqual(given, expected)
  })
  if (!valid) {
    throw new WebhookVerificationError('bad-signature', 'no webhook-signature matches the body')
  }
  try {
    return JSON.parse(Buffer.from(rawBody).toString('utf8')) as Event
  } catch {
    throw new WebhookVerificationError('bad-body', 'the body is not JSON')
  }
}
