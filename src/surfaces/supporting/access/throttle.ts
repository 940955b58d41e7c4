// Guessing credentials, throttled (docs/supporting.md#guessing-credentials-throttled): failed
// credentials counted per client address over a window of 60 seconds from the first; past
// AUTH_FAILURES_MAX, every request from that address that carries a credential is 429 until
// the window has passed, a valid credential included.
import type { Redis } from 'ioredis'
import { type MonotonicClock, monotonicClock } from '../../../rate-limit/limiter.js'

export const FAILURE_WINDOW_MS = 60_000

export interface AuthThrottle {
  /**
   * Whole seconds until `address` may present a credential again; 0 when it may now. A number
   * at once where nothing need be waited for (memory): every credentialed request asks.
   */
  retryAfter(address: string): number | Promise<number>
  /** Counts a credential from `address` that was unknown, revoked or expired. */
  failed(address: string): Promise<void>
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000))

/**
 * The counts in process memory, at most `capacity` addresses at once: past it the oldest
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

  retryAfter(address: string): number {
    if (this.#windows.size === 0) return 0
    const now = this.clock()
    const window = this.#current(address, now)
    return window !== undefined && window.failures >= this.max ? seconds(window.endsAt - now) : 0
  }

  async failed(address: string): Promise<void> {
    const now = this.clock()
    const window = this.#current(address, now)
    if (window !== undefined) {
      window.failures += 1
      return
    }
    this.#windows.set(address, { failures: 1, endsAt: now + FAILURE_WINDOW_MS })
    for (const oldest of this.#windows.keys()) {
      if (this.#windows.size <= this.capacity) break
      this.#windows.delete(oldest)
    }
  }
}

/** Counts the failure; the window starts with the first (on the Redis server's clock). */
const FAILED = `
local failures = redis.call('INCR', KEYS[1])
if failures == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return failures
`

/** The address's failures and the window's milliseconds left, in one round trip. */
const STATE = `
return { tonumber(redis.call('GET', KEYS[1]) or '0'), redis.call('PTTL', KEYS[1]) }
`

type ThrottleCommands = Redis & {
  authFailed(key: string, windowMs: number): Promise<number>
  authState(key: string): Promise<[number, number]>
}

const STALL_MS = 500

/** The counts in Redis, shared by every process (one key per address, gone with its window). */
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
  async retryAfter(address: string): Promise<number> {
    let timer: NodeJS.Timeout | undefined
    const stalled = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), STALL_MS)
    })
    try {
      const state = await Promise.race([this.#redis.authState(this.prefix + address), stalled])
      if (state === undefined) return 0
      const [failures, leftMs] = state
      return failures >= this.max && leftMs > 0 ? seconds(leftMs) : 0
    } catch {
      return 0
    } finally {
      clearTimeout(timer)
    }
  }

  async failed(address: string): Promise<void> {
    await this.#redis.authFailed(this.prefix + address, FAILURE_WINDOW_MS).catch(() => {})
  }
}
