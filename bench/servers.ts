// What bench/run.ts and bench/scale.ts share: the seed document, the server processes, and one
// measured load.
import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import pg from 'pg'
import { freePort } from '../test/support/ports.js'

export const ROOT = fileURLToPath(new URL('..', import.meta.url))

/**
 * The service's command line as `npm start` runs it (package.json's start script, node's own
 * flags included), so the bench measures what operators run.
 */
export const SERVICE_ARGS: string[] = (() => {
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: { start: string }
  }
  const words = scripts.start.split(/\s+/).filter((word) => word !== 'exec')
  if (words[0] !== 'node') throw new Error(`the start script does not run node: ${scripts.start}`)
  return words.slice(1).map((word) => (word.endsWith('.js') ? join(ROOT, word) : word))
})()

/** The PostgreSQL server the bench uses (databases tugas_bench_* are made anew). */
export const BENCH_DATABASE_URL =
  process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

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
export function seedDocument(count: number): string {
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

/** The process answering at each base URL a server of the bench was started on. */
const processes = new Map<string, number>()

/** The process of the server at `url` (as startServer or startQuietServer resolved it). */
export function pidOf(url: string): number {
  const pid = processes.get(url)
  if (pid === undefined) throw new Error(`no server of the bench at ${url}`)
  return pid
}

/**
 * Starts a server process and resolves with its base URL, read from the
 * "Server listening at ..." line on its stdout. Output after that keeps being read and dropped,
 * so a full pipe never blocks the server.
 */
export function startServer(
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
        processes.set(match[1], child.pid as number)
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

/**
 * Starts a server that prints no "listening" line (the service at LOG_LEVEL=warn) on a free
 * port; resolves with its base URL once `GET /health/ready` answers 200.
 */
export async function startQuietServer(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ child: ChildProcess; url: Promise<string> }> {
  const port = await freePort()
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const base = `http://127.0.0.1:${port}`
  const url = (async () => {
    for (let attempt = 0; attempt < 400; attempt++) {
      if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited before listening`)
      try {
        if ((await fetch(`${base}/health/ready`)).ok) {
          processes.set(base, child.pid as number)
          return base
        }
      } catch {
        // Not listening yet.
      }
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    throw new Error(`${args.join(' ')} did not answer on ${base} within 20 s`)
  })()
  return { child, url }
}

/** SIGTERM, then SIGKILL if the process has not exited within 5 s. */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
  await exited
  clearTimeout(timer)
}

/**
 * Runs one load and measures p99 from every response time itself: autocannon's own histogram
 * has whole-millisecond resolution, and the bare server answers in well under 1 ms, so its p99
 * reads 0 and no ratio can be taken.
 */
export async function measure(
  options: autocannon.Options,
): Promise<{ result: autocannon.Result; p99: number }> {
  const times: number[] = []
  const run = autocannon(options)
  run.on('response', (_client, _status, _bytes, responseTime) => times.push(responseTime))
  const result = await run
  return { result, p99: p99Of(times) }
}

/** The 99th percentile of response times, in their unit; NaN for none. */
export function p99Of(times: number[]): number {
  const sorted = Float64Array.from(times).sort()
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] ?? Number.NaN
}

export async function postgresProblem(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: BENCH_DATABASE_URL })
  try {
    await client.connect()
    return undefined
  } catch (error) {
    return `PostgreSQL cannot be reached (${(error as Error).message})`
  } finally {
    await client.end().catch(() => {})
  }
}

/** A new, empty database on the bench's PostgreSQL server; its URL. */
export async function freshDatabase(name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: BENCH_DATABASE_URL })
  await admin.connect()
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(BENCH_DATABASE_URL)
  url.pathname = `/${name}`
  return url.toString()
}
