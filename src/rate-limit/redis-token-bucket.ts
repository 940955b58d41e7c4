import type { Redis } from 'ioredis'
import { onRedis } from '../redis.js'
import type { BucketPolicy, RateDecision, RateLimiter } from './limiter.js'
import { decision } from './token-bucket.js'

/**
 * Refill, admit and spend in one step on the Redis server, on its clock (`TIME`), never a
 * process's: every process sees one bucket per key. A bucket is a hash of `tokens` and `at`
 * (milliseconds); it expires when it would be full again, since a full bucket is the same as
 * none, so Redis holds only keys seen within the last refill period.
 * Returns `{admitted, tokens left}`; tokens travel as text, so fractions survive.
 */
const TAKE = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local capacity = tonumber(ARGV[1])
local refill = tonumber(ARGV[2])
local held = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = capacity
if held[1] then
  local elapsed = math.max(0, now - tonumber(held[2])) / 1000
  tokens = math.min(capacity, tonumber(held[1]) + elapsed * refill)
end
local admitted = 0
if tokens >= 1 then
  tokens = tokens - 1
  admitted = 1
end
local untilFull = math.ceil((capacity - tokens) / refill * 1000)
if untilFull > 0 then
  local text = string.format('%.17g', tokens)
  redis.call('HSET', KEYS[1], 'tokens', text, 'at', string.format('%.17g', now))
  redis.call('PEXPIRE', KEYS[1], untilFull)
else
  redis.call('DEL', KEYS[1])
end
return { admitted, string.format('%.17g', tokens) }
`

/** The client with the script defined as a command. */
type RedisWithTake = Redis & {
  takeToken(key: string, capacity: number, refill: number): Promise<[number, string]>
}

export interface RedisLimiterOptions {
  /** A client of redisClient(); its owner connects and closes it. */
  redis: Redis
  /** Prefix of every bucket key, so several services (or tests) can share one Redis. */
  prefix: string
}

/**
 * The token bucket of docs/supporting.md#rate-limit-of-get-laporan in Redis (`REDIS_URL`), shared
 * by every process. While Redis cannot be reached, `take` fails at once with
 * ServiceUnavailableError (503): never unlimited, never a request left waiting for a reconnect.
 */
export class RedisTokenBucketLimiter implements RateLimiter {
  readonly #redis: RedisWithTake
  readonly #prefix: string

  constructor(
    readonly policy: BucketPolicy,
    options: RedisLimiterOptions,
  ) {
    this.#prefix = options.prefix
    options.redis.defineCommand('takeToken', { numberOfKeys: 1, lua: TAKE })
    this.#redis = options.redis as RedisWithTake
  }

  async take(key: string): Promise<RateDecision> {
    const { capacity, refillPerSecond } = this.policy
    const [admitted, tokens] = await onRedis(() =>
      this.#redis.takeToken(this.#prefix + key, capacity, refillPerSecond),
    )
    return decision(this.policy, admitted === 1, Number(tokens))
  }
}
