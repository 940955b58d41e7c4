import {
  type BucketPolicy,
  type MonotonicClock,
  monotonicClock,
  type RateDecision,
  type RateLimiter,
} from './limiter.js'

interface Bucket {
  tokens: number
  /** Clock reading when `tokens` was last computed. */
  at: number
}

// Float tokens: (1 - 0.7) / 1 is 0.30000000000000004, which must still round up to 1 second,
// while 2.0000000000000004 seconds must not become 3.
const EPSILON = 1e-9
const wholeSecondsUp = (seconds: number) => Math.ceil(seconds - EPSILON)

/**
 * What the client is told about a take that left `tokens` in the bucket: the same for every
 * implementation, wherever the bucket lives.
 */
export function decision(policy: BucketPolicy, admitted: boolean, tokens: number): RateDecision {
  const { capacity, refillPerSecond } = policy
  return {
    admitted,
    remaining: Math.floor(tokens),
    retryAfterSeconds: admitted ? 0 : Math.max(1, wholeSecondsUp((1 - tokens) / refillPerSecond)),
    fullInSeconds: Math.max(0, wholeSecondsUp((capacity - tokens) / refillPerSecond)),
  }
}

/**
 * The token bucket of docs/supporting.md#rate-limit-of-get-laporan, one per key, held in process
 * memory: created full on first use, one token per admitted request, refilled by elapsed time on a
 * monotonic clock and capped at the capacity. A bucket that has refilled to full is the same as no
 * bucket, so buckets are dropped once full again: memory holds only keys seen within the last
 * refill period.
 */
export class TokenBucketLimiter implements RateLimiter {
  readonly #buckets = new Map<string, Bucket>()
  readonly #fullRefillMs: number
  #lastSweep: number

  constructor(
    readonly policy: BucketPolicy,
    private readonly clock: MonotonicClock = monotonicClock,
  ) {
    this.#fullRefillMs = (policy.capacity / policy.refillPerSecond) * 1000
    this.#lastSweep = clock()
  }

  /** How many buckets are held now (for tests of the memory bound). */
  get size(): number {
    return this.#buckets.size
  }

  async take(key: string): Promise<RateDecision> {
    const now = this.clock()
    this.#sweep(now)
    let tokens = this.#tokensAt(this.#buckets.get(key), now)
    const admitted = tokens >= 1
    if (admitted) tokens -= 1
    this.#buckets.set(key, { tokens, at: now })
    return decision(this.policy, admitted, tokens)
  }

  #tokensAt(bucket: Bucket | undefined, now: number): number {
    const { capacity, refillPerSecond } = this.policy
    if (bucket === undefined) return capacity
    const elapsedSeconds = Math.max(0, now - bucket.at) / 1000
    return Math.min(capacity, bucket.tokens + elapsedSeconds * refillPerSecond)
  }

  /** At most once per full-refill period, so the cost per request stays constant on average. */
  #sweep(now: number): void {
    if (now - this.#lastSweep < this.#fullRefillMs) return
    this.#lastSweep = now
    for (const [key, bucket] of this.#buckets) {
      if (this.#tokensAt(bucket, now) >= this.policy.capacity) this.#buckets.delete(key)
    }
  }
}
