// The RateLimiter contract (Part 2, Limits; decisions.md 5 and 7), on every implementation:
// the in-memory bucket on a clock the test moves, the Redis bucket on Redis's own clock (the
// test waits). Policies refill fast, so waiting costs little.
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import type { Redis } from 'ioredis'
import type { BucketPolicy, RateDecision, RateLimiter } from '../../src/rate-limit/limiter.js'
import { RedisTokenBucketLimiter } from '../../src/rate-limit/redis-token-bucket.js'
import { TokenBucketLimiter } from '../../src/rate-limit/token-bucket.js'
import { connectRedis, redisClient } from '../../src/redis.js'
import { freshPrefix, inspector, REDIS_URL, skipWithoutRedis } from '../support/redis.js'

interface Opened {
  limiter: RateLimiter
  /** Another limiter on the same buckets (another process), where the kind has one. */
  twin?: RateLimiter
  /** Lets `ms` milliseconds pass for the buckets. */
  pass(ms: number): Promise<void>
  /** How many buckets are held, for `keys` (a full bucket need not be held at all). */
  held(keys: string[]): Promise<number>
}

interface Kind {
  name: string
  skip: () => Promise<false | string>
  open(policy: BucketPolicy): Promise<Opened>
}

const memory: Kind = {
  name: 'memory',
  skip: async () => false,
  async open(policy) {
    let now = 0
    const limiter = new TokenBucketLimiter(policy, () => now)
    return {
      limiter,
      async pass(ms) {
        now += ms
      },
      // The memory bucket only tells how many it holds; the tests ask about every key in use.
      held: async () => limiter.size,
    }
  },
}

const opened: Redis[] = []
const redisInspector = { client: undefined as ReturnType<typeof inspector> | undefined }

/** Closes every Redis connection the suite opened. */
async function closeRedis(): Promise<void> {
  for (const client of opened.splice(0)) client.disconnect()
  redisInspector.client?.disconnect()
}

const redis: Kind = {
  name: 'redis',
  skip: skipWithoutRedis,
  async open(policy) {
    const prefix = freshPrefix()
    const make = async () => {
      // Each on a connection of its own, as two processes would be.
      const client = redisClient(REDIS_URL)
      opened.push(client)
      await connectRedis(client)
      return new RedisTokenBucketLimiter(policy, { redis: client, prefix })
    }
    const limiter = await make()
    const twin = await make()
    redisInspector.client ??= inspector()
    const client = redisInspector.client
    return {
      limiter,
      twin,
      pass: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      held: async (keys) => client.exists(...keys.map((key) => prefix + key)),
    }
  },
}

async function burst(limiter: RateLimiter, count: number, key = 'key'): Promise<RateDecision[]> {
  const decisions: RateDecision[] = []
  for (let i = 0; i < count; i++) decisions.push(await limiter.take(key))
  return decisions
}

const admittedOf = (decisions: RateDecision[]) => decisions.map((d) => d.admitted)

for (const kind of [memory, redis]) {
  describe(`RateLimiter contract (${kind.name})`, { skip: await kind.skip() }, () => {
    after(closeRedis)

    test('a new key starts full: capacity admitted at once, then refused, remaining counting down', async () => {
      const { limiter } = await kind.open({ capacity: 3, refillPerSecond: 1 })
      const decisions = await burst(limiter, 5)
      assert.deepEqual(admittedOf(decisions), [true, true, true, false, false])
      assert.deepEqual(
        decisions.map((d) => d.remaining),
        [2, 1, 0, 0, 0],
      )
      assert.deepEqual(
        decisions.map((d) => d.retryAfterSeconds),
        [0, 0, 0, 1, 1],
      )
      assert.deepEqual(
        decisions.map((d) => d.fullInSeconds),
        [1, 2, 3, 3, 3],
      )
    })

    test('Retry-After is the time to the next whole token, rounded up', async () => {
      const { limiter } = await kind.open({ capacity: 2, refillPerSecond: 0.25 })
      const decisions = await burst(limiter, 3)
      assert.deepEqual(admittedOf(decisions), [true, true, false])
      assert.equal(decisions[2]?.retryAfterSeconds, 4)
      assert.equal(decisions[2]?.fullInSeconds, 8)
    })

    test('tokens come back with time, one per 1/refill seconds', async () => {
      // Slow enough that a loaded machine's delays (up to 250 ms) change no count on Redis's clock.
      const { limiter, pass } = await kind.open({ capacity: 2, refillPerSecond: 2 })
      assert.deepEqual(admittedOf(await burst(limiter, 3)), [true, true, false])
      await pass(750)
      assert.deepEqual(admittedOf(await burst(limiter, 2)), [true, false])
    })

    test('a bucket never holds more than its capacity, however long it waits', async () => {
      // A token every 500 ms: the burst below cannot earn one back while it runs.
      const { limiter, pass } = await kind.open({ capacity: 3, refillPerSecond: 2 })
      await limiter.take('key')
      await pass(1500)
      assert.deepEqual(admittedOf(await burst(limiter, 5)), [true, true, true, false, false])
    })

    test('one key does not affect another', async () => {
      const { limiter } = await kind.open({ capacity: 2, refillPerSecond: 1 })
      assert.deepEqual(admittedOf(await burst(limiter, 3, 'a')), [true, true, false])
      assert.deepEqual(admittedOf(await burst(limiter, 3, 'b')), [true, true, false])
    })

    test('twenty takes at once on one key admit exactly the capacity', async () => {
      const { limiter, twin } = await kind.open({ capacity: 3, refillPerSecond: 0.1 })
      const decisions = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 1 && twin ? twin : limiter).take('hot')),
      )
      assert.equal(decisions.filter((d) => d.admitted).length, 3)
    })

    test('a bucket is dropped once it would be full again', async () => {
      const { limiter, pass, held } = await kind.open({ capacity: 2, refillPerSecond: 10 })
      await limiter.take('brief')
      assert.equal(await held(['brief']), 1)
      // 'brief' is full again after 100 ms, 'other' 100 ms after each take. Memory drops full
      // buckets when a later take sweeps; Redis expires the keys.
      await pass(250)
      await limiter.take('other')
      await pass(250)
      await limiter.take('other')
      assert.equal(await held(['brief', 'other']), 1)
    })
  })
}
