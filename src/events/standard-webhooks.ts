// Standard Webhooks signing (https://www.standardwebhooks.com): the `webhook-signature` header
// a receiver checks to trust a delivery, the secret it is keyed with, and the headers of a
// delivery (docs/webhooks.md#delivery), which the deliverer and `tugas listen` both send.
import { createHmac, randomBytes } from 'node:crypto'

const PREFIX = 'whsec_'

/** A new subscription's secret: `whsec_` and the base64 of 32 random bytes. */
export function newSecret(): string {
  return PREFIX + randomBytes(32).toString('base64')
}

/**
 * The `webhook-signature` of one delivery: `v1,` and the base64 HMAC-SHA256, keyed with the
 * secret's bytes (the base64 after `whsec_`), of `<id>.<timestamp>.<body>`.
 */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(
    secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret,
    'base64',
  )
  const mac = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')
  return `v1,${mac}`
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
