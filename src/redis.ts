import { Redis } from 'ioredis'
import { ServiceUnavailableError } from './store/unavailable.js'

/**
 * A client of REDIS_URL for the service's own use. It fails fast while disconnected instead of
 * queueing commands until Redis is back, and keeps reconnecting in the background, at most a
 * second apart, so the service recovers without a restart.
 */
export function redisClient(url: string): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2000,
    commandTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
    lazyConnect: true,
  })
  // A connection error must not kill the process; commands fail while it lasts.
  redis.on('error', () => {})
  return redis
}

/** Connects now, so an unreachable Redis refuses start-up instead of failing the first request. */
export async function connectRedis(redis: Redis): Promise<void> {
  // The client rejects with "Connection is closed"; the error before it says why.
  let cause: unknown
  const remember = (error: unknown) => {
    cause ??= error
  }
  redis.on('error', remember)
  try {
    await redis.connect()
  } catch (error) {
    throw cause ?? error
  } finally {
    redis.off('error', remember)
  }
}

/** Whether Redis answers now. */
export async function pingRedis(redis: Redis): Promise<boolean> {
  try {
    return (await redis.ping()) === 'PONG'
  } catch {
    return false
  }
}

/**
 * `run` against Redis; while Redis cannot be reached, ServiceUnavailableError (503): never
 * unlimited, never a request left waiting for a reconnect.
 */
export async function onRedis<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (error) {
    throw new ServiceUnavailableError('redis', { cause: error })
  }
}
