import { type AuthThrottle, MemoryAuthThrottle, RedisAuthThrottle } from './access/throttle.js'
import { Background, deliverer, folds, type Job } from './background.js'
import type { Config } from './config.js'
import { PgEventLog } from './events/pg-store.js'
import type { DeliveryCounts } from './metrics/index.js'
import {
  MemoryVersionCounts,
  RedisVersionCounts,
  type VersionCounts,
} from './metrics/version-counts.js'
import type { RateLimiter } from './rate-limit/limiter.js'
import { RedisTokenBucketLimiter } from './rate-limit/redis-token-bucket.js'
import { TokenBucketLimiter } from './rate-limit/token-bucket.js'
import { connectRedis, pingRedis, redisClient } from './redis.js'
import type { Seed } from './seed.js'
import { StartUpError } from './start-up-error.js'
import { Database, type PoolStats } from './store/postgres/database.js'
import { migrate, underStartUpLock } from './store/postgres/migrate.js'
import { ServiceUnavailableError } from './store/unavailable.js'
import {
  createPostgresStores,
  EVENT_RENDERERS,
  loadSeed,
  postgresDataStores,
  postgresFeed,
  type Stores,
  seededMemoryStores,
} from './stores.js'
import type { PgTugasStore } from './surfaces/tugas/pg-store.js'

/** What the app serves from: every surface's stores, the `/laporan` limiter, the version counts. */
export interface Infrastructure {
  stores: Stores
  limiter: RateLimiter
  versionCounts: VersionCounts
  /** Failed credentials per client address (docs/supporting.md#guessing-credentials-throttled). */
  authThrottle: AuthThrottle
  /** Whether each configured backing service answers now (`GET /health/ready`). */
  checks(): Promise<Record<string, boolean>>
  /**
   * Stops the background work (background.ts), then releases what they hold (pools,
   * connections); the app calls it when it closes.
   */
  close(): Promise<void>
  /** What start-up did with the seed: loaded it, or kept the data a database already held. */
  seed: 'loaded' | 'kept-existing-data'
  /** The PostgreSQL pool's connections now, when the stores are in PostgreSQL (metrics). */
  poolStats?: () => PoolStats
  /** What start-up found that an operator should know, each one line (logged at warn). */
  warnings: string[]
  /** The webhook deliveries this process makes, counted (`/metrics`); none without it. */
  deliveries?: DeliveryCounts
}

/** One backing service's part: what it serves, its readiness check and its release. */
interface Part<T> {
  serves: T
  /** What it runs in the background once built, in order (background.ts). */
  jobs?: Job[]
  check?: [name: string, ping: () => Promise<boolean>]
  close(): Promise<void>
}

/** How the stores are built beyond the configuration. */
export interface InfrastructureOptions {
  /**
   * false: PostgreSQL writes store no event (the change feed stays empty). Only for the bench's
   * "POST /tugas without events", which measures what the outbox costs a write.
   */
  publish?: boolean
}

/**
 * The stores and the limiter the configuration asks for, holding `seed`, and the work each
 * process runs beside its requests, started.
 */
export async function createInfrastructure(
  config: Config,
  seed: Seed,
  now: () => Date = () => new Date(),
  options: InfrastructureOptions = {},
): Promise<Infrastructure> {
  const shared = await createShared(config)
  let stores: Part<StoresServe>
  try {
    stores = await createStores(config, seed, now, options)
  } catch (error) {
    await shared.close()
    throw error
  }
  const parts = [shared, stores]
  const deliveries = deliverer(config, stores.serves.stores.webhooks)
  // The change feed numbered and heard, the buckets folded, then the deliveries; stopped in
  // the reverse order before any connection closes.
  const background = new Background([...(stores.jobs ?? []), deliveries])
  const close = async () => {
    await background.close()
    await Promise.all(parts.map((part) => part.close()))
  }
  try {
    await background.start()
  } catch (error) {
    await close()
    // Only the PostgreSQL stores' work can fail to start.
    throw config.databaseUrl === undefined ? error : databaseRefused(config.databaseUrl, error)
  }
  return {
    stores: stores.serves.stores,
    ...shared.serves,
    seed: stores.serves.seed,
    poolStats: stores.serves.poolStats,
    warnings: stores.serves.warnings,
    deliveries,
    async checks() {
      const checks = parts.flatMap((part) => (part.check ? [part.check] : []))
      const answers = await Promise.all(checks.map(([, ping]) => ping()))
      return Object.fromEntries(checks.map(([name], at) => [name, answers[at] as boolean]))
    },
    close,
  }
}

/**
 * What every process must share beside the data: the `/laporan` buckets, the per-version
 * counts and the failed credentials per client address. In process memory, or in Redis,
 * connected before the service starts.
 */
async function createShared(
  config: Config,
): Promise<
  Part<{ limiter: RateLimiter; versionCounts: VersionCounts; authThrottle: AuthThrottle }>
> {
  const policy = {
    capacity: config.rateLimitCapacity,
    refillPerSecond: config.rateLimitRefillPerSecond,
  }
  if (config.redisUrl === undefined) {
    return {
      serves: {
        limiter: new TokenBucketLimiter(policy),
        versionCounts: new MemoryVersionCounts(),
        authThrottle: new MemoryAuthThrottle(config.authFailuresMax),
      },
      close: async () => {},
    }
  }
  const redis = redisClient(config.redisUrl)
  try {
    await connectRedis(redis)
  } catch (error) {
    redis.disconnect()
    throw new StartUpError(`REDIS_URL: ${startUpProblem(config.redisUrl, 6379, 'Redis', error)}`)
  }
  const prefix = config.redisKeyPrefix
  return {
    serves: {
      limiter: new RedisTokenBucketLimiter(policy, { redis, prefix: `${prefix}laporan:` }),
      versionCounts: new RedisVersionCounts(redis, `${prefix}api-versions`),
      authThrottle: new RedisAuthThrottle(redis, config.authFailuresMax, `${prefix}auth-failures:`),
    },
    check: ['redis', () => pingRedis(redis)],
    close: async () => redis.disconnect(),
  }
}

type StoresServe = Pick<Infrastructure, 'stores' | 'seed' | 'poolStats' | 'warnings'>

async function createStores(
  config: Config,
  seed: Seed,
  now: () => Date,
  { publish = true }: InfrastructureOptions,
): Promise<Part<StoresServe>> {
  if (config.databaseUrl === undefined) {
    const stores = await seededMemoryStores(seed, now, config.eventsRetain)
    return { serves: { stores, seed: 'loaded', warnings: [] }, close: async () => {} }
  }
  const database = new Database({
    url: config.databaseUrl,
    poolSize: config.databasePoolSize,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    pooler: config.databasePooler,
  })
  try {
    const { pooler } = await database.start()
    await migrate(database)
    const loaded = await seedOnce(database, seed, now)
    // LISTEN needs a session of its own, which a transaction-pooling proxy does not give.
    const listenUrl = config.databaseDirectUrl ?? (pooler ? undefined : config.databaseUrl)
    const events = new PgEventLog({
      db: database,
      sequencer: database.background('events'),
      listenUrl,
      retain: config.eventsRetain,
      renderers: EVENT_RENDERERS,
    })
    const stores = publish
      ? createPostgresStores(database, events, now)
      : { ...postgresDataStores(database, now), ...postgresFeed(database, events) }
    const { folder } = stores.tugas as PgTugasStore
    return {
      serves: {
        stores,
        seed: loaded ? 'loaded' : 'kept-existing-data',
        poolStats: () => database.poolStats(),
        warnings: [
          ...(pooler ? [POOLER_WARNING] : []),
          ...(listenUrl === undefined ? [NO_LISTENER_WARNING] : []),
        ],
      },
      jobs: [events, ...(folder ? [folds(folder)] : [])],
      check: ['postgres', () => database.ping()],
      close: () => database.close(),
    }
  } catch (error) {
    await database.close()
    throw databaseRefused(config.databaseUrl, error)
  }
}

/** What refuses start-up when the database cannot be used. */
function databaseRefused(url: string, error: unknown): StartUpError {
  return new StartUpError(`DATABASE_URL: ${startUpProblem(url, 5432, 'the database', error)}`)
}

const POOLER_WARNING =
  'DATABASE_URL: a connection pooler, which does not pass statement_timeout on to PostgreSQL: ' +
  'DATABASE_STATEMENT_TIMEOUT_MS only bounds how long a request waits, so set a statement ' +
  'timeout in the pooler or for the database role; statements are not prepared by name ' +
  '(docs/operating.md#behind-a-connection-pooler)'

const NO_LISTENER_WARNING =
  'DATABASE_URL: a connection pooler and no DATABASE_DIRECT_URL: the change feed cannot LISTEN ' +
  'through it, so each process reads the events table every 100 ms instead ' +
  '(docs/operating.md#behind-a-connection-pooler)'

/**
 * Loads the seed into a database that has never been seeded, in one transaction under the
 * start-up lock (several processes may start at once). True when it loaded it.
 */
async function seedOnce(database: Database, seed: Seed, now: () => Date): Promise<boolean> {
  return underStartUpLock(database, async (client) => {
    const { rows } = await client.query('SELECT 1 FROM seeded')
    if (rows.length > 0) return false
    await loadSeed(postgresDataStores(client, now), seed)
    await client.query('INSERT INTO seeded (at) VALUES ($1)', [now()])
    return true
  })
}

/** One line for the operator: where, and what went wrong; never the password. */
function startUpProblem(url: string, defaultPort: number, what: string, error: unknown): string {
  const { hostname, port, searchParams } = new URL(url)
  const where = `${searchParams.get('host') ?? hostname}:${port || defaultPort}`
  const cause = error instanceof ServiceUnavailableError ? error.cause : error
  const { code, message } = (cause ?? {}) as { code?: string; message?: string }
  const reason = message?.split('\n')[0] || 'unknown error'
  const coded = code !== undefined && !reason.includes(code) ? `${code} ${reason}` : reason
  return `cannot use ${what} at ${where} (${coded})`
}
