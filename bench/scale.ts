// The scale scenario: what a million tasks cost a store against a thousand, for the in-memory
// store (no DATABASE_URL) and for PostgreSQL (a database of its own per size). Start-up with the
// seed file, resident memory per task (memory store), and the rate, p50, p99 and the service's
// CPU per request of each write and of three pages; on PostgreSQL also what ten clients asking
// for deep pages do to the latency of GET /tugas/1 for others. The two services run one after
// the other, never at once, so neither takes CPU from the other's measurement; the load
// generator (wrk, else autocannon) still shares the cores with the service, so the cost ratios
// (same machine, same run) are the numbers to judge.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import {
  freshDatabase,
  p99Of,
  pidOf,
  SERVICE_ARGS,
  seedDocument,
  startServer,
  stop,
} from './servers.js'
import { cpuTicksOf, wrk, wrkProblem } from './wrk.js'

export type ScaleStore = 'memory' | 'postgres'

export interface ScaleSettings {
  /** Seconds of measured load per target. */
  duration: number
  /** Seconds of unmeasured load per target, just before its measurement. */
  warmup: number
  connections: number
  store: ScaleStore
}

const SMALL = 1000
const LARGE = 1_000_000
const START_UP_TARGET_MS = 5000
const BYTES_PER_TASK_TARGET = 200
/** 1k req/s over 1M req/s, for each write and each page. */
const COST_TARGET = 1.5
/**
 * Tasks each turn of writes creates, then deletes: the store stays between `count` and
 * `count + SLICE` tasks while its writes are measured.
 */
const SLICE = 5000
/** Short, so a slice of writes ends within 10 ms of autocannon's last answer. */
const SAMPLE_MS = 10
/** How long wrk may take for a slice of writes before the run fails. */
const SLICE_LIMIT_S = 120

const PAGE = '/tugas?halaman=2&batas=10&urut=-title'
/** Issue 23's deep page: the middle of 1M tasks' unfinished ones, past the end of 1k's. */
const DEEP_PAGE = '/tugas?halaman=50000&batas=10&urut=title&status=belum'
/** The clients asking for deep pages while others ask for one task (PostgreSQL). */
const DEEP_CLIENTS = 10
const ONE_TASK_CLIENTS = 2
/** The p99 of GET /tugas/1 those deep-page clients may bring it to, in ms. */
const BUSY_P99_TARGET_MS = 50
const POST_BODY = JSON.stringify({ title: 'Benchmark task', status: 'belum' })
const REMOVE = 'DELETE /tugas/<id>'

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE'

/** One request of a target: where to, and what with. */
interface Call {
  path: string
  body?: string
}

interface ScaleTarget {
  /** The same at both sizes: the table pairs them by it. */
  name: string
  method: Method
  expected: number
  /** Request n (from 0) of load number `round`: the same at every n for a fixed target. */
  call: (n: number, round: number) => Call
  /** wrk's Lua request() for the same requests as `call`; a varying target's only. */
  lua?: (round: number) => string
}

/** A Lua request() for wrk: `path` and `body` are Lua expressions of n, the request's number. */
const luaRequest = (path: string, body = 'nil') =>
  `request = function()\n  local n = number()\n  return wrk.format(nil, ${path}, nil, ${body})\nend`

interface Row {
  name: string
  rate: number
  p50: number
  p99: number
  /** The service's CPU per answer, in microseconds. */
  cpu: number
}

/** What one load measured. */
interface Measured {
  answers: number
  seconds: number
  p50: number
  p99: number
  cpu: number
}

/**
 * What the measured loads of one target add up to. wrk gives each load's percentiles, not its
 * times: over several loads (the slices of writes) p50 and p99 are their means, weighted by
 * answers.
 */
class Tally {
  answers = 0
  seconds = 0
  #weighted = { p50: 0, p99: 0, cpu: 0 }

  add(measured: Measured): void {
    this.answers += measured.answers
    this.seconds += measured.seconds
    for (const key of ['p50', 'p99', 'cpu'] as const) {
      this.#weighted[key] += measured[key] * measured.answers
    }
  }

  row(name: string): Row {
    const { p50, p99, cpu } = this.#weighted
    const per = (total: number) => total / this.answers
    return { name, rate: this.answers / this.seconds, p50: per(p50), p99: per(p99), cpu: per(cpu) }
  }
}

interface AtSize {
  startUpMs: number
  rssBytes: number
  rows: Row[]
  /** PostgreSQL: GET /tugas/1 alone, then beside DEEP_CLIENTS clients asking for deep pages. */
  busy?: { alone: Row; beside: Row; deep: Row }
}

const fixed = (name: string, method: Method, expected: number, request: Call): ScaleTarget => ({
  name,
  method,
  expected,
  call: () => request,
})

/** Every order, each unfiltered and with each status. */
function warmUpPaths(): string[] {
  const orders = ['id', 'title', 'status'].flatMap((field) => [field, `-${field}`])
  const filters = ['', '&status=belum', '&status=selesai']
  return orders.flatMap((order) =>
    filters.map((filter) => `/tugas?halaman=1&batas=10&urut=${order}${filter}`),
  )
}

async function send(url: string, method: Method, { path, body }: Call): Promise<Response> {
  const init: RequestInit = { method }
  if (body !== undefined) {
    init.body = body
    init.headers = { 'content-type': 'application/json' }
  }
  return fetch(url + path, init)
}

/** One request answered with `expected`, or the run fails with what came instead. */
async function expect(url: string, method: Method, request: Call, expected: number) {
  const response = await send(url, method, request)
  const text = await response.text()
  if (response.status !== expected) {
    throw new Error(
      `${method} ${request.path}: expected ${expected}, got ${response.status}: ${text.slice(0, 200)}`,
    )
  }
  return text
}

async function listMeta(url: string, path: string) {
  const page = JSON.parse(await expect(url, 'GET', { path }, 200)) as {
    data: { id: number }[]
    meta: { total: number; totalHalaman: number }
  }
  return { first: page.data[0], ...page.meta }
}

/** Resident memory of a process, from the kernel's own count. */
async function residentBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  const kilobytes = /^VmRSS:\s*(\d+)\s*kB$/m.exec(status)?.[1]
  if (kilobytes === undefined) throw new Error(`no VmRSS in /proc/${pid}/status`)
  return Number(kilobytes) * 1024
}

/** Microseconds in `ticks` of the clock /proc counts CPU time in (hundredths of a second). */
const microsOf = (ticks: number) => ticks * 1e4

/** Numbers every load, so that no two loads send the same PATCH. */
let rounds = 0

/**
 * One load of `target`, `seconds` long or of `amount` requests, added to `tally` when given.
 * Every answer must carry the expected status: one that does not fails the run, since its rate
 * would not be the rate of that target. Driven by wrk where it is installed, else by autocannon.
 */
async function load(
  url: string,
  target: ScaleTarget,
  length: { seconds: number; amount?: number },
  connections: number,
  tally?: Tally,
): Promise<void> {
  const round = rounds++
  const pid = pidOf(url)
  const { measured, wrong, errors } =
    wrkProblem() === undefined
      ? await wrkLoad({ url, target, round, length, connections, pid })
      : await autocannonLoad({ url, target, round, length, connections, pid })
  const amiss = Object.entries(wrong).map(([status, count]) => `${count} x ${status}`)
  if (amiss.length > 0 || errors > 0) {
    throw new Error(
      `${target.name}: answers other than ${target.expected}: ${amiss.join(', ') || 'none'}; ` +
        `${errors} errors (statuses of 400 and above, timeouts and socket errors included)`,
    )
  }
  if (length.amount !== undefined && measured.answers !== length.amount) {
    throw new Error(`${target.name}: ${measured.answers} answers of ${length.amount}`)
  }
  tally?.add(measured)
}

type Outcome = { measured: Measured; wrong: Record<string, number>; errors: number }

/** One load of `target` on the service at `url` (process `pid`), however it is driven. */
interface LoadOf {
  url: string
  target: ScaleTarget
  round: number
  length: { seconds: number; amount?: number }
  connections: number
  pid: number
}

async function wrkLoad({ url, target, round, length, connections, pid }: LoadOf): Promise<Outcome> {
  const { seconds, amount } = length
  // A varying target's script replaces this path and body on every request.
  const { path, body } = target.call(0, round)
  const result = await wrk(
    {
      url: url + path,
      method: target.method,
      ...(body !== undefined && { body }),
      connections,
      seconds: amount === undefined ? seconds : SLICE_LIMIT_S,
      expected: target.expected,
      ...(amount !== undefined && { amount }),
      ...(target.lua !== undefined && { script: target.lua(round) }),
    },
    [pid],
  )
  const { requests, rate, p50, p99, cpuPerRequest: cpu } = result
  const measured = { answers: requests, seconds: requests / rate, p50, p99, cpu }
  return { measured, wrong: result.unexpected, errors: result.errors }
}

/**
 * The time counted runs from the start to the last answer, so that what autocannon does after
 * it (waiting for its next sample) is not taken for the service's time.
 */
async function autocannonLoad(load: LoadOf): Promise<Outcome> {
  const { url, target, round, length, connections, pid } = load
  const { seconds, amount } = length
  const options: autocannon.Options = {
    url,
    connections,
    method: target.method,
    sampleInt: SAMPLE_MS,
    ...(amount === undefined ? { duration: seconds } : { amount }),
  }
  if (target.method === 'POST' || target.method === 'PATCH') {
    options.headers = { 'content-type': 'application/json' }
  }
  if (target.lua !== undefined) {
    let n = 0
    const setupRequest = (request: autocannon.Request) => ({
      ...request,
      ...target.call(n++, round),
    })
    options.requests = [{ method: target.method, setupRequest }]
  } else {
    const { path, body } = target.call(0, round)
    options.url = url + path
    if (body !== undefined) options.body = body
  }
  const statuses = new Map<number, number>()
  const times: number[] = []
  const before = await cpuTicksOf([pid])
  const began = performance.now()
  let lastAnswer = began
  const run = autocannon(options)
  run.on('response', (_client, status, _bytes, responseTime) => {
    lastAnswer = performance.now()
    statuses.set(status, (statuses.get(status) ?? 0) + 1)
    times.push(responseTime)
  })
  const result = await run
  const ticks = (await cpuTicksOf([pid])) - before
  const answers = statuses.get(target.expected) ?? 0
  const sorted = Float64Array.from(times).sort()
  const measured = {
    answers,
    seconds: (lastAnswer - began) / 1000,
    p50: sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN,
    p99: p99Of(times),
    cpu: microsOf(ticks) / answers,
  }
  statuses.delete(target.expected)
  return { measured, wrong: Object.fromEntries(statuses), errors: result.errors + result.timeouts }
}

/** Verifies, warms up and measures one target that leaves the number of tasks as it is. */
async function run(url: string, target: ScaleTarget, settings: ScaleSettings): Promise<Row> {
  process.stdout.write(`  ${target.name}: warming up, then measuring...\n`)
  await expect(url, target.method, target.call(0, rounds++), target.expected)
  await load(url, target, { seconds: settings.warmup }, settings.connections)
  const tally = new Tally()
  await load(url, target, { seconds: settings.duration }, settings.connections, tally)
  return tally.row(target.name)
}

/**
 * POST and DELETE, measured in turns: a slice of SLICE POSTs, then a slice of SLICE DELETEs of
 * exactly the tasks those POSTs created, until each has been measured for the duration. A run of
 * deletes needs as many existing ids as it sends requests (hundreds of thousands at these rates),
 * far more than the 1,000 seeded tasks; made by one burst of POSTs beforehand, they would have
 * the "1k" store measured at hundreds of thousands of tasks. In turns, the store stays between
 * `count` and `count + SLICE` tasks, and every DELETE names a task that exists (each id is sent
 * once, and the ids are checked after every slice). wrk has no amount of its own: bench/wrk.ts
 * gives each thread its share of the request numbers, and stops wrk once all are answered.
 */
async function writes(url: string, count: number, settings: ScaleSettings): Promise<Row[]> {
  process.stdout.write('  POST /tugas and DELETE /tugas/<id>: warming up, then measuring...\n')
  const post = fixed('POST /tugas', 'POST', 201, { path: '/tugas', body: POST_BODY })
  const made = JSON.parse(await expect(url, 'POST', post.call(0, 0), 201)) as { id: number }
  await expect(url, 'DELETE', { path: `/tugas/${made.id}` }, 204)
  // The store never gives an id twice: the next POST gets the one after.
  let nextId = made.id + 1
  /** The DELETEs of the SLICE tasks from id `first` on. */
  const remove = (first: number): ScaleTarget => ({
    name: REMOVE,
    method: 'DELETE',
    expected: 204,
    call: (n) => ({ path: `/tugas/${first + n}` }),
    lua: () => luaRequest(`"/tugas/" .. (${first} + n)`),
  })
  const slice = { seconds: SLICE_LIMIT_S, amount: SLICE }
  const turn = async (tallies?: [Tally, Tally]) => {
    const first = nextId
    await load(url, post, slice, settings.connections, tallies?.[0])
    await expectStore(url, count + SLICE, first + SLICE - 1)
    await load(url, remove(first), slice, settings.connections, tallies?.[1])
    await expectStore(url, count, undefined)
    nextId = first + SLICE
  }
  const warmUpEnd = performance.now() + settings.warmup * 1000
  while (performance.now() < warmUpEnd) await turn()
  const tallies: [Tally, Tally] = [new Tally(), new Tally()]
  while (tallies.some((tally) => tally.seconds < settings.duration)) await turn(tallies)
  return [tallies[0].row(post.name), tallies[1].row(REMOVE)]
}

/** The store holds `total` tasks, the newest of them with id `newest` when given. */
async function expectStore(url: string, total: number, newest: number | undefined) {
  const found = await listMeta(url, '/tugas?halaman=1&batas=1&urut=-id')
  if (found.total !== total || (newest !== undefined && found.first?.id !== newest)) {
    throw new Error(
      `expected ${total} tasks${newest === undefined ? '' : `, the newest ${newest}`}; ` +
        `found ${found.total}, the newest ${found.first?.id}`,
    )
  }
}

/** Middle pages of every order and filter, at batas 10 and 100: what the deep clients ask for. */
async function middlePages(url: string): Promise<string[]> {
  const paths: string[] = []
  for (const order of ['id', '-id', 'title', '-title', 'status', '-status']) {
    for (const filter of ['', '&status=belum', '&status=selesai']) {
      for (const batas of [10, 100]) {
        const list = `/tugas?batas=${batas}&urut=${order}${filter}`
        const { totalHalaman } = await listMeta(url, `${list}&halaman=1`)
        paths.push(`${list}&halaman=${Math.max(1, Math.round(totalHalaman / 2))}`)
      }
    }
  }
  return paths
}

/**
 * GET /tugas/1 from ONE_TASK_CLIENTS clients, alone, then while DEEP_CLIENTS clients ask for
 * middle pages of every order and filter as fast as they are answered (issue 23: deep pages
 * must not tie up the database for everyone else).
 */
async function busy(url: string, settings: ScaleSettings): Promise<NonNullable<AtSize['busy']>> {
  process.stdout.write(`  GET /tugas/1 alone, then beside ${DEEP_CLIENTS} deep-page clients...\n`)
  const one = fixed('GET /tugas/1', 'GET', 200, { path: '/tugas/1' })
  const paths = await middlePages(url)
  const deep: ScaleTarget = {
    name: 'middle pages',
    method: 'GET',
    expected: 200,
    call: (n) => ({ path: paths[n % paths.length] as string }),
    lua: () =>
      `local paths = {${paths.map((path) => JSON.stringify(path)).join(', ')}}\n` +
      luaRequest('paths[n % #paths + 1]'),
  }
  const alone = new Tally()
  await load(url, one, { seconds: settings.warmup }, ONE_TASK_CLIENTS)
  await load(url, one, { seconds: settings.duration }, ONE_TASK_CLIENTS, alone)
  const beside = new Tally()
  const pages = new Tally()
  const pid = pidOf(url)
  const before = await cpuTicksOf([pid])
  await Promise.all([
    load(url, deep, { seconds: settings.duration }, DEEP_CLIENTS, pages),
    load(url, one, { seconds: settings.duration }, ONE_TASK_CLIENTS, beside),
  ])
  // The two loads ran at once: the service's CPU is theirs together, per answer of either.
  const both = microsOf((await cpuTicksOf([pid])) - before) / (pages.answers + beside.answers)
  return {
    alone: alone.row('GET /tugas/1 alone'),
    beside: { ...beside.row(`GET /tugas/1 beside ${DEEP_CLIENTS} deep-page clients`), cpu: both },
    deep: {
      ...pages.row(`middle pages (${paths.length} kinds) from ${DEEP_CLIENTS} clients`),
      cpu: both,
    },
  }
}

/** The service seeded with `count` tasks: its start-up, its memory, and every target's load. */
async function atSize(count: number, dir: string, settings: ScaleSettings): Promise<AtSize> {
  const postgres = settings.store === 'postgres'
  const label = count === SMALL ? '1k' : '1M'
  const seedFile = join(dir, `seed-${count}.json`)
  let began = performance.now()
  await writeFile(seedFile, seedDocument(count))
  process.stdout.write(
    `scale ${label}: seed file of ${count} tasks written in ${Math.round(performance.now() - began)} ms\n`,
  )

  began = performance.now()
  const service = startServer(SERVICE_ARGS, {
    PORT: '0',
    HOST: '127.0.0.1',
    SEED_FILE: seedFile,
    LOG_LEVEL: 'info',
    // On PostgreSQL a database of its own, made anew; otherwise the in-memory store, even where
    // the caller's environment names a database (an undefined value is left out).
    DATABASE_URL: postgres ? await freshDatabase(`tugas_scale_${label.toLowerCase()}`) : undefined,
  })
  try {
    const url = await service.url
    const startUpMs = performance.now() - began
    await rm(seedFile, { force: true })

    for (const path of warmUpPaths()) await expect(url, 'GET', { path }, 200)
    const pid = service.child.pid
    if (pid === undefined) throw new Error('the service has no pid')
    const rssBytes = await residentBytes(pid)
    process.stdout.write(
      `scale ${label}: listening after ${Math.round(startUpMs)} ms; ` +
        `${(rssBytes / 2 ** 20).toFixed(1)} MiB resident after the warm-up\n`,
    )

    const belum = await listMeta(url, '/tugas?halaman=1&batas=10&urut=title&status=belum')
    const deep = Math.max(1, Math.round(belum.totalHalaman / 2))
    // Seeded ids only: the deletes take none of them. The titles differ from load to load, so
    // that no PATCH writes the title a row already has.
    const patch: ScaleTarget = {
      name: 'PATCH /tugas/<id> (title)',
      method: 'PATCH',
      expected: 200,
      call: (n, round) => ({
        path: `/tugas/${(n % count) + 1}`,
        body: JSON.stringify({ title: `renamed ${round}.${n}` }),
      }),
      lua: (round) =>
        luaRequest(`"/tugas/" .. (n % ${count} + 1)`, `'{"title":"renamed ${round}.' .. n .. '"}'`),
    }
    const rows: Row[] = []
    for (const target of [
      fixed(`GET ${PAGE}`, 'GET', 200, { path: PAGE }),
      fixed(`GET ${DEEP_PAGE}`, 'GET', 200, { path: DEEP_PAGE }),
      fixed('GET /tugas?halaman=<half>&batas=10&urut=title&status=belum', 'GET', 200, {
        path: `/tugas?halaman=${deep}&batas=10&urut=title&status=belum`,
      }),
      patch,
    ]) {
      rows.push(await run(url, target, settings))
    }
    rows.push(...(await writes(url, count, settings)))
    return { startUpMs, rssBytes, rows, ...(postgres && { busy: await busy(url, settings) }) }
  } finally {
    await stop(service.child)
    await rm(seedFile, { force: true })
  }
}

function printTable(small: AtSize, large: AtSize, store: ScaleStore): void {
  const met = (ok: boolean) => (ok ? 'yes' : 'NO')
  const ms = (value: number) => value.toFixed(2)
  const cpu = (one: Row, other: Row) => ({
    'CPU/req 1k (µs)': one.cpu.toFixed(1),
    'CPU/req 1M (µs)': other.cpu.toFixed(1),
  })
  const rows: Record<string, string | number>[] = small.rows.map((row) => {
    const atLarge = large.rows.find((other) => other.name === row.name) as Row
    const cost = row.rate / atLarge.rate
    return {
      measure: `${row.name}, req/s`,
      '1k': Math.round(row.rate),
      '1M': Math.round(atLarge.rate),
      result: `cost ${cost.toFixed(2)}`,
      target: `cost <= ${COST_TARGET}`,
      met: met(cost <= COST_TARGET),
      'p50 1k (ms)': ms(row.p50),
      'p50 1M (ms)': ms(atLarge.p50),
      'p99 1k (ms)': ms(row.p99),
      'p99 1M (ms)': ms(atLarge.p99),
      ...cpu(row, atLarge),
    }
  })
  rows.push({
    measure: 'start-up to listening, ms',
    '1k': Math.round(small.startUpMs),
    '1M': Math.round(large.startUpMs),
    result: `${(large.startUpMs / 1000).toFixed(2)} s at 1M`,
    ...(store === 'memory' && {
      target: `< ${START_UP_TARGET_MS / 1000} s at 1M`,
      met: met(large.startUpMs < START_UP_TARGET_MS),
    }),
  })
  const perTask = (large.rssBytes - small.rssBytes) / (LARGE - SMALL)
  if (store === 'memory') {
    rows.push({
      measure: 'resident memory after warm-up, MiB',
      '1k': (small.rssBytes / 2 ** 20).toFixed(1),
      '1M': (large.rssBytes / 2 ** 20).toFixed(1),
      result: `${Math.round(perTask)} bytes/task`,
      target: `<= ${BYTES_PER_TASK_TARGET} bytes/task`,
      met: met(perTask <= BYTES_PER_TASK_TARGET),
    })
  }
  for (const pick of ['alone', 'beside', 'deep'] as const) {
    const [one, other] = [small.busy?.[pick], large.busy?.[pick]]
    if (one === undefined || other === undefined) continue
    rows.push({
      measure: `${one.name}, req/s`,
      '1k': Math.round(one.rate),
      '1M': Math.round(other.rate),
      result: `p99 ${ms(other.p99)} ms at 1M`,
      ...(pick === 'beside' && {
        target: `p99 <= ${BUSY_P99_TARGET_MS} ms`,
        met: met(other.p99 <= BUSY_P99_TARGET_MS),
      }),
      'p50 1k (ms)': ms(one.p50),
      'p50 1M (ms)': ms(other.p50),
      'p99 1k (ms)': ms(one.p99),
      'p99 1M (ms)': ms(other.p99),
      ...cpu(one, other),
    })
  }
  const name = store === 'memory' ? 'in-memory store' : 'PostgreSQL'
  console.log(
    `\nScale, ${name}, ${SMALL} vs ${LARGE} tasks (cost = 1k req/s / 1M req/s; CPU/req: ` +
      `the service's` +
      (store === 'memory'
        ? '; bytes/task = (RSS at 1M - RSS at 1k) / 999,000):'
        : '; beside the deep-page clients, of both loads together):'),
  )
  console.table(rows)
  if (store === 'memory') console.log(`bytes per task: ${perTask.toFixed(1)}`)
}

/**
 * The scale scenario, on the service built in dist/: 1,000 tasks, then 1,000,000, then the table
 * comparing them, for the store `settings.store` names.
 */
export async function runScale(settings: ScaleSettings): Promise<void> {
  const name = settings.store === 'memory' ? 'in-memory store' : 'PostgreSQL'
  console.log(
    `\nScale scenario: ${name} at ${SMALL} and at ${LARGE} tasks, one service at a time; ` +
      `${settings.connections} connections, ${settings.warmup} s warm-up + ` +
      `${settings.duration} s per target; load from ` +
      (wrkProblem() === undefined ? 'wrk (2 threads).' : `autocannon (${wrkProblem()}).`),
  )
  const dir = await mkdtemp(join(os.tmpdir(), 'tugas-bench-scale-'))
  try {
    const small = await atSize(SMALL, dir, settings)
    const large = await atSize(LARGE, dir, settings)
    printTable(small, large, settings.store)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
