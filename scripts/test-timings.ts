// `npm run test:timings`: runs every test file of every pass alone, one after the other, and
// writes the seconds each took to test/support/timings.json, by which `npm test` balances each
// pass's shards (test/support/run-tests.ts). Also prints the CPU seconds each
// took, its child processes included, for docs/development.md#where-the-time-goes. Takes some
// twelve minutes here; PostgreSQL, Redis and PgBouncer must be up.
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { PASSES, type Pass, passFiles } from '../test/support/test-files.js'

/** The passes timed: the runtime pass's files are the memory pass's (run-tests.ts). */
const TIMED = PASSES.filter((pass) => pass !== 'runtime')

const ENV: Record<Pass, Record<string, string>> = {
  memory: {},
  runtime: {},
  postgres: { TUGAS_TEST_STORE: 'postgres' },
  pooler: { TUGAS_TEST_STORE: 'postgres', TUGAS_TEST_POOLER: 'pgbouncer' },
}

const timings = {} as Record<Pass, Record<string, number>>
for (const pass of TIMED) {
  timings[pass] = {}
  for (const file of passFiles(pass).sort()) {
    const started = performance.now()
    const run = spawnSync(
      '/usr/bin/time',
      ['-f', '%U %S', process.execPath, '--import', 'tsx', '--test', '--test-reporter=dot', file],
      { env: { ...process.env, ...ENV[pass] }, encoding: 'utf8' },
    )
    const seconds = Math.round((performance.now() - started) / 100) / 10
    const [user = 0, system = 0] = (run.stderr.trim().split('\n').at(-1) ?? '')
      .split(' ')
      .map(Number)
    timings[pass][file] = seconds
    const verdict = run.status === 0 ? '' : ` (exit ${run.status})`
    console.log(`${pass}\t${file}\t${seconds} s\t${(user + system).toFixed(1)} s CPU${verdict}`)
  }
}
writeFileSync(
  new URL('../test/support/timings.json', import.meta.url),
  `${JSON.stringify(timings, null, 2)}\n`,
)
