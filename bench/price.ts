// The price of events (issue 39): what the service's writes cost on the memory store with no
// stream open and no webhook, driven by wrk and judged by the CPU the service process spends
// per request, against the same requests on another build (BENCH_BEFORE: a checkout with its
// dist/ built, such as the commit before the change feed) in the same run, A B B A.
import type { ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, SERVICE_ARGS, startQuietServer, stop } from './servers.js'
import { type Measured, wrk, wrkProblem } from './wrk.js'

export interface PriceSettings {
  duration: number
  warmup: number
  connections: number
}

interface Target {
  name: string
  method?: 'POST'
  path: string
  body?: string
  /** The log level the service runs at: info is the production default, warn logs no request. */
  logLevel: 'info' | 'warn'
}

const json = JSON.stringify
const TARGETS: Target[] = [
  { name: 'GET /tugas/1', path: '/tugas/1', logLevel: 'info' },
  {
    name: 'POST /tugas',
    method: 'POST',
    path: '/tugas',
    body: json({ title: 'Benchmark task', status: 'belum' }),
    logLevel: 'info',
  },
  {
    name: 'POST /tugas (LOG_LEVEL=warn)',
    method: 'POST',
    path: '/tugas',
    body: json({ title: 'Benchmark task', status: 'belum' }),
    logLevel: 'warn',
  },
  {
    name: 'POST /api/tugas',
    method: 'POST',
    path: '/api/tugas',
    body: json({ judul: 'Benchmark task' }),
    logLevel: 'info',
  },
  {
    name: 'POST /todos',
    method: 'POST',
    path: '/todos',
    body: json({ title: 'Bench' }),
    logLevel: 'info',
  },
  {
    name: 'POST /pesanan',
    method: 'POST',
    path: '/pesanan',
    body: json({ email: 'bench@contoh.id', jumlah: 1 }),
    logLevel: 'info',
  },
]

interface Build {
  label: string
  args: string[]
}

/** The builds measured: this checkout's, and BENCH_BEFORE's where it is set. */
function builds(): Build[] {
  const now: Build = { label: 'now', args: SERVICE_ARGS }
  const before = process.env.BENCH_BEFORE
  if (before === undefined || before === '') return [now]
  const main = join(before, 'dist/main.js')
  if (!existsSync(main)) throw new Error(`BENCH_BEFORE=${before}: no dist/main.js (build it first)`)
  const args = SERVICE_ARGS.map((arg) => (arg === join(ROOT, 'dist/main.js') ? main : arg))
  return [{ label: `before (${before})`, args }, now]
}

export async function runPrice(settings: PriceSettings): Promise<void> {
  const problem = wrkProblem()
  if (problem !== undefined) {
    console.log(`\n*** price of events SKIPPED: ${problem} ***`)
    return
  }
  const list = builds()
  console.log(
    `\nThe price of events: memory store, no stream, no webhook; wrk, ${settings.connections}` +
      ` connections, ${settings.duration} s per round, builds in turn (A B B A).`,
  )
  if (list.length === 1) console.log('(BENCH_BEFORE unset: this build only.)')
  const rows: { target: string; build: string; rounds: Measured[] }[] = []
  for (const target of TARGETS) {
    const order = list.length === 1 ? list : [list[0], list[1], list[1], list[0]]
    const rounds = new Map<Build, Measured[]>(list.map((build) => [build, []]))
    for (const build of order as Build[]) {
      // A fresh service per round: every create adds a task, and the builds start equal.
      const children: ChildProcess[] = []
      try {
        const started = await startQuietServer(build.args, {
          HOST: '127.0.0.1',
          LOG_LEVEL: target.logLevel,
        })
        children.push(started.child)
        const url = (await started.url) + target.path
        const load = {
          url,
          connections: settings.connections,
          ...(target.method && { method: target.method }),
          ...(target.body !== undefined && { body: target.body }),
        }
        const pid = started.child.pid as number
        await wrk({ ...load, seconds: settings.warmup }, [pid])
        const measured = await wrk({ ...load, seconds: settings.duration }, [pid])
        if (measured.errors > 0) {
          console.error(`  ! ${target.name} (${build.label}): ${measured.errors} errors`)
          process.exitCode = 1
        }
        rounds.get(build)?.push(measured)
      } finally {
        await Promise.all(children.map(stop))
      }
    }
    for (const build of list) {
      rows.push({ target: target.name, build: build.label, rounds: rounds.get(build) ?? [] })
    }
  }
  printPrice(rows, list)
}

function printPrice(rows: { target: string; build: string; rounds: Measured[] }[], list: Build[]) {
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length
  const table = rows.map(({ target, build, rounds }) => {
    const base = rows.find((row) => row.target === target && row.build === list[0]?.label)
    const cpu = mean(rounds.map((round) => round.cpuPerRequest))
    const baseCpu = base === undefined ? cpu : mean(base.rounds.map((round) => round.cpuPerRequest))
    return {
      target,
      build,
      'req/s (each round)': rounds.map((round) => Math.round(round.rate)).join(', '),
      'CPU us/req (each round)': rounds.map((round) => round.cpuPerRequest.toFixed(1)).join(', '),
      'CPU vs first build': (cpu / baseCpu).toFixed(2),
      'p99 ms': mean(rounds.map((round) => round.p99)).toFixed(2),
    }
  })
  console.table(table)
}
