/** A token bucket's settings: how many requests in a burst, and how fast tokens come back. */
export interface BucketPolicy {
  capacity: number
  refillPerSecond: number
}

/** The limiter's verdict on one request, with what the client needs to pace itself. */
export interface RateDecision {
  admitted: boolean
  /** Whole tokens left after this request. */
  remaining: number
  /** Seconds until a refused request would be admitted: ceil((1 - tokens) / refill). */
  retryAfterSeconds: number
  /** Seconds until the bucket is full again. */
  fullInSeconds: number
}

/**
 * Rate limiting per key. The in-memory token bucket is the default; a shared implementation
 * (Redis) sits behind the same interface, which is why `take` is asynchronous.
 */
export interface RateLimiter {
  readonly policy: BucketPolicy
  /** Spends one token of `key`'s bucket when at least one is available. */
  take(key: string): Promise<RateDecision>
}

/** Milliseconds from an arbitrary origin, never going backwards (not the wall clock). */
export type MonotonicClock = () => number

export const monotonicClock: MonotonicClock = () => performance.now()
