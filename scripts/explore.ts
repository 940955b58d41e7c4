// `npm run explore`: the schedule explorer of the change feed's numbering on PostgreSQL
// (docs/events.md#nothing-lost-nothing-renamed), longer than CI runs it, on a cluster of its
// own that it crashes at will. Options: --seed N (default: the time), --seconds N (60),
// --schedules N (no limit), --crash-chance P (0.005 a step), --version V (a schema version to
// explore instead of the newest, e.g. 007 to see what version 8 fixed), --stop (at the first
// finding). Prints each finding with its steps; exits 1 when anything was found.
import { parseArgs } from 'node:util'
import { privatePostgres } from '../test/support/private-postgres.js'
import { explore } from '../test/support/schedule-explorer.js'

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: String(Date.now() % 1_000_000) },
    seconds: { type: 'string', default: '60' },
    schedules: { type: 'string', default: String(Number.MAX_SAFE_INTEGER) },
    'crash-chance': { type: 'string', default: '0.005' },
    version: { type: 'string' },
    stop: { type: 'boolean', default: false },
  },
})
const seed = Number(values.seed)
const cluster = await privatePostgres()
try {
  const started = performance.now()
  const result = await explore({
    url: cluster.url,
    seed,
    ms: Number(values.seconds) * 1000,
    schedules: Number(values.schedules),
    crash: cluster.crash,
    crashChance: Number(values['crash-chance']),
    stopAtFirst: values.stop,
    ...(values.version !== undefined && { version: values.version }),
  })
  for (const finding of result.findings) {
    process.stdout.write(
      `schedule ${finding.schedule}: ${finding.problem}\n  ${finding.steps.join(', ')}\n`,
    )
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  process.stdout.write(
    `seed ${seed}, schema version ${values.version ?? 'newest'}: ${result.schedules} schedules, ` +
      `${result.steps} steps, ${result.crashes} crashes, ${result.committed} events committed, ` +
      `${result.findings.length} findings, in ${seconds} s\n`,
  )
  process.exitCode = result.findings.length > 0 ? 1 : 0
} finally {
  await cluster.remove()
}
