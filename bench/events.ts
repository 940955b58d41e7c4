// The change feed's scenario (issue 24), on each store: what 1,000 open streams cost a read and
// a create, the memory each stream holds, and the time from a create's answer to its event at a
// subscriber, idle and while ten clients create as fast as they are answered; on PostgreSQL,
// what the outbox costs a create (the same service with writes that store no event).
import type { ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { request } from 'node:http'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { freshDatabase, postgresProblem, ROOT, SERVICE_ARGS, startServer, stop } from './servers.js'
import { wrk } from './wrk.js'

export interface EventsSettings {
  duration: number
  warmup: number
  connections: number
}

const STREAMS = 1000
const LATENCY_SAMPLES = 200
export const POST_TASK = JSON.stringify({ title: 'Benchmark task', status: 'belum' })

/** The resident memory of process `pid`, in bytes (Linux). */
function residentBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? Number.NaN) * 1024
}

/** `count` streams on `url`, each read and dropped; `close` ends them. */
async function openStreams(url: string, count: number) {
  const requests = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof request>>((resolve, reject) => {
          const sent = request(`${url}/events`, { agent: false }, (response) => {
            response.resume()
            resolve(sent)
          })
          sent.on('error', reject)
          sent.end()
        }),
    ),
  )
  return {
    close() {
      for (const sent of requests) sent.destroy()
    },
  }
}

/** One create; resolves with its task id. */
export function create(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const sent = request(
      `${url}/tugas`,
      { method: 'POST', headers: { 'content-type': 'application/json' } },
      (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => {
          text += chunk
        })
        response.on('end', () => resolve(String((JSON.parse(text) as { id: number }).id)))
      },
    )
    sent.on('error', reject)
    sent.end(POST_TASK)
  })
}

/** A subscriber that notes when each task's `tugas.created` arrives, by the task's id. */
async function subscriber(url: string) {
  const arrived = new Map<string, number>()
  const waiting = new Map<string, () => void>()
  let buffer = ''
  const sent = request(`${url}/events?types=tugas.created`, { agent: false })
  await new Promise<void>((resolve, reject) => {
    sent.on('response', (response) => {
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => {
        const now = performance.now()
        buffer += chunk
        for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
          const subject = /"subject":"(\d+)"/.exec(buffer.slice(0, end))?.[1]
          buffer = buffer.slice(end + 2)
          if (subject === undefined) continue
          arrived.set(subject, now)
          waiting.get(subject)?.()
        }
      })
      resolve()
    })
    sent.on('error', reject)
    sent.end()
  })
  return {
    /** Milliseconds from a create's answer to its event here. */
    async latency(): Promise<number> {
      const id = await create(url)
      const answered = performance.now()
      if (!arrived.has(id)) await new Promise<void>((done) => waiting.set(id, done))
      waiting.delete(id)
      return (arrived.get(id) as number) - answered
    },
    close: () => sent.destroy(),
  }
}

export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)] ?? Number.NaN

async function latencies(url: string, load: boolean, settings: EventsSettings) {
  const feed = await subscriber(url)
  const background = load
    ? autocannon({
        url: `${url}/tugas`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: POST_TASK,
        connections: settings.connections,
        duration: 3600,
      })
    : undefined
  if (background) await new Promise((resolve) => setTimeout(resolve, settings.warmup * 1000))
  const times: number[] = []
  for (let n = 0; n < LATENCY_SAMPLES; n += 1) {
    times.push(await feed.latency())
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  background?.stop()
  await background
  feed.close()
  times.sort((a, b) => a - b)
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99) }
}

/** A running service: where it answers, and its process (whose CPU is measured). */
export interface Running {
  url: string
  pid: number
}

/** One side of a comparison: requests per second, and the service's CPU per request (µs). */
export interface Rate {
  rate: number
  cpu: number
}

/** `GET /tugas/1`, or `POST /tugas` with `post`, driven by wrk after a warm-up. */
export async function rate(
  { url, pid }: Running,
  post: boolean,
  settings: EventsSettings,
): Promise<Rate> {
  const load = {
    url: `${url}${post ? '/tugas' : '/tugas/1'}`,
    connections: settings.connections,
    ...(post && { method: 'POST' as const, body: POST_TASK }),
  }
  await wrk({ ...load, seconds: settings.warmup }, [pid])
  const measured = await wrk({ ...load, seconds: settings.duration }, [pid])
  if (measured.errors > 0) {
    console.error(`  ! ${load.url}: ${measured.errors} errors`)
    process.exitCode = 1
  }
  return { rate: measured.rate, cpu: measured.cpuPerRequest }
}

/** How many times each side of a comparison is measured, in turn with the other. */
export const ROUNDS = 3
/** The same for the outbox's cost, a tenth or less: within the machine's drift over 3. */
const OUTBOX_ROUNDS = 5

/**
 * `a` then `b`, ROUNDS times over, so that the machine's drift in speed (a tenth from minute to
 * minute here) falls on both alike: the mean rate of each.
 */
async function inTurn(a: () => Promise<Rate>, b: () => Promise<Rate>, rounds = ROUNDS) {
  const sums = { a: { rate: 0, cpu: 0 }, b: { rate: 0, cpu: 0 } }
  for (let round = 0; round < rounds; round += 1) {
    for (const [side, measure] of [
      ['a', a],
      ['b', b],
    ] as const) {
      const { rate, cpu } = await measure()
      sums[side].rate += rate / rounds
      sums[side].cpu += cpu / rounds
    }
  }
  return sums
}

/** Requests per second of `value` against `by`, and the CPU per request of each. */
export const ratio = (value: Rate, by: Rate, label: string) =>
  `${Math.round(value.rate)} vs ${Math.round(by.rate)} ${label}: ${(value.rate / by.rate).toFixed(2)}` +
  ` (CPU per request ${Math.round(value.cpu)} vs ${Math.round(by.cpu)} µs)`

/** The service (`args`) on a fresh database of its own, or in memory. */
export async function service(
  children: ChildProcess[],
  store: Store,
  name: string,
  args = SERVICE_ARGS,
  more: NodeJS.ProcessEnv = {},
) {
  const env: NodeJS.ProcessEnv = { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...more }
  if (store === 'postgres') env.DATABASE_URL = await freshDatabase(name)
  const started = startServer(args, env)
  children.push(started.child)
  return { url: await started.url, pid: started.child.pid as number }
}

export type Store = 'memory' | 'postgres'

/** The stores a scenario runs on: both, or the one BENCH_STORE names. */
export function benchStores(): Store[] {
  const only = process.env.BENCH_STORE
  if (only === undefined || only === '') return ['memory', 'postgres']
  if (only !== 'memory' && only !== 'postgres')
    throw new Error(`BENCH_STORE=${only}: memory or postgres`)
  return [only]
}

/** The resident memory `STREAMS` streams on `url` hold, per stream (Linux). */
async function memoryPerStream(url: string, pid: number): Promise<number> {
  const before = residentBytes(pid)
  const streams = await openStreams(url, STREAMS)
  await new Promise((resolve) => setTimeout(resolve, 1000))
  const perStream = (residentBytes(pid) - before) / STREAMS
  streams.close()
  await new Promise((resolve) => setTimeout(resolve, 1000))
  return perStream
}

/**
 * The scenario on one store; its rows. What a stream holds is measured first, on the service
 * as it started (later, the garbage of the loads before would be collected meanwhile); on
 * PostgreSQL, creates with events against without next, both services having served those
 * streams and nothing else (after the scenarios below, one side would still be recovering).
 */
async function onStore(store: Store, settings: EventsSettings) {
  const children: ChildProcess[] = []
  try {
    const { url, pid } = await service(children, store, 'tugas_bench_events')
    const perStream = await memoryPerStream(url, pid)
    const rows: { store: Store; measure: string; result: string }[] = []
    if (store === 'postgres') {
      // The same service whose writes store no event (bench/service-without-events.mjs).
      const withoutArgs = [
        ...SERVICE_ARGS.slice(0, -1),
        join(ROOT, 'bench/service-without-events.mjs'),
      ]
      const without = await service(children, store, 'tugas_bench_no_events', withoutArgs)
      // The same streams come and go on it first: a process that has held 1,000 streams answers
      // slower for minutes after (docs/events.md#what-it-costs), so both start alike.
      await memoryPerStream(without.url, without.pid)
      const posts = await inTurn(
        () => rate({ url, pid }, true, settings),
        () => rate(without, true, settings),
        OUTBOX_ROUNDS,
      )
      await stop(children.pop() as ChildProcess)
      rows.push({
        store,
        measure: 'POST /tugas, req/s, with events vs without',
        result: ratio(posts.a, posts.b, 'without'),
      })
    }
    const idle = await latencies(url, false, settings)
    const loaded = await latencies(url, true, settings)
    // Every event on every stream within a second, however many streams (docs/events.md#memory).
    const crowd = await openStreams(url, STREAMS)
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const crowded = await latencies(url, true, settings).finally(() => crowd.close())
    /** `kind` measured with STREAMS streams open. */
    const beside = async (post: boolean) => {
      const streams = await openStreams(url, STREAMS)
      await new Promise((resolve) => setTimeout(resolve, 1000))
      try {
        return await rate({ url, pid }, post, settings)
      } finally {
        streams.close()
      }
    }
    const get = await inTurn(
      () => beside(false),
      () => rate({ url, pid }, false, settings),
    )
    const post = await inTurn(
      () => beside(true),
      () => rate({ url, pid }, true, settings),
    )
    const ms = (value: number) => value.toFixed(2)
    rows.push(
      {
        store,
        measure: `GET /tugas/1, req/s, beside ${STREAMS} open streams`,
        result: ratio(get.a, get.b, 'alone'),
      },
      {
        store,
        measure: `POST /tugas, req/s, beside ${STREAMS} open streams`,
        result: ratio(post.a, post.b, 'alone'),
      },
      {
        store,
        measure: 'event latency idle, ms',
        result: `p50 ${ms(idle.p50)}, p99 ${ms(idle.p99)}`,
      },
      {
        store,
        measure: `event latency, ${settings.connections} clients creating, ms`,
        result: `p50 ${ms(loaded.p50)}, p99 ${ms(loaded.p99)}`,
      },
      {
        store,
        measure: `event latency, ${settings.connections} clients creating, beside ${STREAMS} open streams, ms`,
        result: `p50 ${ms(crowded.p50)}, p99 ${ms(crowded.p99)}`,
      },
      { store, measure: 'memory per open stream, bytes', result: String(Math.round(perStream)) },
    )
    return rows
  } finally {
    await Promise.all(children.map(stop))
  }
}

export async function runEvents(settings: EventsSettings): Promise<void> {
  console.log(
    `\nThe change feed: ${STREAMS} open streams beside reads and creates, event latency from a` +
      ` create's answer to a subscriber (${LATENCY_SAMPLES} creates, idle and beside` +
      ` ${settings.connections} clients creating), memory per stream; each comparison measured` +
      ` ${ROUNDS} times in turn. On PostgreSQL, creates with events against the same service` +
      ` storing none, ${OUTBOX_ROUNDS} times in turn, first, both services having served the` +
      ` same ${STREAMS} streams.`,
  )
  const rows = []
  if (benchStores().includes('memory')) rows.push(...(await onStore('memory', settings)))
  if (benchStores().includes('postgres') && (await postgresProblem()) === undefined) {
    rows.push(...(await onStore('postgres', settings)))
  }
  console.table(rows)
}
