// Throughput and tail latency of the built service against a bare node:http server, on the same
// machine in the same run, so the ratio says what the service costs on top of Node itself.
//
// Caveats, also printed with the results:
// - autocannon runs in this process and shares the CPU cores with both servers (on a 2-core
//   machine that is a real share), so absolute numbers are low; compare the ratios.
// - The service logs at info, its production default: one JSON line per request on stdout,
//   which this process reads and throws away. The bare server logs nothing.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'

const DURATION = Number(process.env.BENCH_DURATION ?? 10)
const WARMUP = 2
const CONNECTIONS = 10
const SEED_TASKS = 10_000
const ROOT = fileURLToPath(new URL('..', import.meta.url))

interface Target {
  name: string
  server: 'bare' | 'service'
  path: string
  expected: number
  method?: 'POST'
  body?: string
  headers?: Record<string, string>
}

// Order matters: every POST creates a task, and a write drops the service's cached sorted views,
// so the list is measured before any POST load (the one verifying POST below adds one task).
// Even so, only the first read after a write sorts the 10,000 titles; the warm-up takes that,
// and the measured list requests are cached-view slices.
const targets: Target[] = [
  { name: 'bare node:http GET /', server: 'bare', path: '/', expected: 200 },
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

/** Deterministic random numbers (mulberry32), so every run seeds the same titles. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const WORDS = (
  'belajar menulis membuat review deploy server kode api rest dokumentasi pengujian basis data ' +
  'rapat laporan anggaran desain halaman login cari perbaiki bug rilis versi catatan tim klien ' +
  'jadwal ulang migrasi indeks cache antrian email notifikasi ekspor impor arsip audit keamanan'
).split(' ')

/**
 * Tasks with titles of 1 to 8 random words, cut to 80 characters: 3 to 80, in no particular
 * order.
 */
function seedDocument(count: number): string {
  const next = random(42)
  const pick = () => WORDS[Math.floor(next() * WORDS.length)] ?? 'tugas'
  const tugas = Array.from({ length: count }, () => {
    const words = Array.from({ length: 1 + Math.floor(next() * 8) }, pick)
    const title = `${words.join(' ')} ${Math.floor(next() * 1000)}`.slice(0, 80).trim()
    return { title, status: next() < 0.5 ? 'belum' : 'selesai' }
  })
  // The demo credentials and documents, so the surface D target has someone to be.
  const credentials = { 'demo-budi-token': { nama: 'budi', peran: 'user' } }
  const dokumen = [{ judul: 'Rencana', pemilik: 'budi' }]
  return JSON.stringify({ tugas, credentials, dokumen })
}

/**
 * Starts a server process and resolves with its base URL, read from the
 * "Server listening at ..." line on its stdout. Output after that keeps being read and dropped,
 * so a full pipe never blocks the server.
 */
function startServer(
  args: string[],
  env: NodeJS.ProcessEnv,
): { child: ChildProcess; url: Promise<string> } {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const url = new Promise<string>((resolve, reject) => {
    let pending = ''
    let found = false
    child.stdout?.on('data', (chunk: Buffer) => {
      if (found) return
      pending += chunk.toString('utf8')
      const match = /Server listening at (http:\/\/[^"\s]+)/.exec(pending)
      if (match?.[1] !== undefined) {
        found = true
        pending = ''
        resolve(match[1])
      }
    })
    child.once('error', reject)
    child.once('exit', (code, signal) =>
      reject(new Error(`${args.join(' ')} exited before listening (${code ?? signal})`)),
    )
  })
  return { child, url }
}

/** SIGTERM, then SIGKILL if the process has not exited within 5 s. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
  await exited
  clearTimeout(timer)
}

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
}

/**
 * Runs one load and measures p99 from every response time itself: autocannon's own histogram
 * has whole-millisecond resolution, and the bare server answers in well under 1 ms, so its p99
 * reads 0 and no ratio can be taken.
 */
async function measure(
  options: autocannon.Options,
): Promise<{ result: autocannon.Result; p99: number }> {
  const times: number[] = []
  const run = autocannon(options)
  run.on('response', (_client, _status, _bytes, responseTime) => times.push(responseTime))
  const result = await run
  const sorted = Float64Array.from(times).sort()
  const p99 = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] ?? Number.NaN
  return { result, p99 }
}

interface Row {
  target: Target
  result: autocannon.Result
  p99: number
}

function printTable(rows: Row[]): void {
  const bare = rows.find((row) => row.target.server === 'bare')
  const ratio = (value: number, base: number | undefined) =>
    base === undefined || !(base > 0) ? 'n/a' : (value / base).toFixed(2)
  const table = rows.map(({ target, result, p99 }) => ({
    target: target.name,
    'req/s (avg)': Math.round(result.requests.average),
    'p99 (ms)': p99.toFixed(2),
    'req/s vs bare': ratio(result.requests.average, bare?.result.requests.average),
    'p99 vs bare': ratio(p99, bare?.p99),
  }))
  console.table(table)
}

async function main(): Promise<void> {
  if (!Number.isFinite(DURATION) || DURATION <= 0) {
    throw new Error(`BENCH_DURATION=${process.env.BENCH_DURATION} must be a number of seconds > 0`)
  }
  const cpus = os.cpus()
  console.log(
    `node ${process.version}, ${os.platform()} ${os.arch()}, ${cpus.length} CPU cores` +
      ` (${cpus[0]?.model.trim() ?? 'unknown model'})`,
  )
  console.log(
    `${CONNECTIONS} connections, ${WARMUP} s warm-up + ${DURATION} s per target; ` +
      `${SEED_TASKS} seeded tasks; service logging at info (production default).`,
  )
  console.log(
    'autocannon shares the CPU cores with both servers: compare ratios, not absolute numbers.\n',
  )

  const dir = await mkdtemp(join(os.tmpdir(), 'tugas-bench-'))
  const children: ChildProcess[] = []
  try {
    const seedFile = join(dir, 'seed.json')
    await writeFile(seedFile, seedDocument(SEED_TASKS))

    const bare = startServer([join(ROOT, 'bench/bare-server.mjs')], {})
    children.push(bare.child)
    const service = startServer([join(ROOT, 'dist/main.js')], {
      PORT: '0',
      HOST: '127.0.0.1',
      SEED_FILE: seedFile,
      LOG_LEVEL: 'info',
    })
    children.push(service.child)
    // Awaited together, so a server that fails to start is reported whichever one it is.
    const [bareUrl, serviceUrl] = await Promise.all([bare.url, service.url])
    const urls = { bare: bareUrl, service: serviceUrl }

    for (const target of targets) await verify(urls[target.server], target)

    const rows: Row[] = []
    for (const target of targets) {
      const url = urls[target.server]
      process.stdout.write(`${target.name}: warming up, then measuring...\n`)
      await autocannon(options(url, target, WARMUP))
      const { result, p99 } = await measure(options(url, target, DURATION))
      const { errors, timeouts, non2xx } = result
      if (errors + timeouts + non2xx > 0) {
        console.error(
          `  ! ${target.name}: ${non2xx} non-2xx, ${errors} errors, ${timeouts} timeouts`,
        )
        process.exitCode = 1
      }
      rows.push({ target, result, p99 })
    }
    console.log()
    printTable(rows)
  } finally {
    await Promise.all(children.map(stop))
    await rm(dir, { recursive: true, force: true })
  }
}

try {
  await main()
} catch (error) {
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
}
