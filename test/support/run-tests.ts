// The test passes (test/support/test-files.ts says which files each runs): `memory`, `postgres`
// with every test app on PostgreSQL (TUGAS_TEST_STORE=postgres), and `pooler` with every database
// reached through PgBouncer in transaction pooling mode (TUGAS_TEST_POOLER,
// test/support/pgbouncer.ts). The passes named on the command line run in one schedule, so that
// a pass's slow end overlaps the next one's start: `npm test` runs `memory postgres`, CI adds
// `pooler`. The last two are loudly skipped where PostgreSQL or PgBouncer is missing, unless
// TUGAS_REQUIRE_SERVICES=1 (CI), where that fails the run.
//
// The files are shared out among a few test processes (shards) per pass, three processes at a
// time, instead of one process per file: on Node.js 20 every process pays about a second of CPU
// to load the service's ES modules through tsx's loader hooks, which run on another thread
// (typebox alone is some 700 modules). So a test file must leave no process-wide state behind
// (environment, globals, listeners); each file still runs alone with
// `node --import tsx --test <file>`. A pass's shards are balanced by the time each file took
// alone (timings.json: `npm run test:timings` measures them again).
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pgbouncerProblem } from './pgbouncer.js'
import { postgresProblem } from './postgres.js'
import { SERVICES_REQUIRED } from './services.js'
import { OWN_PROCESS, PASSES, type Pass, passFiles } from './test-files.js'

const SHARDS = 8

/** Seconds a file not in timings.json is taken to need. */
const UNTIMED_SECONDS = 3

const TIMINGS = JSON.parse(
  readFileSync(new URL('timings.json', import.meta.url), 'utf8'),
) as Record<Pass, Record<string, number>>

/** The environment each pass's test processes run with. */
const PASS_ENV: Record<Pass, Record<string, string | undefined>> = {
  memory: { TUGAS_TEST_STORE: undefined, TUGAS_TEST_POOLER: undefined },
  postgres: { TUGAS_TEST_STORE: 'postgres', TUGAS_TEST_POOLER: undefined },
  pooler: { TUGAS_TEST_STORE: 'postgres', TUGAS_TEST_POOLER: 'pgbouncer' },
  runtime: { TUGAS_TEST_STORE: undefined, TUGAS_TEST_POOLER: undefined },
}

/** One test process: the files it imports, in one pass. */
interface Entry {
  pass: Pass
  name: string
  files: string[]
}

/** The seconds `file` took alone in `pass` (the runtime pass's files as in the memory pass). */
const secondsOf = (pass: Pass, file: string) =>
  TIMINGS[pass === 'runtime' ? 'memory' : pass][file] ?? UNTIMED_SECONDS

/** `files` in `count` shards of about the same expected time, the longest files placed first. */
function shardsOf(pass: Pass, files: string[], count: number): Entry[] {
  const shards = Array.from({ length: count }, (_, i) => ({
    entry: { pass, name: `shard-${i + 1}`, files: [] as string[] },
    seconds: 0,
  }))
  const timed = files.map((file) => ({ file, seconds: secondsOf(pass, file) }))
  timed.sort((a, b) => b.seconds - a.seconds || a.file.localeCompare(b.file))
  for (const { file, seconds } of timed) {
    const shortest = shards.reduce((a, b) => (b.seconds < a.seconds ? b : a))
    shortest.entry.files.push(file)
    shortest.seconds += seconds
  }
  return shards.map((shard) => shard.entry).filter((entry) => entry.files.length > 0)
}

/** The passes asked for that can run; exits where a required one cannot. */
async function runnable(asked: readonly Pass[]): Promise<Pass[]> {
  const passes: Pass[] = []
  for (const pass of asked) {
    if (pass === 'postgres' || pass === 'pooler') {
      const problem =
        (await postgresProblem()) ?? (pass === 'pooler' ? pgbouncerProblem() : undefined)
      if (problem !== undefined) {
        const verdict = SERVICES_REQUIRED ? 'FAILED' : 'SKIPPED'
        process.stderr.write(`\n*** ${verdict}: the ${pass} pass: ${problem}. ***\n\n`)
        if (SERVICES_REQUIRED) process.exit(1)
        continue
      }
    }
    passes.push(pass)
  }
  return passes
}

const asked = process.argv.slice(2)
if (asked.length === 0 || !asked.every((pass) => PASSES.includes(pass as Pass))) {
  process.stderr.write(`usage: run-tests.ts <pass>... (passes: ${PASSES.join(', ')})\n`)
  process.exit(2)
}
const passes = await runnable(PASSES.filter((pass) => asked.includes(pass)))
const entries = passes.flatMap((pass): Entry[] => {
  const files = passFiles(pass)
  const own = files
    .filter((file) => OWN_PROCESS.has(file))
    .map((file) => ({
      pass,
      name: file.replace(/^test\/|\.test\.ts$/g, '').replaceAll('/', '-'),
      files: [file],
    }))
  const shared = files.filter((file) => !OWN_PROCESS.has(file))
  return [...shardsOf(pass, shared, SHARDS), ...own]
})

// Each process is a module that sets its pass's environment, then imports its files. The test
// runner starts them in name order: by pass, then name, so that the processes of files that
// wait on processes and timers start beside shards that keep the CPU busy (started longest
// first instead, they left only waiting for the end: 386 s against 358 s here).
const directory = mkdtempSync(join(tmpdir(), 'tugas-tests-'))
const modules = entries.map(({ pass, name, files }) => {
  const module = join(directory, `${pass}-${name}.mjs`)
  const env = Object.entries(PASS_ENV[pass]).map(([key, value]) =>
    value === undefined
      ? `delete process.env.${key}\n`
      : `process.env.${key} = ${JSON.stringify(value)}\n`,
  )
  const imports = files.map((file) => `await import(${JSON.stringify(resolve(file))})\n`)
  writeFileSync(module, [...env, ...imports].join(''))
  return module
})
const run = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=3', '--test-reporter=spec', ...modules],
  { stdio: 'inherit' },
)
rmSync(directory, { recursive: true, force: true })
process.exit(run.status ?? 1)
