import type { Redis } from 'ioredis'

/**
 * How many requests each API version has answered, so per-version traffic can be watched
 * (docs/versioning.md#deprecation-lifecycle). The request log line of a versioned request carries
 * the count after it.
 */
export interface VersionCounts {
  /** Counts one more request for `version`; the new total, or undefined if it cannot be counted now. */
  add(version: string): Promise<number | undefined>
}

/** Counts of this process since it started. */
export class MemoryVersionCounts implements VersionCounts {
  readonly #counts = new Map<string, number>()

  async add(version: string): Promise<number> {
    const count = (this.#counts.get(version) ?? 0) + 1
    this.#counts.set(version, count)
    return count
  }
}

/**
 * Counts in one Redis hash, summed over every process and machine that shares it, and kept
 * across restarts. A count Redis cannot take now is left out of the line: counting never fails
 * or holds a request.
 */
export class RedisVersionCounts implements VersionCounts {
  constructor(
    private readonly redis: Redis,
    private readonly key: string,
  ) {}

  async add(version: string): Promise<number | undefined> {
    try {
      return await this.redis.hincrby(this.key, version, 1)
    } catch {
      return undefined
    }
  }
}
