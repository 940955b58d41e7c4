// One measured load driven by wrk (Debian's `wrk`, a load generator written in C), with the CPU
// the service's processes spent on it: a generator that parses answers in JavaScript on the same
// two cores (autocannon) charged its own parsing to whatever server it measured.
import { spawn, spawnSync } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import { join } from 'node:path'

export interface Load {
  /** Base URL and path. */
  url: string
  method?: 'GET' | 'POST' | 'PUT'
  body?: string
  headers?: Record<string, string>
  connections: number
  seconds: number
  /** A Lua `request()` body instead of one fixed request (see requestsOf). */
  script?: string
}

export interface Measured {
  requests: number
  /** Requests per second over the run. */
  rate: number
  /** The 99th percentile of response times, in milliseconds. */
  p99: number
  /** Answers with a status of 400 or more, and socket errors (timeouts included). */
  errors: number
  /** CPU (user and system) the measured processes spent per answered request, in microseconds. */
  cpuPerRequest: number
}

/** Whether wrk can be run here; the bench says how to install it where not. */
export function wrkProblem(): string | undefined {
  const found = spawnSync('wrk', ['--version'], { encoding: 'utf8' })
  return found.error === undefined
    ? undefined
    : 'wrk is not installed (Debian: apt-get install wrk; docs/development.md#benchmark)'
}

const THREADS = 2
const TICKS_PER_SECOND = 100

/**
 * Runs `load` with wrk and measures the CPU of the processes `pids` and all their descendants
 * (a service with WORKERS, say) over the same span, from /proc.
 */
export async function wrk(load: Load, pids: number[]): Promise<Measured> {
  const dir = await mkdtemp(join(os.tmpdir(), 'tugas-wrk-'))
  try {
    const script = join(dir, 'load.lua')
    await writeFile(script, luaOf(load))
    const before = await cpuTicksOf(pids)
    const output = await run('wrk', [
      `-t${Math.min(THREADS, load.connections)}`,
      `-c${load.connections}`,
      `-d${load.seconds}s`,
      '--timeout',
      '10s',
      '-s',
      script,
      load.url,
    ])
    const ticks = (await cpuTicksOf(pids)) - before
    const line = output.split('\n').find((text) => text.startsWith('TUGAS_BENCH '))
    if (line === undefined) throw new Error(`wrk printed no result:\n${output}`)
    const summary = JSON.parse(line.slice('TUGAS_BENCH '.length)) as {
      requests: number
      micros: number
      errors: number
      p99: number
    }
    return {
      requests: summary.requests,
      rate: summary.requests / (summary.micros / 1e6),
      p99: summary.p99 / 1000,
      errors: summary.errors,
      cpuPerRequest:
        summary.requests === 0 ? Number.NaN : (ticks / TICKS_PER_SECOND / summary.requests) * 1e6,
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

const lua = (text: string) => JSON.stringify(text)

function luaOf(load: Load): string {
  const lines = [`wrk.method = ${lua(load.method ?? 'GET')}`]
  if (load.body !== undefined) lines.push(`wrk.body = ${lua(load.body)}`)
  const headers: Record<string, string> = {
    ...(load.body === undefined ? {} : { 'content-type': 'application/json' }),
    ...load.headers,
  }
  for (const [name, value] of Object.entries(headers)) {
    lines.push(`wrk.headers[${lua(name)}] = ${lua(value)}`)
  }
  if (load.script !== undefined) lines.push(load.script)
  // One line the bench parses, whatever wrk's own report looks like.
  lines.push(`
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('TUGAS_BENCH {"requests":%d,"micros":%d,"errors":%d,"p99":%d}\\n',
    summary.requests, summary.duration,
    e.connect + e.read + e.write + e.status + e.timeout, latency:percentile(99)))
end`)
  return lines.join('\n')
}

function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8')
    })
    child.once('error', reject)
    child.once('exit', (code) =>
      code === 0 ? resolve(output) : reject(new Error(`${command} exited with ${code}: ${output}`)),
    )
  })
}

/** User and system clock ticks of `pids` and every process descended from them. */
export async function cpuTicksOf(pids: number[]): Promise<number> {
  const stats = new Map<number, { parent: number; ticks: number }>()
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const text = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => undefined)
    if (text === undefined) continue
    // The command name may hold spaces and parentheses: the fields start after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
    stats.set(Number(name), {
      parent: Number(fields[1]),
      ticks: Number(fields[11]) + Number(fields[12]),
    })
  }
  const wanted = new Set(pids)
  let total = 0
  // Parents are listed before children only by accident; repeat until nothing is added.
  for (let added = true; added; ) {
    added = false
    for (const [pid, { parent }] of stats) {
      if (!wanted.has(pid) && wanted.has(parent)) {
        wanted.add(pid)
        added = true
      }
    }
  }
  for (const pid of wanted) total += stats.get(pid)?.ticks ?? 0
  return total
}
