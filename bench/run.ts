// Throughput, tail latency and CPU per request of the built service against a bare node:http
// server, on the same machine in the same run, so the ratio says what the service costs on top
// of Node itself.
//
// Caveats, also printed with the results:
// - The load generator (wrk, or autocannon where wrk is missing) shares the two cores with the
//   servers, so absolute numbers are low; compare the ratios, and the CPU per request, which
//   the generator's own cost does not move.
// - The service logs at info, its production default: one JSON line per request on stdout,
//   which this process reads and throws away. The bare server logs nothing.
import type { ChildProcess } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import { join } from 'node:path'
import type autocannon from 'autocannon'
import { runEvents } from './events.js'
import { measuredLoad } from './load.js'
import { runPrice } from './price.js'
import { runScale, type ScaleStore } from './scale.js'
import {
  freshDatabase,
  postgresProblem,
  ROOT,
  SERVICE_ARGS,
  seedDocument,
  startQuietServer,
  startServer,
  stop,
} from './servers.js'
import { runWebhooks } from './webhooks.js'
import { runWorkers } from './workers.js'
import { wrkProblem } from './wrk.js'

const DURATION = Number(process.env.BENCH_DURATION ?? 10)
const WARMUP = 2
const CONNECTIONS = 10
const SEED_TASKS = 10_000
const POOL_SIZE = '10'
const PAGE = '/tugas?halaman=2&batas=10&urut=-title'

type Server =
  | 'bare'
  | 'bare, security headers'
  | 'service'
  | 'service, warn'
  | 'fastify'
  | 'fastify, contract'
  | 'fastify, store'
  | 'fastify, beside the service'
  | 'pg service'
  | 'pg reference'
  | 'pg reference, prepared'
  | 'pg reference, events'
  | 'pg reference, contract'

interface Target {
  name: string
  server: Server
  path: string
  expected: number
  method?: 'POST'
  body?: string
  headers?: Record<string, string>
  /** Headers its answer must carry, checked before it is measured. */
  answerHeaders?: Record<string, string>
  /** The row the ratios are taken against; the first bare row when left out. */
  base?: string
  /** Measured at once, without a warm-up: what follows the target before it. */
  cold?: true
}

const BARE: Target = { name: 'bare node:http GET /', server: 'bare', path: '/', expected: 200 }
/**
 * The same with the two headers of every credentialed answer (nosniff, no-store): what they
 * cost here on their own, most of it the load generator's, which parses every answer in
 * JavaScript on the same cores. Measured in turn with the bare row (A B B A).
 */
const BARE_SECURITY_HEADERS: Target = {
  ...BARE,
  name: 'bare node:http GET /, with the two security headers',
  server: 'bare, security headers',
  answerHeaders: { 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' },
}

// Order matters: every POST creates a task, so the list is measured before any POST load (the
// one verifying POST below adds one task), on the 10,000 seeded tasks.
const targets: Target[] = [
  ...[BARE, BARE_SECURITY_HEADERS, BARE_SECURITY_HEADERS, BARE],
  { name: 'GET /tugas/1', server: 'service', path: '/tugas/1', expected: 200 },
  {
    name: 'GET /tugas?halaman=2&batas=10&urut=-title',
    server: 'service',
    path: '/tugas?halaman=2&batas=10&urut=-title',
    expected: 200,
  },
  {
    name: 'POST /tugas',
    server: 'service',
    path: '/tugas',
    expected: 201,
    method: 'POST',
    body: JSON.stringify({ title: 'Benchmark task', status: 'belum' }),
  },
  {
    // Surface D's access path: credential lookup (digest + constant-time compares), role
    // policy, id, existence, ownership.
    name: 'GET /dokumen/1 (Bearer)',
    server: 'service',
    path: '/dokumen/1',
    expected: 200,
    headers: { authorization: 'Bearer demo-budi-token' },
    answerHeaders: BARE_SECURITY_HEADERS.answerHeaders,
  },
  {
    name: 'POST /pesanan',
    server: 'service',
    path: '/pesanan',
    expected: 201,
    method: 'POST',
    body: JSON.stringify({ email: 'bench@contoh.id', jumlah: 1 }),
  },
]

const POST_TASK = JSON.stringify({ title: 'Benchmark task', status: 'belum' })

const BARE_BESIDE_WARN = 'bare node:http GET / (beside the warn targets)'

/**
 * Issue 13's hot-path targets are at LOG_LEVEL=warn (no request log line): the same two
 * requests on a service started that way, after the info targets. They are judged against the
 * bare server measured beside them, in turn (bare, GET, POST, POST, GET, bare): the machine's
 * speed drifts over a run by more than the margins these targets are judged by.
 */
const [bareBesideWarn, getWarn, postWarn] = [
  { name: BARE_BESIDE_WARN, server: 'bare', path: '/', expected: 200 },
  {
    name: 'GET /tugas/1 (LOG_LEVEL=warn)',
    server: 'service, warn',
    path: '/tugas/1',
    expected: 200,
    base: BARE_BESIDE_WARN,
  },
  {
    name: 'POST /tugas (LOG_LEVEL=warn)',
    server: 'service, warn',
    path: '/tugas',
    expected: 201,
    method: 'POST',
    body: JSON.stringify({ title: 'Benchmark task', status: 'belum' }),
    base: BARE_BESIDE_WARN,
  },
] as const satisfies Target[]
/**
 * The same two requests on the two Fastify references (fastify-reference.mjs): bare Fastify, and
 * Fastify with only what each answer of the contract needs (contract-minimum.mjs). They
 * show how much of the distance to the bare node:http server is Fastify's own.
 */
const reference = (
  server: 'fastify' | 'fastify, contract' | 'fastify, store',
  label: string,
): Target[] => [
  { ...getWarn, name: `${label} GET /tugas/1`, server },
  { ...postWarn, name: `${label} POST /tugas`, server },
]
const [fastifyGet, fastifyPost] = reference('fastify', 'bare Fastify') as [Target, Target]
const [contractGet, contractPost] = reference(
  'fastify, contract',
  'Fastify + logger, id, nosniff, ETag',
) as [Target, Target]
/** The contract's minimum with the service's memory store: what a create must do there. */
const [storeGet, storePost] = reference(
  'fastify, store',
  'Fastify + logger, id, nosniff, ETag, memory store',
) as [Target, Target]
/**
 * The contract's minimum in a process that has also built the whole service, which answers
 * none of these requests: how much of the service's distance to the minimum comes with holding
 * it (its code, its data, what its start-up taught V8), whatever it does per request.
 */
const besideGet: Target = {
  ...getWarn,
  name: 'Fastify + logger, id, nosniff, ETag, beside the built service, GET /tugas/1',
  server: 'fastify, beside the service',
}
const warnTargets: Target[] = [
  ...[bareBesideWarn, fastifyGet, contractGet, besideGet, storeGet, getWarn],
  ...[postWarn, storePost, contractPost, fastifyPost],
  ...[fastifyPost, contractPost, storePost, postWarn],
  ...[getWarn, storeGet, besideGet, contractGet, fastifyGet, bareBesideWarn],
]

/** The hot path's goals: the service against the contract's minimum, and with the store too. */
function printHotRatios(rows: Row[]): void {
  const row = (target: Target) => rows.find((found) => found.target.name === target.name)
  for (const [service, base] of [
    [getWarn, contractGet],
    [postWarn, contractPost],
    [getWarn, storeGet],
    [postWarn, storePost],
    [besideGet, contractGet],
    [getWarn, besideGet],
  ] as const) {
    const [ours, theirs] = [row(service), row(base)]
    if (ours === undefined || theirs === undefined) continue
    const rate = (ours.rate / theirs.rate).toFixed(2)
    const cpu = (theirs.cpu / ours.cpu).toFixed(2)
    console.log(`${service.name} vs ${base.name}: ${rate} by req/s, ${cpu} by CPU per request`)
  }
}

/**
 * The PostgreSQL column: the service on PostgreSQL against the reference (one statement per
 * request through the same driver and pool), then the sorted page at 1,000 and 1,000,000 tasks.
 */
const postgresTargets: Target[] = [
  { name: 'pg reference GET /tugas/1', server: 'pg reference', path: '/tugas/1', expected: 200 },
  {
    name: 'pg reference, prepared, GET /tugas/1',
    server: 'pg reference, prepared',
    path: '/tugas/1',
    expected: 200,
  },
  {
    name: 'pg reference, prepared, contract minimum, GET /tugas/1',
    server: 'pg reference, contract',
    path: '/tugas/1',
    expected: 200,
  },
  { name: 'pg GET /tugas/1', server: 'pg service', path: '/tugas/1', expected: 200 },
  { name: `pg ${PAGE} (10k)`, server: 'pg service', path: PAGE, expected: 200 },
  {
    name: 'pg reference POST /tugas',
    server: 'pg reference',
    path: '/tugas',
    expected: 201,
    method: 'POST',
    body: POST_TASK,
  },
  {
    name: 'pg reference, prepared, POST /tugas',
    server: 'pg reference, prepared',
    path: '/tugas',
    expected: 201,
    method: 'POST',
    body: POST_TASK,
  },
  {
    name: 'pg reference, prepared, with its event, POST /tugas',
    server: 'pg reference, events',
    path: '/tugas',
    expected: 201,
    method: 'POST',
    body: POST_TASK,
  },
  {
    name: 'pg reference, prepared, contract minimum, with its event, POST /tugas',
    server: 'pg reference, contract',
    path: '/tugas',
    expected: 201,
    method: 'POST',
    body: POST_TASK,
  },
  {
    name: 'pg POST /tugas',
    server: 'pg service',
    path: '/tugas',
    expected: 201,
    method: 'POST',
    body: POST_TASK,
  },
  {
    // The background work a burst of creates leaves (numbering, folds, vacuum) must not take
    // what the reads need: measured at once, right after the service's own creates.
    name: 'pg GET /tugas/1, the seconds after a burst of creates',
    server: 'pg service',
    path: '/tugas/1',
    expected: 200,
    cold: true,
  },
]

function headersOf(target: Target): Record<string, string> {
  const json: Record<string, string> =
    target.method === undefined ? {} : { 'content-type': 'application/json' }
  return { ...json, ...target.headers }
}

function options(url: string, target: Target, duration: number): autocannon.Options {
  const request: autocannon.Options = { url: url + target.path, connections: CONNECTIONS, duration }
  request.headers = headersOf(target)
  if (target.method !== undefined) {
    request.method = target.method
    if (target.body !== undefined) request.body = target.body
  }
  return request
}

/** One request per target before any load: a wrong status fails the run, not the numbers. */
async function verify(url: string, target: Target): Promise<void> {
  const init: RequestInit = { method: target.method ?? 'GET', headers: headersOf(target) }
  if (target.body !== undefined) init.body = target.body
  const response = await fetch(url + target.path, init)
  const text = await response.text()
  if (response.status !== target.expected) {
    throw new Error(
      `${target.name}: expected ${target.expected}, got ${response.status}: ${text.slice(0, 200)}`,
    )
  }
  for (const [name, value] of Object.entries(target.answerHeaders ?? {})) {
    const sent = response.headers.get(name)
    if (sent !== value) throw new Error(`${target.name}: expected ${name}: ${value}, got ${sent}`)
  }
}

interface Row {
  target: Target
  /** Requests per second, the run's average. */
  rate: number
  p99: number
  /** The server process's CPU per request, in microseconds. */
  cpu: number
}

function printTable(rows: Row[]): void {
  const firstBare = rows.find((row) => row.target.server === 'bare')
  const ratio = (value: number, base: number | undefined) =>
    base === undefined || !(base > 0) ? 'n/a' : (value / base).toFixed(2)
  const table = rows.map(({ target, rate, p99, cpu }) => {
    const bare = target.base ? rows.find((row) => row.target.name === target.base) : firstBare
    return {
      target: target.name,
      'req/s (avg)': Math.round(rate),
      'p99 (ms)': p99.toFixed(2),
      'CPU/req (µs)': cpu.toFixed(1),
      'req/s vs bare': ratio(rate, bare?.rate),
      'p99 vs bare': ratio(p99, bare?.p99),
      'CPU vs bare': ratio(cpu, bare?.cpu),
    }
  })
  console.table(table)
}

/** One measured load of `target` at `url` (a cold target without a warm-up). */
function load(url: string, target: Target): Promise<Omit<Row, 'target'>> {
  const request = {
    url: url + target.path,
    connections: CONNECTIONS,
    headers: headersOf(target),
    ...(target.method && { method: target.method }),
    ...(target.body !== undefined && { body: target.body }),
  }
  const fallback = (seconds: number) => options(url, target, seconds)
  const lengths = { warmup: target.cold ? 0 : WARMUP, duration: DURATION }
  return measuredLoad(target.name, url, request, fallback, lengths)
}

/** Verifies every target, then warms up and measures each in turn. */
async function run(list: Target[], urls: Partial<Record<Server, string>>): Promise<Row[]> {
  const urlOf = (target: Target) => urls[target.server] as string
  for (const target of list) await verify(urlOf(target), target)
  const rows: Row[] = []
  for (const target of list) {
    process.stdout.write(`${target.name}: warming up, then measuring...\n`)
    rows.push({ target, ...(await load(urlOf(target), target)) })
  }
  return mergeRepeats(rows)
}

/**
 * One row per target: a target measured more than once (a service and its reference measured
 * in turn, A B B A, so that a drift of the machine over the run weighs on both alike) gets the
 * mean of its runs.
 */
function mergeRepeats(rows: Row[]): Row[] {
  const merged = new Map<string, Row[]>()
  for (const row of rows) merged.set(row.target.name, [...(merged.get(row.target.name) ?? []), row])
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length
  return [...merged.values()].map((runs) => ({
    target: (runs[0] as Row).target,
    rate: mean(runs.map((run) => run.rate)),
    p99: mean(runs.map((run) => run.p99)),
    cpu: mean(runs.map((run) => run.cpu)),
  }))
}

/** The service on PostgreSQL at `url`, seeded from `seed`. */
async function postgresService(
  children: ChildProcess[],
  url: string,
  seed: string,
): Promise<string> {
  const env: NodeJS.ProcessEnv = { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' }
  env.DATABASE_URL = url
  env.DATABASE_POOL_SIZE = POOL_SIZE
  env.SEED_FILE = seed
  const started = startServer(SERVICE_ARGS, env)
  children.push(started.child)
  return started.url
}

/**
 * The service on PostgreSQL seeded with the same 10,000 tasks as in memory, and the reference
 * server on that database.
 */
async function startPostgres10k(
  seedFile: string,
  children: ChildProcess[],
): Promise<Partial<Record<Server, string>>> {
  process.stdout.write('PostgreSQL: seeding 10,000 tasks...\n')
  const url = await freshDatabase('tugas_bench_10k')
  const service = await postgresService(children, url, seedFile)
  const reference = (prepared: '0' | '1', events: '0' | '1' = '0', contract: '0' | '1' = '0') => {
    const started = startServer([join(ROOT, 'bench/pg-reference.mjs')], {
      DATABASE_URL: url,
      DATABASE_POOL_SIZE: POOL_SIZE,
      REFERENCE_PREPARED: prepared,
      REFERENCE_EVENTS: events,
      REFERENCE_CONTRACT: contract,
      LOG_LEVEL: 'info',
    })
    children.push(started.child)
    return started.url
  }
  return {
    'pg service': service,
    'pg reference': await reference('0'),
    'pg reference, prepared': await reference('1'),
    'pg reference, events': await reference('1', '1'),
    'pg reference, contract': await reference('1', '1', '1'),
  }
}

/** The ratios the PostgreSQL targets are judged by. */
function printPostgresRatios(rows: Row[]): void {
  const rate = (name: string) => rows.find((row) => row.target.name === name)?.rate
  const show = (label: string, value: number | undefined, base: number | undefined) => {
    if (value === undefined || base === undefined) return
    console.log(`${label}: ${(value / base).toFixed(2)}`)
  }
  show(
    'pg GET /tugas/1, service vs reference (req/s)',
    rate('pg GET /tugas/1'),
    rate('pg reference GET /tugas/1'),
  )
  show(
    'pg POST /tugas, service vs reference (req/s)',
    rate('pg POST /tugas'),
    rate('pg reference POST /tugas'),
  )
  show(
    'pg GET /tugas/1, service vs prepared reference (req/s)',
    rate('pg GET /tugas/1'),
    rate('pg reference, prepared, GET /tugas/1'),
  )
  show(
    'pg POST /tugas, service vs prepared reference (req/s)',
    rate('pg POST /tugas'),
    rate('pg reference, prepared, POST /tugas'),
  )
  show(
    'pg POST /tugas, service vs prepared reference that stores the event too (req/s)',
    rate('pg POST /tugas'),
    rate('pg reference, prepared, with its event, POST /tugas'),
  )
  show(
    'pg GET /tugas/1, prepared reference with the contract minimum vs without (req/s)',
    rate('pg reference, prepared, contract minimum, GET /tugas/1'),
    rate('pg reference, prepared, GET /tugas/1'),
  )
  show(
    'pg GET /tugas/1, service vs prepared reference with the contract minimum (req/s)',
    rate('pg GET /tugas/1'),
    rate('pg reference, prepared, contract minimum, GET /tugas/1'),
  )
  show(
    'pg POST /tugas, reference with its event: with the contract minimum vs without (req/s)',
    rate('pg reference, prepared, contract minimum, with its event, POST /tugas'),
    rate('pg reference, prepared, with its event, POST /tugas'),
  )
  show(
    'pg POST /tugas, service vs the reference with its event and the contract minimum (req/s)',
    rate('pg POST /tugas'),
    rate('pg reference, prepared, contract minimum, with its event, POST /tugas'),
  )
  show(
    'pg GET /tugas/1 in the seconds after a burst of creates vs steady (req/s)',
    rate('pg GET /tugas/1, the seconds after a burst of creates'),
    rate('pg GET /tugas/1'),
  )
}

async function main(): Promise<void> {
  if (!Number.isFinite(DURATION) || DURATION <= 0) {
    throw new Error(`BENCH_DURATION=${process.env.BENCH_DURATION} must be a number of seconds > 0`)
  }
  const only = process.env.BENCH_ONLY || undefined
  // The same build runs 10 to 30% faster or slower from one process to the next (docs/
  // performance.md#against-the-references-with-wrk): the hot path's servers are started afresh
  // this many times and their figures averaged.
  const instances = Number(process.env.BENCH_INSTANCES ?? (only === 'hot' ? 3 : 1))
  if (!Number.isInteger(instances) || instances < 1) {
    throw new Error(`BENCH_INSTANCES=${process.env.BENCH_INSTANCES} must be a whole number >= 1`)
  }
  if (
    only !== undefined &&
    !['scale', 'scale-pg', 'workers', 'hot', 'pg', 'events', 'webhooks', 'price'].includes(only)
  ) {
    throw new Error(
      `BENCH_ONLY=${only}: only scale, scale-pg, workers, hot, pg, events, webhooks or price runs alone`,
    )
  }
  const scale = (store: ScaleStore) =>
    runScale({ duration: DURATION, warmup: WARMUP, connections: CONNECTIONS, store })
  const cpus = os.cpus()
  console.log(
    `node ${process.version}, ${os.platform()} ${os.arch()}, ${cpus.length} CPU cores` +
      ` (${cpus[0]?.model.trim() ?? 'unknown model'})`,
  )
  const workers = () => runWorkers({ duration: DURATION, warmup: WARMUP })
  if (only === 'scale') return scale('memory')
  if (only === 'scale-pg') return scale('postgres')
  if (only === 'workers') return workers()
  const events = () => runEvents({ duration: DURATION, warmup: WARMUP, connections: CONNECTIONS })
  if (only === 'events') return events()
  const webhooks = () =>
    runWebhooks({ duration: DURATION, warmup: WARMUP, connections: CONNECTIONS })
  if (only === 'webhooks') return webhooks()
  const price = () => runPrice({ duration: DURATION, warmup: WARMUP, connections: CONNECTIONS })
  if (only === 'price') return price()
  console.log(
    `${CONNECTIONS} connections, ${WARMUP} s warm-up + ${DURATION} s per target; ` +
      `${SEED_TASKS} seeded tasks; service logging at info (production default).`,
  )
  console.log(
    wrkProblem() === undefined
      ? 'Load from wrk (2 threads), on the same cores as the servers: compare ratios and CPU per request.\n'
      : `autocannon shares the CPU cores with both servers (${wrkProblem()}): compare ratios.\n`,
  )

  const dir = await mkdtemp(join(os.tmpdir(), 'tugas-bench-'))
  const children: ChildProcess[] = []
  try {
    const seedFile = join(dir, 'seed.json')
    await writeFile(seedFile, seedDocument(SEED_TASKS))

    const urls: Partial<Record<Server, string>> = {}
    const rows: Row[] = []
    // BENCH_ONLY=pg: the PostgreSQL column alone.
    if (only !== 'pg') {
      const bare = startServer([join(ROOT, 'bench/bare-server.mjs')], {})
      const bareHeaders = startServer([join(ROOT, 'bench/bare-server.mjs')], {
        BARE_HEADERS: 'security',
      })
      children.push(bare.child, bareHeaders.child)
      const service = startServer(SERVICE_ARGS, {
        PORT: '0',
        HOST: '127.0.0.1',
        SEED_FILE: seedFile,
        LOG_LEVEL: 'info',
      })
      children.push(service.child)
      // Awaited together, so a server that fails to start is reported whichever one it is.
      const [bareUrl, bareHeadersUrl, serviceUrl] = await Promise.all([
        bare.url,
        bareHeaders.url,
        service.url,
      ])
      Object.assign(urls, {
        bare: bareUrl,
        'bare, security headers': bareHeadersUrl,
        service: serviceUrl,
      })

      // BENCH_ONLY=hot: the warn targets beside the bare server, nothing else.
      if (only !== 'hot') rows.push(...(await run(targets, urls)))
      await stop(service.child)

      const warnRows: Row[] = []
      for (let instance = 1; instance <= instances; instance++) {
        const quiet = await startQuietServer(SERVICE_ARGS, {
          HOST: '127.0.0.1',
          SEED_FILE: seedFile,
          LOG_LEVEL: 'warn',
        })
        children.push(quiet.child)
        const reference = join(ROOT, 'bench/fastify-reference.mjs')
        const fastify = startServer([reference], { REFERENCE: 'bare' })
        const contract = startServer([reference], { REFERENCE: 'contract' })
        const store = startServer([reference], { REFERENCE: 'store', SEED_FILE: seedFile })
        const beside = startServer([reference], { REFERENCE: 'beside', SEED_FILE: seedFile })
        children.push(fastify.child, contract.child, store.child, beside.child)
        ;[
          urls['service, warn'],
          urls.fastify,
          urls['fastify, contract'],
          urls['fastify, store'],
          urls['fastify, beside the service'],
        ] = await Promise.all([quiet.url, fastify.url, contract.url, store.url, beside.url])
        const measured = await run(warnTargets, urls)
        if (instances > 1) {
          console.log(`\nThe hot path, processes ${instance} of ${instances}:`)
          printHotRatios(measured)
        }
        warnRows.push(...measured)
        await Promise.all([quiet, fastify, contract, store, beside].map(({ child }) => stop(child)))
      }
      rows.push(...mergeRepeats(warnRows))
    }

    const problem = only === 'hot' ? undefined : await postgresProblem()
    if (only === 'hot') {
      // The PostgreSQL column is not part of it.
    } else if (problem === undefined) {
      // The 10k targets first: the million-row fill leaves the server busy for a while after.
      const [refGet, preparedGet, contractGet, get, page, refPost, preparedPost, eventsPost] =
        postgresTargets as Target[] as [
          Target,
          Target,
          Target,
          Target,
          Target,
          Target,
          Target,
          Target,
        ]
      const [contractPost, post, afterBurst] = postgresTargets.slice(8) as [Target, Target, Target]
      const at10k = [
        ...[refGet, preparedGet, contractGet, get, get, contractGet, preparedGet, refGet, page],
        ...[refPost, preparedPost, eventsPost, contractPost, post],
        ...[post, contractPost, eventsPost, preparedPost, refPost],
        ...[{ ...post, name: 'pg POST /tugas (a burst, then the next row)' }, afterBurst],
      ]
      Object.assign(urls, await startPostgres10k(seedFile, children))
      rows.push(...(await run(at10k, urls)))
    } else {
      console.log(`\n*** PostgreSQL column SKIPPED: ${problem} (set BENCH_DATABASE_URL) ***`)
    }
    console.log()
    printTable(rows)
    printHotRatios(rows)
    printPostgresRatios(rows)
  } finally {
    await Promise.all(children.map(stop))
    await rm(dir, { recursive: true, force: true })
  }
  if (only === 'hot' || only === 'pg') return
  // After every other server has stopped: these services need the cores to themselves.
  await workers()
  await events()
  await webhooks()
  await price()
  await scale('memory')
  if ((await postgresProblem()) === undefined) await scale('postgres')
}

try {
  await main()
} catch (error) {
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
}
