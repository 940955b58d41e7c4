// Redis for tests: the server this machine runs (TEST_REDIS_URL, by default 127.0.0.1:6379).
// Each limiter under test gets a key prefix of its own, so no test sees another's buckets.
// Where Redis cannot be reached the Redis tests are skipped, loudly; with
// TUGAS_REQUIRE_SERVICES=1 (.ci/run sets it) they fail instead.
import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { skipFor } from './services.js'

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

let problem: Promise<string | undefined> | undefined

/** Why Redis cannot be used for tests, or undefined when it can. */
export function redisProblem(): Promise<string | undefined> {
  problem ??= (async () => {
    const client = new Redis(REDIS_URL, {
      lazyConnect: true,
      // As for PostgreSQL (test/support/postgres.ts): absent refuses at once, busy may take seconds.
      connectTimeout: 15_000,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    })
    client.on('error', () => {})
    try {
      await client.connect()
      await client.ping()
      return undefined
    } catch (error) {
      return `Redis at ${new URL(REDIS_URL).host} cannot be reached (${(error as Error).message})`
    } finally {
      client.disconnect()
    }
  })()
  return problem
}

/** The `skip` option for a suite that needs Redis (see skipFor). */
export async function skipWithoutRedis(): Promise<false | string> {
  return skipFor(await redisProblem(), 'TEST_REDIS_URL')
}

/** A key prefix no other test uses. */
export function freshPrefix(): string {
  return `tugas-test:${process.pid}:${randomBytes(4).toString('hex')}:`
}

/** A client to look at what a test left in Redis. */
export function inspector(): Redis {
  const client = new Redis(REDIS_URL, { maxRetriesPerRequest: 0 })
  client.on('error', () => {})
  return client
}
