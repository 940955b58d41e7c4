import type { FastifyReply } from 'fastify'
import type { BucketPolicy, RateDecision } from './limiter.js'

/**
 * The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers, structured-field
 * lists of one item named after the policy):
 * - `RateLimit-Policy: "<name>";q=<capacity>;w=<seconds to refill an empty bucket>`
 * - `RateLimit: "<name>";r=<whole tokens left>;t=<seconds until the bucket is full again>`
 */
export function rateLimitHeaders(
  name: string,
  policy: BucketPolicy,
  decision: RateDecision,
): Record<string, string> {
  const window = Math.ceil(policy.capacity / policy.refillPerSecond)
  return {
    'ratelimit-policy': `"${name}";q=${policy.capacity};w=${window}`,
    ratelimit: `"${name}";r=${decision.remaining};t=${decision.fullInSeconds}`,
  }
}

/** Sets the RateLimit fields, and `Retry-After` when the request was refused. */
export function sendRateLimitHeaders(
  reply: FastifyReply,
  name: string,
  policy: BucketPolicy,
  decision: RateDecision,
): FastifyReply {
  reply.headers(rateLimitHeaders(name, policy, decision))
  if (!decision.admitted) reply.header('retry-after', String(decision.retryAfterSeconds))
  return reply
}
