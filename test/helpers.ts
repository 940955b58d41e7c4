import type { FastifyInstance, InjectOptions } from 'fastify'
import { buildApp } from '../src/app.js'
import { type Config, defaults } from '../src/config.js'
import type { RateLimiter } from '../src/rate-limit/limiter.js'
import { demoSeed, parseSeed, type Seed } from '../src/seed.js'
import { createMemoryStores, type Stores } from '../src/stores.js'
import { conformanceChecker, type SeenRequest, type SeenResponse } from './conformance.js'

export interface TestAppOptions {
  config?: Partial<Config>
  /** Seed document in the SEED_FILE format; the demo data when left out. */
  seed?: unknown
  /** Receives every log line (parsed) when given. */
  logs?: Record<string, unknown>[]
  /** The level `logs` are captured at; `info` when left out. */
  logLevel?: string
  /** The `/laporan` limiter (e.g. a token bucket on a fake clock); from the config otherwise. */
  limiter?: RateLimiter
  /** Stores to serve; memory stores holding `seed` otherwise. */
  stores?: Stores
}

/** Builds the app as main.ts does, with a silent logger unless `logs` is asked for. */
export async function testApp(options: TestAppOptions = {}): Promise<FastifyInstance> {
  const seed: Seed = options.seed === undefined ? demoSeed : parseSeed(options.seed)
  const config: Config = { ...defaults, logLevel: 'silent', ...options.config }
  const logs = options.logs
  const logger =
    logs === undefined
      ? { level: 'silent' }
      : {
          level: options.logLevel ?? 'info',
          stream: { write: (line: string) => void logs.push(JSON.parse(line)) },
        }
  const stores = options.stores ?? (await createMemoryStores(seed))
  const app = await buildApp({
    config,
    stores,
    logger,
    ...(options.limiter && { limiter: options.limiter }),
  })
  await app.ready()
  return app
}

export const json = { 'content-type': 'application/json' }

const checkers = new WeakMap<FastifyInstance, (req: SeenRequest, res: SeenResponse) => void>()

/**
 * `app.inject` plus a check that the response matches the app's own /openapi.json: every
 * surface A test that calls through here also tests the published document.
 */
export async function call(app: FastifyInstance, options: InjectOptions & { url: string }) {
  let check = checkers.get(app)
  if (check === undefined) {
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json()
    check = conformanceChecker(document)
    checkers.set(app, check)
  }
  const response = await app.inject(options)
  check(
    { method: options.method ?? 'GET', url: options.url },
    { statusCode: response.statusCode, headers: response.headers, body: response.body },
  )
  return response
}
