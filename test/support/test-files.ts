// The files of each of `npm test`'s passes (test/support/run-tests.ts): `memory` runs every test
// file; `postgres` runs the HTTP tests again with every test app on PostgreSQL; `pooler` runs the
// tests of the PostgreSQL stores, restarts, two instances and every surface through PgBouncer;
// `runtime`, which CI runs on a second Node.js line, the memory pass's files that test what
// changes between lines.
import { readdirSync } from 'node:fs'
import { join } from 'node:path'

export type Pass = 'memory' | 'postgres' | 'pooler' | 'runtime'

export const PASSES: readonly Pass[] = ['memory', 'postgres', 'pooler', 'runtime']

/** The test files of `pass`. */
export function passFiles(pass: Pass): string[] {
  return {
    memory: () => testFiles('test'),
    postgres: postgresTestFiles,
    pooler: poolerTestFiles,
    runtime: runtimeTestFiles,
  }[pass]()
}

/**
 * The `runtime` pass, a subset of `memory`: the files that test what rests on the runtime more
 * than on the service's rules (timers and the feed's pacing, streams, HTTP/1.1, HTTP/2 and TLS,
 * outgoing requests, crypto, child processes and the cluster). The surfaces' answers, the same
 * JavaScript on any line, are left to the full passes, so that `.ci/run` stays under ten minutes
 * (docs/development.md#tests).
 */
function runtimeTestFiles(): string[] {
  const folders = ['events', 'server', 'http', 'rate-limit', 'client', 'access']
  return [
    ...folders.flatMap((folder) => testFiles(join('test', folder))),
    ...testFiles('test/surfaces/events'),
    ...testFiles('test/surfaces/webhooks'),
    ...['app', 'main', 'https', 'workers', 'release-memory'].map((name) => `test/${name}.test.ts`),
  ]
}

/**
 * Files that time what they test (time limits, refill clocks, closing under load) or measure
 * memory, or start processes of their own: each keeps a process to itself, as every file did
 * before, so another file's work in the same event loop cannot delay what they measure.
 */
export const OWN_PROCESS = new Set([
  'test/app.test.ts',
  'test/docs-snippets.test.ts',
  'test/http/client-error.test.ts',
  'test/https.test.ts',
  'test/main.test.ts',
  'test/metrics-workers.test.ts',
  'test/postgres-durability.test.ts',
  'test/postgres-events.test.ts',
  'test/postgres-events-load.test.ts',
  'test/postgres-faults.test.ts',
  'test/postgres-numbering-schedules.test.ts',
  'test/rate-limit/limiter.contract.test.ts',
  'test/redis-faults.test.ts',
  'test/release-memory.test.ts',
  'test/surfaces/webhooks/isolation.test.ts',
  'test/surfaces/webhooks/resolver.test.ts',
  'test/surfaces/events/client-events.test.ts',
  'test/surfaces/events/listen.test.ts',
  'test/surfaces/events/memory-bound.test.ts',
  'test/two-instances.test.ts',
  'test/workers.test.ts',
])

/** Every test file under `folder`, at any depth. */
export function testFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => join(folder, name))
}

/**
 * The PostgreSQL pass: the HTTP tests, every file of those folders but the store-contract suites
 * (which run both stores in the memory pass) and the files whose answers cannot depend on the
 * store (STORE_INDEPENDENT).
 */
function postgresTestFiles(): string[] {
  const folders = [
    'test',
    'test/http',
    // The credential checks and the throttle, over HTTP.
    'test/access',
    ...['tugas', 'compact', 'todos', 'supporting', 'events'].map((s) => `test/surfaces/${s}`),
  ]
  return folders
    .flatMap((folder) => readdirSync(folder).map((name) => join(folder, name)))
    .filter((file) => file.endsWith('.test.ts') && !file.endsWith('.contract.test.ts'))
    .filter((file) => !/(^|\/)(config|seed|main|postgres-[a-z-]+)\.test\.ts$/.test(file))
    .filter((file) => !STORE_INDEPENDENT.has(file))
    .concat(ALSO_ON_POSTGRES)
}

/**
 * Files of those folders that build no app on the store under test, or test only what comes
 * before or around a route (TLS, the HTTP parser, the metrics of WORKERS), or run the docs'
 * code examples (docs-snippets: what each relies on, the feed, its resumption and the
 * deliveries, is tested on both stores by the surfaces' own tests): the memory pass runs them,
 * a second run on PostgreSQL would test nothing more.
 */
const STORE_INDEPENDENT = new Set([
  'test/background.test.ts',
  'test/docs-snippets.test.ts',
  'test/docs-links.test.ts',
  'test/https.test.ts',
  'test/metrics-workers.test.ts',
  'test/release-memory.test.ts',
  'test/http/accept.test.ts',
  'test/http/client-error.test.ts',
  'test/http/conditional.test.ts',
  'test/http/literal-segments.test.ts',
  'test/http/request-logger.test.ts',
  'test/http/text.test.ts',
  'test/surfaces/events/budget.test.ts',
  'test/surfaces/events/stream.test.ts',
])

/**
 * Tests outside those folders that run every surface on the store under test, or webhooks whose
 * deliveries come from the store (the pending deliveries, a replay reads the kept events).
 */
const ALSO_ON_POSTGRES = [
  'test/surfaces/openapi/postman-collection.test.ts',
  'test/surfaces/webhooks/delivery.test.ts',
  'test/surfaces/webhooks/interop.test.ts',
  'test/surfaces/webhooks/replay.test.ts',
]

/**
 * The pooler pass: every store-contract suite (each runs PostgreSQL), the task list's pages under
 * concurrent writes and folds of its counted buckets, and the files that restart the service on
 * PostgreSQL, run two instances on it (the change feed's two processes too), or call every
 * surface.
 */
function poolerTestFiles(): string[] {
  const contracts = testFiles('test').filter(
    (file) =>
      file.endsWith('store.contract.test.ts') ||
      file.endsWith('idempotency.contract.test.ts') ||
      file.endsWith('log.contract.test.ts'),
  )
  return [
    ...contracts,
    'test/postgres-durability.test.ts',
    'test/postgres-events.test.ts',
    'test/postgres-idempotency.test.ts',
    'test/pooler.test.ts',
    'test/two-instances.test.ts',
    'test/surfaces/openapi/postman-collection.test.ts',
    'test/surfaces/tugas/pages.property.test.ts',
  ].sort()
}
