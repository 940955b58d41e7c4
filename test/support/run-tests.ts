// `npm test`'s three passes: `memory` runs every test file; `postgres` runs the HTTP tests of
// surfaces A to D again with every test app on PostgreSQL (TUGAS_TEST_STORE=postgres); `pooler`
// runs the tests of the PostgreSQL stores, restarts, two instances and every surface (the
// Postman collection) through PgBouncer in transaction pooling mode (TUGAS_TEST_POOLER,
// test/support/pgbouncer.ts). The last two are loudly skipped where PostgreSQL or PgBouncer is
// missing, unless TUGAS_REQUIRE_SERVICES=1 (CI), where that fails the run.
//
// The files are shared out among a few test processes (shards), three at a time, instead of
// one process per file: on Node.js 20 every process pays about a second of CPU to load the
// service's ES modules through tsx's loader hooks, which run on another thread (typebox alone is
// some 700 modules). So a test file must leave no process-wide state behind (environment,
// globals, listeners); each file still runs alone with `node --import tsx --test <file>`.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pgbouncerProblem } from './pgbouncer.js'
import { postgresProblem } from './postgres.js'
import { SERVICES_REQUIRED } from './services.js'

const SHARDS = 8

/**
 * Files that time what they test (time limits, refill clocks, closing under load) or measure
 * memory, or start processes of their own: each keeps a process to itself, as every file did
 * before, so another file's work in the same event loop cannot delay what they measure.
 */
const OWN_PROCESS = new Set([
  'test/app.test.ts',
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
  'test/surfaces/events/memory-bound.test.ts',
  'test/two-instances.test.ts',
  'test/workers.test.ts',
])

/** Every test file under `folder`, at any depth. */
function testFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => join(folder, name))
}

/** The HTTP tests: every test file but the store-contract suites, which run both stores. */
function httpTestFiles(): string[] {
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
    .concat(ALSO_ON_POSTGRES)
}

/** Tests outside those folders that run every surface on the store under test. */
const ALSO_ON_POSTGRES = ['test/surfaces/openapi/postman-collection.test.ts']

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

/** `files` in `count` shards of about the same size in bytes, the largest files placed first. */
function shardsOf(files: string[], count: number): string[][] {
  const shards: string[][] = Array.from({ length: count }, () => [])
  const sizes = new Array<number>(count).fill(0)
  const bySize = files.map((file) => ({ file, size: statSync(file).size }))
  bySize.sort((a, b) => b.size - a.size || a.file.localeCompare(b.file))
  for (const { file, size } of bySize) {
    const smallest = sizes.indexOf(Math.min(...sizes))
    shards[smallest]?.push(file)
    sizes[smallest] = (sizes[smallest] ?? 0) + size
  }
  return shards.filter((shard) => shard.length > 0).map((shard) => shard.sort())
}

const pass = process.argv[2]
if (pass !== 'memory' && pass !== 'postgres' && pass !== 'pooler') {
  process.stderr.write('usage: run-tests.ts memory|postgres|pooler\n')
  process.exit(2)
}
if (pass !== 'memory') {
  const problem = (await postgresProblem()) ?? (pass === 'pooler' ? pgbouncerProblem() : undefined)
  if (problem !== undefined) {
    const verdict = SERVICES_REQUIRED ? 'FAILED' : 'SKIPPED'
    process.stderr.write(`\n*** ${verdict}: the ${pass} pass: ${problem}. ***\n\n`)
    process.exit(SERVICES_REQUIRED ? 1 : 0)
  }
}
const FILES = { memory: () => testFiles('test'), postgres: httpTestFiles, pooler: poolerTestFiles }
const files = FILES[pass]()
const directory = mkdtempSync(join(tmpdir(), 'tugas-shards-'))
const shared = files.filter((file) => !OWN_PROCESS.has(file))
const entries = shardsOf(shared, SHARDS).map((shard, i) => {
  const entry = join(directory, `shard-${i + 1}.mjs`)
  writeFileSync(
    entry,
    shard.map((file) => `await import(${JSON.stringify(resolve(file))})\n`).join(''),
  )
  return entry
})
entries.push(...files.filter((file) => OWN_PROCESS.has(file)).sort())
const run = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=3', '--test-reporter=spec', ...entries],
  {
    stdio: 'inherit',
    env: {
      ...process.env,
      ...(pass !== 'memory' && { TUGAS_TEST_STORE: 'postgres' }),
      ...(pass === 'pooler' && { TUGAS_TEST_POOLER: 'pgbouncer' }),
    },
  },
)
rmSync(directory, { recursive: true, force: true })
process.exit(run.status ?? 1)
