import type { Config } from './config.js'
import type { RateLimiter } from './rate-limit/limiter.js'
import { TokenBucketLimiter } from './rate-limit/token-bucket.js'
import type { Seed } from './seed.js'
import { Database } from './store/postgres/database.js'
import { lockStartUp, migrate } from './store/postgres/migrate.js'
import { ServiceUnavailableError } from './store/unavailable.js'
import { createPostgresStores, loadSeed, type Stores, seededMemoryStores } from './stores.js'

/** What the app serves from: every surface's stores and the `/laporan` limiter. */
export interface Infrastructure {
  stores: Stores
  limiter: RateLimiter
  /** Whether each configured backing service answers now (`GET /health/ready`). */
  checks(): Promise<Record<string, boolean>>
  /** Releases what they hold (pools, connections); the app calls it when it closes. */
  close(): Promise<void>
  /** What start-up did with the seed: loaded it, or kept the data a database already held. */
  seed: 'loaded' | 'kept-existing-data'
}

/** A backing service the configuration names cannot be used: start-up is refused. */
export class StartUpError extends Error {
  override name = 'StartUpError'
}

/** The stores and the limiter the configuration asks for, holding `seed`. */
export async function createInfrastructure(
  config: Config,
  seed: Seed,
  now: () => Date = () => new Date(),
): Promise<Infrastructure> {
  const limiter = new TokenBucketLimiter({
    capacity: config.rateLimitCapacity,
    refillPerSecond: config.rateLimitRefillPerSecond,
  })
  if (config.databaseUrl === undefined) {
    return {
      stores: await seededMemoryStores(seed, now),
      limiter,
      checks: async () => ({}),
      close: async () => {},
      seed: 'loaded',
    }
  }
  const database = new Database({
    url: config.databaseUrl,
    poolSize: config.databasePoolSize,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
  })
  try {
    await migrate(database)
    const loaded = await seedOnce(database, seed, now)
    return {
      stores: createPostgresStores(database, now),
      limiter,
      checks: async () => ({ postgres: await database.ping() }),
      close: () => database.close(),
      seed: loaded ? 'loaded' : 'kept-existing-data',
    }
  } catch (error) {
    await database.close()
    throw new StartUpError(`DATABASE_URL: ${startUpProblem(config.databaseUrl, error)}`)
  }
}

/**
 * Loads the seed into a database that has never been seeded, in one transaction under the
 * start-up lock (several processes may start at once). True when it loaded it.
 */
async function seedOnce(database: Database, seed: Seed, now: () => Date): Promise<boolean> {
  return database.transaction(async (client) => {
    await lockStartUp(client)
    const { rows } = await client.query('SELECT 1 FROM seeded')
    if (rows.length > 0) return false
    await loadSeed(createPostgresStores(client, now), seed)
    await client.query('INSERT INTO seeded (at) VALUES ($1)', [now()])
    return true
  })
}

/** One line for the operator: where, and what went wrong; never the password. */
function startUpProblem(url: string, error: unknown): string {
  const { hostname, port, searchParams } = new URL(url)
  const where = `${searchParams.get('host') ?? hostname}:${port || '5432'}`
  const cause = error instanceof ServiceUnavailableError ? error.cause : error
  const { code, message } = (cause ?? {}) as { code?: string; message?: string }
  const reason = message?.split('\n')[0] || 'unknown error'
  const coded = code !== undefined && !reason.includes(code) ? `${code} ${reason}` : reason
  return `cannot use the database at ${where} (${coded})`
}
