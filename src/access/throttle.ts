// Guessing credentials, throttled (docs/supporting.md#guessing-credentials-throttled): failed
// credentials counted per client (throttleKey: an IPv4 address, an IPv6 /64) over a window of
// 60 seconds from the first; past AUTH_FAILURES_MAX, every request from that client that carries
// a credential is 429 until the window has passed, a valid credential included. Counting and
// deciding are one step: a failure's 401 or 429 follows from the count its own increment
// returned, so a burst of concurrent failures gets no more than AUTH_FAILURES_MAX 401s.
import type { Redis } from 'ioredis'
import { type MonotonicClock, monotonicClock } from '../rate-limit/limiter.js'

export const FAILURE_WINDOW_MS = 60_000

export interface AuthThrottle {
  /** Whole seconds until `client` may present a credential again; 0 when it may now. */
  retryAfter(client: string): Promise<number>
  /**
   * Counts a credential from `client` that was unknown, revoked or expired, atomically, and
   * says what that request gets from the count it brought: 0 while within the limit (its 401),
   * else the whole seconds until the window has passed (429).
   */
  failed(client: string): Promise<number>
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000))

const NOT_THROTTLED = Promise.resolve(0)

/**
 * The counts in process memory, at most `capacity` clients at once: past it the oldest
 * window is forgotten first, so that an attacker rotating addresses cannot grow it for ever.
 */
export class MemoryAuthThrottle implements AuthThrottle {
  /** In the order their windows began. */
  readonly #windows = new Map<string, { failures: number; endsAt: number }>()

  constructor(
    private readonly max: number,
    private readonly clock: MonotonicClock = monotonicClock,
    private readonly capacity = 100_000,
  ) {}

  #current(address: string, now: number) {
    const window = this.#windows.get(address)
    if (window !== undefined && window.endsAt <= now) {
      this.#windows.delete(address)
      return undefined
    }
    return window
  }

  retryAfter(client: string): Promise<number> {
    // Every credentialed request asks: one promise, already settled, serves every answer of 0.
    if (this.#windows.size === 0) return NOT_THROTTLED
    const now = this.clock()
    const window = this.#current(client, now)
    if (window === undefined || window.failures < this.max) return NOT_THROTTLED
    return Promise.resolve(seconds(window.endsAt - now))
  }

  async failed(client: string): Promise<number> {
    const now = this.clock()
    const window = this.#current(client, now) ?? this.#open(client, now)
    window.failures += 1
    return window.failures > this.max ? seconds(window.endsAt - now) : 0
  }

  #open(client: string, now: number) {
    const window = { failures: 0, endsAt: now + FAILURE_WINDOW_MS }
    this.#windows.set(client, window)
    for (const oldest of this.#windows.keys()) {
      if (this.#windows.size <= this.capacity) break
      this.#windows.delete(oldest)
    }
    return window
  }
}

/**
 * Counts the failure and answers the count with the window's milliseconds left, in one round
 * trip; the window starts with the first failure (on the Redis server's clock). A key left
 * without an expiry is given one.
 */
const FAILED = `
local failures = redis.call('INCR', KEYS[1])
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
end
return { failures, left }
`

/** The client's failures and the window's milliseconds left, in one round trip. */
const STATE = `
return { tonumber(redis.call('GET', KEYS[1]) or '0'), redis.call('PTTL', KEYS[1]) }
`

type ThrottleCommands = Redis & {
  authFailed(key: string, windowMs: number): Promise<[number, number]>
  authState(key: string): Promise<[number, number]>
}

const STALL_MS = 500

/** The counts in Redis, shared by every process (one key per client, gone with its window). */
export class RedisAuthThrottle implements AuthThrottle {
  readonly #redis: ThrottleCommands

  constructor(
    redis: Redis,
    private readonly max: number,
    private readonly prefix: string,
  ) {
    if (!('authFailed' in redis)) {
      redis.defineCommand('authFailed', { numberOfKeys: 1, lua: FAILED })
      redis.defineCommand('authState', { numberOfKeys: 1, lua: STATE })
    }
    this.#redis = redis as ThrottleCommands
  }

  // While Redis cannot be reached the throttle lets requests through uncounted: credentials are
  // still checked, and a credentialed request needs Redis no more than it did before
  // (docs/decisions.md#guessing-credentials-throttled).
  // A Redis that stops answering is waited for at most STALL_MS, not its command timeout: the
  // request still has its own work to do (`/laporan` its bucket) within its time.
  async retryAfter(client: string): Promise<number> {
    const state = await withinStall(this.#redis.authState(this.prefix + client))
    if (state === undefined) return 0
    const [failures, leftMs] = state
    return failures >= this.max && leftMs > 0 ? seconds(leftMs) : 0
  }

  async failed(client: string): Promise<number> {
    const counted = await withinStall(
      this.#redis.authFailed(this.prefix + client, FAILURE_WINDOW_MS),
    )
    if (counted === undefined) return 0
    const [failures, leftMs] = counted
    return failures > this.max ? seconds(leftMs) : 0
  }
}

/** What Redis answered within STALL_MS; undefined when it failed or had not answered by then. */
async function withinStall<T>(command: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined
  const stalled = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), STALL_MS)
  })
  try {
    return await Promise.race([command, stalled])
  } catch {
    return undefined
  } finally {
    clearTimeout(timer)
  }
}
