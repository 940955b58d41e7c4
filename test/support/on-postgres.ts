// `npm test`, second pass: the HTTP tests of surfaces A to D again, each test app on a fresh
// PostgreSQL schema (TUGAS_TEST_STORE=postgres). Loudly skipped where PostgreSQL cannot be
// reached, unless TUGAS_REQUIRE_SERVICES=1 (CI), where that fails the run.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { postgresProblem } from './postgres.js'
import { SERVICES_REQUIRED } from './services.js'

/** The HTTP tests: every test file but the store-contract suites, which run both stores. */
function httpTestFiles(): string[] {
  const folders = [
    'test',
    'test/http',
    ...['tugas', 'compact', 'todos', 'supporting'].map((s) => `test/surfaces/${s}`),
  ]
  return folders
    .flatMap((folder) => readdirSync(folder).map((name) => join(folder, name)))
    .filter((file) => file.endsWith('.test.ts') && !file.endsWith('.contract.test.ts'))
    .filter((file) => !/(^|\/)(config|seed|main|postgres-[a-z-]+)\.test\.ts$/.test(file))
    .sort()
}

const problem = await postgresProblem()
if (problem !== undefined) {
  const verdict = SERVICES_REQUIRED ? 'FAILED' : 'SKIPPED'
  process.stderr.write(`\n*** ${verdict}: the HTTP tests on PostgreSQL: ${problem}. ***\n\n`)
  process.exit(SERVICES_REQUIRED ? 1 : 0)
}
// Three test files at a time, as in the first pass (package.json): most of a file's time is spent
// waiting on PostgreSQL or on processes it started, which another file's work can fill.
const run = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=3', '--test-reporter=spec', ...httpTestFiles()],
  { stdio: 'inherit', env: { ...process.env, TUGAS_TEST_STORE: 'postgres' } },
)
process.exit(run.status ?? 1)
