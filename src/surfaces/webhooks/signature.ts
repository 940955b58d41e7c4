// Standard Webhooks signing (https://www.standardwebhooks.com): the `webhook-signature` header
// a receiver checks to trust a delivery, and the secret it is keyed with.
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
