// EVENTS_BUFFER_BYTES on the real process (dist/main.js, as `npm start` runs it; on PostgreSQL in
// the PostgreSQL pass): hundreds of streams whose clients never read while thousands of large
// events are written. The service's resident memory stays within the budget plus a fixed
// margin, the streams holding the most are dropped, a stream that reads goes on, and GET
// /tugas/1 stays fast. Needs a process of its own (OWN_PROCESS): it times requests.
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { after, test } from 'node:test'
import { setTimeout as pause } from 'node:timers/promises'
import { TEST_STORE } from '../../support/helpers.js'
import { freePort } from '../../support/ports.js'
import { freshDatabaseUrl } from '../../support/postgres.js'
import { openStream } from '../../support/sse.js'

const root = new URL('../../..', import.meta.url).pathname
/** node's own flags in package.json's start script: the process runs as `npm start` runs it. */
const START_FLAGS = (
  JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { scripts: { start: string } }
).scripts.start
  .split(/\s+/)
  .filter((word) => word.startsWith('--'))
const BUDGET = 8 * 1024 * 1024
/**
 * What the process grows by besides the streams' data: the garbage of the writes and the heap
 * that grows with it, as with no stream open (docs/events.md#memory).
 */
const MARGIN = 96 * 1024 * 1024
const STALLED = 300
const EVENTS = 1500
const TITLE_BYTES = 16 * 1024

const children: ChildProcess[] = []
const sockets: Socket[] = []
after(() => {
  for (const socket of sockets) socket.destroy()
  for (const child of children) child.kill('SIGKILL')
})

/** The service's resident memory in bytes, from the kernel's view of the process. */
function residentBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]) * 1024
}

/** A client that asks for the stream and never reads a byte of it. */
function stalledStream(port: number): Socket {
  const socket = connect(port, '127.0.0.1')
  // Paused before it connects: nothing is ever read from the kernel.
  socket.pause()
  socket.on('error', () => {})
  socket.write('GET /events HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\n\r\n')
  sockets.push(socket)
  return socket
}

async function openStreams(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text()
  return Number(/^tugas_event_streams (\d+)$/m.exec(text)?.[1])
}

/**
 * A service as `npm start` runs it, with a small budget and a short retention; its URL and pid.
 * It logs warnings only, to no pipe: a line per request read by this process, busy with the
 * writes, would hold the service up whenever the pipe filled.
 */
async function service(): Promise<{ url: string; pid: number }> {
  const port = await freePort()
  const child = spawn(process.execPath, [...START_FLAGS, 'dist/main.js'], {
    cwd: root,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      EVENTS_BUFFER_BYTES: String(BUDGET),
      EVENTS_RETAIN: '100',
      ...(TEST_STORE === 'postgres' && { DATABASE_URL: await freshDatabaseUrl() }),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  children.push(child)
  const url = `http://127.0.0.1:${port}`
  for (const deadline = Date.now() + 30_000; ; await pause(50)) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error('the service did not start')
    const ready = await fetch(`${url}/health/ready`).catch(() => undefined)
    if (ready?.status === 200) return { url, pid: child.pid as number }
  }
}

/** PUT /todos/1 on `url`, after its POST /todos made it; resolves once the answer is read. */
async function todoWriter(url: string): Promise<(title: string) => Promise<unknown>> {
  await fetch(`${url}/todos`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Awal' }),
  })
  return (title: string) =>
    fetch(`${url}/todos/1`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title }),
    }).then((response) => response.arrayBuffer())
}

test('streams that never read hold at most EVENTS_BUFFER_BYTES together; GET /tugas/1 stays fast', async () => {
  // The service under test, and a control without stalled streams that gets the same writes and
  // probes at the same moments: a machine busy with other work slows both alike.
  const [tested, control] = await Promise.all([service(), service()])
  const { url, pid } = tested
  const port = Number(new URL(url).port)
  const [put, putControl] = await Promise.all([todoWriter(url), todoWriter(control.url)])
  const reading = await openStream(`${url}/events?types=todos.*`)
  after(() => reading.close())
  for (let n = 0; n < STALLED; n += 1) stalledStream(port)
  while ((await openStreams(url)) < STALLED + 1) await pause(20)
  // Warmed up on small events, then the baseline.
  for (let n = 0; n < 100; n += 1) await Promise.all([put(`Pemanasan ${n}`), putControl('-')])
  const baseline = residentBytes(pid)

  let peak = baseline
  const sampler = setInterval(() => {
    peak = Math.max(peak, residentBytes(pid))
  }, 20)
  const [latencies = [], alone = []] = await probedWhileWriting(
    [url, control.url],
    [put, putControl],
  )
  await put('Akhir')
  await reading.until((frames) => frames.some((frame) => frame.data?.includes('"title":"Akhir"')))
  clearInterval(sampler)
  peak = Math.max(peak, residentBytes(pid))
  const remaining = await openStreams(url)

  const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`
  const [streams, without] = [latencies, alone].map(spread) as [Spread, Spread]
  // The figures, for the record when it fails.
  const seen = `baseline ${mib(baseline)}, peak ${mib(peak)}, streams left ${remaining}, GET /tugas/1 median ${streams.median.toFixed(1)} ms, slowest ${streams.slowest.toFixed(1)} ms (the control without stalled streams ${without.median.toFixed(1)} and ${without.slowest.toFixed(1)} ms)`
  assert.ok(peak - baseline <= BUDGET + MARGIN, seen)
  // The stalled streams were dropped; the one that reads was not.
  assert.ok(remaining < STALLED / 2, seen)
  // Fast: as before on an idle machine, and within three times the control at the same moments.
  assert.ok(streams.median < Math.max(50, 3 * without.median), seen)
  assert.ok(streams.slowest < Math.max(1000, 3 * without.slowest), seen)
})

interface Spread {
  median: number
  slowest: number
}

function spread(latencies: number[]): Spread {
  const sorted = [...latencies].sort((a, b) => a - b)
  return { median: sorted[Math.floor(sorted.length / 2)] ?? 0, slowest: sorted.at(-1) ?? 0 }
}

/**
 * GET /tugas/1's times on each of `urls`, probed in turn every 25 ms, while eight writers send
 * EVENTS large events through each of `puts`.
 */
async function probedWhileWriting(
  urls: string[],
  puts: ((title: string) => Promise<unknown>)[],
): Promise<number[][]> {
  const latencies = urls.map((): number[] => [])
  let writing = true
  const prober = (async () => {
    while (writing) {
      for (const [i, url] of urls.entries()) {
        const started = performance.now()
        await (await fetch(`${url}/tugas/1`)).arrayBuffer()
        latencies[i]?.push(performance.now() - started)
      }
      await pause(25)
    }
  })()
  const filler = 'x'.repeat(TITLE_BYTES)
  let next = 0
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let n = next++; n < EVENTS; n = next++) {
        await Promise.all(puts.map((put) => put(`${n} ${filler}`)))
      }
    }),
  )
  writing = false
  await prober
  return latencies
}
