// /openapi.json passes both OpenAPI linters with their stock rule sets, with no problem of any
// severity, in every configuration that changes it: Spectral's `spectral:oas` and Redocly's
// `recommended`. The documents of all configurations are linted together, one run of each CLI.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { testApp } from '../../support/helpers.js'
import { EVERY_VARIANT as COMBOS, type Variants as Combo } from '../../support/variants.js'

const run = promisify(execFile)

const BIN = fileURLToPath(new URL('../../../node_modules/.bin/', import.meta.url))

const nameOf = (combo: Combo) => Object.values(combo).join('-')

/** A problem as either linter reports it, reduced to what a failure message needs. */
interface Problem {
  file: string
  rule: string
  severity: string
  where: string
  message: string
}

const SPECTRAL_SEVERITIES = ['error', 'warn', 'info', 'hint']

async function spectral(directory: string, files: string[]): Promise<Problem[]> {
  const ruleset = join(directory, 'ruleset.json')
  await writeFile(ruleset, JSON.stringify({ extends: ['spectral:oas'] }))
  const output = join(directory, 'spectral.json')
  // Exit status 1 means errors were found: the report says which, so it is read either way.
  await run(
    join(BIN, 'spectral'),
    ['lint', '--ruleset', ruleset, '--format', 'json', '--output', output, ...files],
    { maxBuffer: 64 * 1024 * 1024 },
  ).catch((error: { code?: unknown }) => {
    if (error.code !== 1) throw error
  })
  const results = JSON.parse(await readFile(output, 'utf8')) as {
    code: string
    severity: number
    path: string[]
    message: string
    source?: string
  }[]
  return results.map((result) => ({
    file: result.source ?? '?',
    rule: `spectral ${result.code}`,
    severity: SPECTRAL_SEVERITIES[result.severity] ?? String(result.severity),
    where: result.path.join('.'),
    message: result.message,
  }))
}

interface RedoclyReport {
  totals: { errors: number; warnings: number }
  problems: {
    ruleId: string
    severity: string
    message: string
    location: { pointer?: string; source?: { ref?: string } }[]
  }[]
}

async function redocly(files: string[]): Promise<Problem[]> {
  // Exit status 1 means errors were found: the report says which, so it is read either way.
  const { stdout } = await run(
    join(BIN, 'redocly'),
    ['lint', '--extends', 'recommended', '--format', 'json', ...files],
    { maxBuffer: 64 * 1024 * 1024 },
  ).catch((error: { code?: unknown; stdout?: string }) => {
    if (error.code !== 1 || error.stdout === undefined) throw error
    return { stdout: error.stdout }
  })
  // One JSON report per file, in the order given, printed one after the other.
  const reports = JSON.parse(`[${stdout.trim().replace(/\}\s*\{(?=\s*"totals")/g, '},{')}]`)
  assert.equal(reports.length, files.length, `one Redocly report per file: ${stdout}`)
  return (reports as RedoclyReport[]).flatMap((report, at) => [
    ...report.problems.map((problem) => ({
      file: files[at] as string,
      rule: `redocly ${problem.ruleId}`,
      severity: problem.severity,
      where: problem.location.map((location) => location.pointer ?? '').join(' '),
      message: problem.message,
    })),
    // A count without its problem listed would otherwise pass unseen.
    ...(report.totals.errors + report.totals.warnings > report.problems.length
      ? [
          {
            file: files[at] as string,
            rule: 'redocly',
            severity: '?',
            where: '',
            message: 'unlisted',
          },
        ]
      : []),
  ])
}

describe('GET /openapi.json passes Spectral (spectral:oas) and Redocly (recommended)', () => {
  let directory: string
  const files = new Map<string, string>()

  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'tugas-openapi-lint-'))
    for (const combo of COMBOS) {
      const app = await testApp({ config: combo, closedBy: 'caller' })
      try {
        const response = await app.inject({ method: 'GET', url: '/openapi.json' })
        assert.equal(response.statusCode, 200)
        const file = join(directory, `${nameOf(combo)}.json`)
        await writeFile(file, response.body)
        files.set(nameOf(combo), file)
      } finally {
        await app.close()
      }
    }
  })
  after(() => rm(directory, { recursive: true, force: true }))

  const problemsOf = (found: Problem[]) =>
    found.map((p) => `${p.file}: ${p.rule} (${p.severity}) at ${p.where}: ${p.message}`).join('\n')

  test('Spectral reports nothing, of any severity, in any configuration', async () => {
    const found = await spectral(directory, [...files.values()])
    assert.equal(found.length, 0, `Spectral problems:\n${problemsOf(found)}`)
  })

  test('Redocly reports nothing, of any severity, in any configuration', async () => {
    const found = await redocly([...files.values()])
    assert.equal(found.length, 0, `Redocly problems:\n${problemsOf(found)}`)
  })
})
