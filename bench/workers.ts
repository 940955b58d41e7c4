// The several-processes scenario (issue 12): the service on PostgreSQL and Redis with
// WORKERS=1 and WORKERS=2, each target measured on both in turn (1 2 2 1) against a bare
// node:http server in the same run, and the scaling factor from one worker to two.
//
// On a 2-core machine the load generator, PostgreSQL and Redis share the cores with the
// workers, so two workers cannot double anything: the factor says how much of a second core
// the service can turn into answers here, not what a larger machine would see.
import type { ChildProcess } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import { join } from 'node:path'
import type autocannon from 'autocannon'
import { Redis } from 'ioredis'
import { type LoadFigures, measuredLoad } from './load.js'
import {
  freshDatabase,
  postgresProblem,
  ROOT,
  SERVICE_ARGS,
  seedDocument,
  startServer,
  stop,
} from './servers.js'

const BENCH_REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379'
/** More connections than elsewhere: the kernel spreads connections over the workers. */
const CONNECTIONS = 32
const KEYS = 1000
const SEED_TASKS = 10_000

interface Target {
  name: string
  path: string
  expected: number
  method?: 'POST'
  body?: string
  /** A different credential on each request, from KEYS of them: one bucket each. */
  manyKeys?: boolean
}

const targets: Target[] = [
  { name: 'GET /tugas/1', path: '/tugas/1', expected: 200 },
  {
    name: 'POST /tugas',
    path: '/tugas',
    expected: 201,
    method: 'POST',
    body: JSON.stringify({ title: 'Benchmark task', status: 'belum' }),
  },
  { name: `GET /laporan (${KEYS} keys)`, path: '/laporan', expected: 200, manyKeys: true },
]

const keyOf = (i: number) => `bench-key-${i % KEYS}`

function options(url: string, target: Target, duration: number): autocannon.Options {
  const request: autocannon.Options = { url: url + target.path, connections: CONNECTIONS, duration }
  if (target.method !== undefined) {
    request.method = target.method
    request.headers = { 'content-type': 'application/json' }
    if (target.body !== undefined) request.body = target.body
  }
  if (target.manyKeys) {
    let next = 0
    request.requests = [
      {
        setupRequest(sent) {
          sent.headers = { ...sent.headers, 'x-api-key': keyOf(next++) }
          return sent
        },
      },
    ]
  }
  return request
}

/** Why the scenario cannot run here, or undefined. */
async function problem(): Promise<string | undefined> {
  const postgres = await postgresProblem()
  if (postgres !== undefined) return postgres
  const redis = new Redis(BENCH_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0 })
  redis.on('error', () => {})
  try {
    await redis.connect()
    await redis.ping()
    return undefined
  } catch (error) {
    return `Redis cannot be reached (${(error as Error).message})`
  } finally {
    redis.disconnect()
  }
}

/** 10,000 tasks and KEYS credentials, each its own /laporan bucket. */
function seed(): string {
  const document = JSON.parse(seedDocument(SEED_TASKS)) as { credentials: object }
  const credentials = Object.fromEntries(
    Array.from({ length: KEYS }, (_, i) => [keyOf(i), { nama: `pengguna${i}`, peran: 'user' }]),
  )
  document.credentials = { ...document.credentials, ...credentials }
  return JSON.stringify(document)
}

async function verify(url: string, target: Target): Promise<void> {
  const init: RequestInit = { method: target.method ?? 'GET' }
  if (target.body !== undefined) {
    init.body = target.body
    init.headers = { 'content-type': 'application/json' }
  }
  if (target.manyKeys) init.headers = { 'x-api-key': keyOf(0) }
  const response = await fetch(url + target.path, init)
  if (response.status !== target.expected) {
    throw new Error(`${target.name}: expected ${target.expected}, got ${response.status}`)
  }
}

type Measured = LoadFigures

/** A different credential on each request, as `options` sets it for autocannon. */
const MANY_KEYS_SCRIPT = `
local n = 0
request = function()
  n = n + 1
  wrk.headers["x-api-key"] = "bench-key-" .. (n % ${KEYS})
  return wrk.format()
end`

/** One measured load of `target` on the service at `url`. */
function load(url: string, target: Target, warmup: number, duration: number) {
  const request = {
    url: url + target.path,
    connections: CONNECTIONS,
    ...(target.method && { method: target.method }),
    ...(target.body !== undefined && { body: target.body }),
    ...(target.manyKeys && { script: MANY_KEYS_SCRIPT }),
  }
  const fallback = (seconds: number) => options(url, target, seconds)
  return measuredLoad(target.name, url, request, fallback, { warmup, duration })
}

export async function runWorkers(settings: { duration: number; warmup: number }): Promise<void> {
  const { duration, warmup } = settings
  console.log(
    `\nSeveral processes: PostgreSQL + Redis, WORKERS=1 and WORKERS=2, ${CONNECTIONS} connections, ` +
      `${warmup} s warm-up + ${duration} s per run, each target 1 2 2 1; logging at info.`,
  )
  const skipped = await problem()
  if (skipped !== undefined) {
    console.log(`*** several-processes scenario SKIPPED: ${skipped} ***`)
    return
  }
  const dir = await mkdtemp(join(os.tmpdir(), 'tugas-bench-workers-'))
  const children: ChildProcess[] = []
  try {
    const seedFile = join(dir, 'seed.json')
    await writeFile(seedFile, seed())
    const bare = startServer([join(ROOT, 'bench/bare-server.mjs')], {})
    children.push(bare.child)
    const service = async (workers: number) => {
      const started = startServer(SERVICE_ARGS, {
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        WORKERS: String(workers),
        DATABASE_URL: await freshDatabase(`tugas_bench_workers_${workers}`),
        REDIS_URL: BENCH_REDIS_URL,
        REDIS_KEY_PREFIX: `tugas-bench:${process.pid}:${workers}:`,
        // Every request admitted: the bucket step in Redis is what is measured, not the 429.
        RATE_LIMIT_CAPACITY: '1000000',
        SEED_FILE: seedFile,
      })
      children.push(started.child)
      return started.url
    }
    const urls = { 1: await service(1), 2: await service(2) }
    const bareUrl = await bare.url
    const bareRun = await load(
      bareUrl,
      { name: 'bare', path: '/', expected: 200 },
      warmup,
      duration,
    )

    const table = []
    for (const target of targets) {
      await verify(urls[1], target)
      await verify(urls[2], target)
      const runs: Record<1 | 2, Measured[]> = { 1: [], 2: [] }
      for (const workers of [1, 2, 2, 1] as const) {
        process.stdout.write(`${target.name}, WORKERS=${workers}: measuring...\n`)
        runs[workers].push(await load(urls[workers], target, warmup, duration))
      }
      const mean = (list: Measured[], key: keyof Measured) =>
        list.reduce((sum, run) => sum + run[key], 0) / list.length
      const one = mean(runs[1], 'rate')
      const two = mean(runs[2], 'rate')
      table.push({
        target: target.name,
        'WORKERS=1 req/s': Math.round(one),
        'vs bare': (one / bareRun.rate).toFixed(2),
        'p99 ms': mean(runs[1], 'p99').toFixed(2),
        'CPU/req µs': mean(runs[1], 'cpu').toFixed(1),
        'WORKERS=2 req/s': Math.round(two),
        'vs bare ': (two / bareRun.rate).toFixed(2),
        'p99 ms ': mean(runs[2], 'p99').toFixed(2),
        'CPU/req µs ': mean(runs[2], 'cpu').toFixed(1),
        'scaling 1 to 2': (two / one).toFixed(2),
      })
    }
    console.log(
      `bare node:http GET /: ${Math.round(bareRun.rate)} req/s, p99 ${bareRun.p99.toFixed(2)} ms, ` +
        `${bareRun.cpu.toFixed(1)} µs of CPU per request`,
    )
    console.table(table)
  } finally {
    await Promise.all(children.map(stop))
    await rm(dir, { recursive: true, force: true })
  }
}
