import assert from 'node:assert/strict'
import { after } from 'node:test'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { buildApp } from '../../src/app.js'
import { type Config, defaults } from '../../src/config.js'
import { createInfrastructure } from '../../src/infrastructure.js'
import type { RateLimiter } from '../../src/rate-limit/limiter.js'
import { demoSeed, parseSeed, type Seed } from '../../src/seed.js'
import type { TlsFiles } from '../../src/server/tls.js'
import type { Stores } from '../../src/stores.js'
import { conformanceChecker, type SeenRequest, type SeenResponse } from './conformance.js'
import { migratedSchema, type SchemaLease } from './postgres.js'
import { urlAsSent } from './property-kit.js'

/**
 * The store the HTTP tests run on: memory, or PostgreSQL with TUGAS_TEST_STORE=postgres, where
 * each test app gets a migrated, empty schema of its own (`npm test` runs the HTTP tests on
 * both).
 */
export const TEST_STORE = process.env.TUGAS_TEST_STORE === 'postgres' ? 'postgres' : 'memory'

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
  /** Stores to serve; otherwise the TEST_STORE's, holding `seed`. */
  stores?: Stores
  /** The wall clock (products v1 sunset); the real one when left out. */
  now?: () => Date
  /** Certificate and key: the app serves HTTPS (HTTP/2 and HTTP/1.1) once it listens. */
  tls?: TlsFiles
  /**
   * Closed when the test that built it ends (the default), or by the caller: an app built in a
   * `before` hook and shared by several tests, closed in an `after` hook.
   */
  closedBy?: 'test' | 'caller'
}

/**
 * Builds the app as main.ts does, with a silent logger unless `logs` is asked for. The app is
 * closed, and its stores with it, when the test (or hook) that built it ends.
 */
export async function testApp(options: TestAppOptions = {}): Promise<FastifyInstance> {
  const seed: Seed = options.seed === undefined ? demoSeed : parseSeed(options.seed)
  const config: Config = { ...defaults, logLevel: 'silent', ...options.config }
  let schema: SchemaLease | undefined
  if (TEST_STORE === 'postgres' && !options.stores && config.databaseUrl === undefined) {
    schema = await migratedSchema()
    config.databaseUrl = schema.url
    config.databaseDirectUrl ??= schema.directUrl
  }
  const logs = options.logs
  const logger =
    logs === undefined
      ? { level: 'silent' }
      : {
          level: options.logLevel ?? 'info',
          stream: { write: (line: string) => void logs.push(JSON.parse(line)) },
        }
  const built = await startedInfrastructure(config, seed)
  const infrastructure = {
    ...built,
    // The schema is handed on once the app has closed its connections to it.
    close: async () => {
      await built.close()
      await schema?.release()
    },
    ...(options.stores && { stores: options.stores }),
    ...(options.limiter && { limiter: options.limiter }),
  }
  const app = await buildApp({
    config,
    infrastructure,
    logger,
    ...(options.now && { now: options.now }),
    ...(options.tls && { tls: options.tls }),
  })
  if (options.closedBy !== 'caller') {
    closedAfter(app)
    // Closed when the file ends at the latest: a hook registered inside a test is not always
    // run (a test that reads a shared app first, in Node 20), and an app left open keeps the
    // process alive (its change feed reads every second).
    open.add(app)
    app.addHook('onClose', async () => {
      open.delete(app)
    })
  }
  await app.ready()
  storesByApp.set(app, infrastructure.stores)
  return app
}

/**
 * Closes `app` when the test (or hook) running now ends. The hook then lets go of it: node:test
 * keeps every hook until the process ends, and a closure made in testApp would hold all of
 * testApp's variables, so a test process would keep every app it built, gigabytes the collector
 * goes over again and again.
 */
export function closedAfter(app: FastifyInstance): void {
  let held: FastifyInstance | undefined = app
  after(async () => {
    const closing = held
    held = undefined
    await closing?.close()
  })
}

const storesByApp = new WeakMap<FastifyInstance, Stores>()

/**
 * createInfrastructure, tried again (three times at most) when PostgreSQL did not answer within
 * the pool's connect timeout: on a machine busy with other test processes, not the code under
 * test (the start-up refusal itself is tested on an address that never answers).
 */
async function startedInfrastructure(config: Config, seed: Seed) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await createInfrastructure(config, seed)
    } catch (error) {
      if (attempt >= 3 || !/connection timeout/.test(String((error as Error).message))) throw error
    }
  }
}

/** The apps a file's tests share, by the options they were built with (see sharedApp). */
const sharedApps = new Map<string, Promise<FastifyInstance>>()

/** The apps testApp built that are not closed yet. */
const open = new Set<FastifyInstance>()

after(async () => {
  for (const app of sharedApps.values()) await (await app).close()
  for (const app of open) await app.close()
})

/**
 * An app for the tests of a file that only read (GET and HEAD): one per distinct `config` and
 * `seed`, built when a test first asks, closed when the file's tests have ended. Building an
 * app is most of what a short test costs. A test that sends anything that could change data,
 * or reads the logs, builds its own with testApp.
 */
export function sharedApp(
  options: Pick<TestAppOptions, 'config' | 'seed'> = {},
): Promise<FastifyInstance> {
  const key = JSON.stringify(options)
  let app = sharedApps.get(key)
  if (app === undefined) {
    app = testApp({ ...options, closedBy: 'caller' })
    sharedApps.set(key, app)
  }
  return app
}

/** The stores a test app serves, to look at what the HTTP API does not show (password hashes). */
export function storesOf(app: FastifyInstance): Stores {
  const stores = storesByApp.get(app)
  if (stores === undefined) throw new Error('not an app built by testApp')
  return stores
}

export const json = { 'content-type': 'application/json' }

/** The demo data's tasks as the service serves them: ids from 1 in seed order. */
export const DEMO_TASKS = demoSeed.tugas.map(({ title, status }, i) => ({
  id: i + 1,
  title,
  status,
}))

const checkers = new WeakMap<FastifyInstance, (req: SeenRequest, res: SeenResponse) => void>()

/**
 * `app.inject` plus a check that the response matches the app's own /openapi.json: every test
 * that calls through here also tests the published document. The URL checked is the one the
 * service received (`urlAsSent`: after the client's own normalisation, before `rewriteUrl`).
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
    { method: options.method ?? 'GET', url: urlAsSent(response, options.url) },
    { statusCode: response.statusCode, headers: response.headers, body: response.body },
  )
  return response
}

/** `call` with a JSON body: the write most tests send. */
export function callJson(
  app: FastifyInstance,
  method: 'POST' | 'PUT' | 'PATCH',
  url: string,
  payload: InjectOptions['payload'],
) {
  return call(app, { method, url, headers: json, payload })
}

/** Creates a surface A task through `app` (201 or the test fails): the task answered. */
export async function createTask(
  app: FastifyInstance,
  title: string,
): Promise<{ id: number; title: string; status: string }> {
  const response = await call(app, {
    method: 'POST',
    url: '/tugas',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ title, status: 'belum' }),
  })
  assert.equal(response.statusCode, 201, response.body)
  return response.json()
}

/** The same over HTTP, against the service at `base`: the new task's id. */
export async function createTaskAt(base: string, title: string): Promise<number> {
  const response = await fetch(`${base}/tugas`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ title }),
  })
  assert.equal(response.status, 201)
  return ((await response.json()) as { id: number }).id
}
