import type { FastifyInstance } from 'fastify'
import { buildApp } from '../src/app.js'
import { type Config, defaults } from '../src/config.js'
import { demoSeed, parseSeed, type Seed } from '../src/seed.js'
import { createMemoryStores } from '../src/stores.js'

export interface TestAppOptions {
  config?: Partial<Config>
  /** Seed document in the SEED_FILE format; the demo data when left out. */
  seed?: unknown
  /** Receives every log line (parsed) when given. */
  logs?: Record<string, unknown>[]
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
          level: 'info',
          stream: { write: (line: string) => void logs.push(JSON.parse(line)) },
        }
  const app = await buildApp({ config, stores: await createMemoryStores(seed), logger })
  await app.ready()
  return app
}

export const json = { 'content-type': 'application/json' }
