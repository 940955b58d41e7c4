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
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  body?: string
  headers?: Record<string, string>
  connections: number
  /** How long the load runs; with `amount`, only how long it may run. */
  seconds: number
  /**
   * Lua defining `request()` instead of one fixed request; its `number()` gives the request's
   * number in the load, never the same on two threads.
   */
  script?: string
  /** Every answer should have this status; the others are counted (`unexpected`). */
  expected?: number
  /** Ends after this many answers: each `number()` from 0 to amount - 1 is then sent once. */
  amount?: number
}

export interface Measured {
  requests: number
  /** Requests per second over the run. */
  rate: number
  /** The median and the 99th percentile of response times, in milliseconds. */
  p50: number
  p99: number
  /** Answers with a status of 400 or more, and socket errors (timeouts included). */
  errors: number
  /** How many answers had each status other than `expected`. */
  unexpected: Record<string, number>
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
    const threads = Math.min(THREADS, load.connections, load.amount ?? THREADS)
    await writeFile(script, luaOf(load, threads))
    const before = await cpuTicksOf(pids)
    const output = await run(
      'wrk',
      [
        `-t${threads}`,
        `-c${load.connections}`,
        `-d${load.seconds}s`,
        '--timeout',
        '10s',
        '-s',
        script,
        load.url,
      ],
      load.amount === undefined ? undefined : threads,
    )
    const ticks = (await cpuTicksOf(pids)) - before
    const line = output.split('\n').find((text) => text.startsWith('TUGAS_BENCH '))
    if (line === undefined) throw new Error(`wrk printed no result:\n${output}`)
    const summary = JSON.parse(line.slice('TUGAS_BENCH '.length)) as {
      requests: number
      micros: number
      errors: number
      p50: number
      p99: number
      unexpected: Record<string, number>
    }
    return {
      requests: summary.requests,
      rate: summary.requests / (summary.micros / 1e6),
      p50: summary.p50 / 1000,
      p99: summary.p99 / 1000,
      errors: summary.errors,
      unexpected: summary.unexpected,
      cpuPerRequest:
        summary.requests === 0 ? Number.NaN : (ticks / TICKS_PER_SECOND / summary.requests) * 1e6,
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

const lua = (text: string) => JSON.stringify(text)

function luaOf(load: Load, threads: number): string {
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
  // setup() and done() run in wrk's main Lua state, the rest in each thread's own.
  lines.push(`
local threads, made, sent, answered = {}, 0, 0, 0
local amount = ${load.amount ?? 'nil'}
wrong = {}
setup = function(thread)
  table.insert(threads, thread)
  thread:set("index", #threads - 1)
end
init = function()
  -- Thread i sends the numbers i, i + ${threads}, i + ${2 * threads}, ... (below amount, if any).
  share = amount and math.floor((amount - index + ${threads - 1}) / ${threads}) or math.huge
  if not amount then sent = math.huge end
end
function number()
  -- wrk calls request() once before the run to check it, and sends nothing: with an amount,
  -- a number is only taken for a send that delay() let through.
  if made < sent then made = made + 1 end
  return index + (made - 1) * ${threads}
end`)
  if (load.amount !== undefined) {
    lines.push(`
delay = function()
  -- Its share sent, a connection waits until every thread has its answers (wrk is stopped).
  if sent == share then return 3600000 end
  sent = sent + 1
  return 0
end`)
  }
  if (load.expected !== undefined || load.amount !== undefined) {
    const check = `if status ~= ${load.expected} then wrong[status] = (wrong[status] or 0) + 1 end`
    lines.push(`
response = function(status)
  ${load.expected === undefined ? '' : check}
  answered = answered + 1
  if answered == share then
    io.write("${THREAD_DONE}\\n")
    io.flush()
    wrk.thread:stop()
  end
end`)
  }
  // One line the bench parses, whatever wrk's own report looks like.
  lines.push(`
done = function(summary, latency, requests)
  local e, wrong, found = summary.errors, {}, {}
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("wrong")) do wrong[status] = (wrong[status] or 0) + count end
  end
  for status, count in pairs(wrong) do table.insert(found, string.format('"%d":%d', status, count)) end
  io.write(string.format(
    'TUGAS_BENCH {"requests":%d,"micros":%d,"errors":%d,"p50":%d,"p99":%d,"unexpected":{%s}}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50), latency:percentile(99), table.concat(found, ",")))
end`)
  return lines.join('\n')
}

/** What a thread of a load with an amount prints once it has its share of answers. */
const THREAD_DONE = 'TUGAS_THREAD_DONE'

/**
 * Runs `command` and resolves with its output. With `threads`, once that many threads have
 * printed THREAD_DONE, SIGINT ends wrk's run (which otherwise waits out its duration) at once;
 * wrk counts the run's time to that signal. Sent again each second: wrk ignores SIGINT for the
 * moment it takes to start its threads.
 */
function run(command: string, args: string[], threads?: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] })
    let output = ''
    let timer: NodeJS.Timeout | undefined
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8')
      if (timer === undefined && output.split(THREAD_DONE).length - 1 === threads) {
        child.kill('SIGINT')
        timer = setInterval(() => child.kill('SIGINT'), 1000)
      }
    })
    child.once('error', reject)
    child.once('exit', (code) => {
      clearInterval(timer)
      if (code === 0) resolve(output)
      else reject(new Error(`${command} exited with ${code}: ${output}`))
    })
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
