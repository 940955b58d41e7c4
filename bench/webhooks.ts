// The webhooks' scenario (issue 25), on each store: what subscriptions cost a create (none, one
// and ten subscribed, to a receiver that answers 204 at once), measured in turn, and the time
// from a create's answer to its delivery at the receiver.
import type { ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import {
  benchStores,
  create,
  type EventsSettings,
  POST_TASK,
  percentile,
  ROUNDS,
  rate,
  ratio,
  type Store,
  service,
} from './events.js'
import { measure, postgresProblem, ROOT, SERVICE_ARGS, startServer, stop } from './servers.js'

const LATENCY_SAMPLES = 200
const ADMIN = { authorization: 'Bearer demo-admin-token', 'content-type': 'application/json' }

/**
 * CPU time the whole machine has spent (every core, every process: the service, PostgreSQL, the
 * load generator, the receiver), in microseconds (Linux).
 */
function machineMicroseconds(): number {
  const [user, nice, system, , , irq, softirq] = (
    readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? ''
  )
    .split(/\s+/)
    .slice(1)
    .map(Number)
  const ticks = (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0)
  return (ticks * 1_000_000) / CLOCK_TICKS
}
/** USER_HZ: /proc/stat counts in hundredths of a second on Linux. */
const CLOCK_TICKS = 100
const CPU_CREATES = 5000

/** The machine's CPU per request of `count` POSTs of a task to `url` (10 connections). */
async function cpuPerPost(url: string, count: number, settle?: () => Promise<void>) {
  const before = machineMicroseconds()
  await measure({
    url,
    connections: 10,
    amount: count,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: POST_TASK,
  })
  await settle?.()
  return (machineMicroseconds() - before) / count
}

/** A receiver that answers 204 at once and notes when each task's `tugas.created` arrives. */
async function receiver() {
  const arrived = new Map<string, number>()
  const waiting = new Map<string, () => void>()
  let received = 0
  let last = 0
  const server = createServer((request, response) => {
    let body = ''
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => {
      body += chunk
    })
    request.on('end', () => {
      response.writeHead(204).end()
      last = performance.now()
      if (request.url !== '/latency') return
      received += 1
      const subject = /"subject":"(\d+)"/.exec(body)?.[1]
      if (subject === undefined) return
      arrived.set(subject, performance.now())
      waiting.get(subject)?.()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    base,
    /** Milliseconds from a create's answer on `url` to its delivery here. */
    async latency(url: string): Promise<number> {
      const id = await create(url)
      const answered = performance.now()
      if (!arrived.has(id)) await new Promise<void>((done) => waiting.set(id, done))
      waiting.delete(id)
      return (arrived.get(id) as number) - answered
    },
    /** Resolves once `count` deliveries to /latency have arrived since `from`. */
    async drained(from: number, count: number): Promise<void> {
      while (received - from < count) await new Promise((resolve) => setTimeout(resolve, 20))
    },
    /** Resolves once no delivery has arrived for a second (a backlog is drained). */
    async quiet(): Promise<void> {
      while (performance.now() - last < 1000)
        await new Promise((resolve) => setTimeout(resolve, 100))
    },
    /** Deliveries to /latency so far. */
    get received() {
      return received
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  }
}

async function subscribe(url: string, target: string, count: number): Promise<void> {
  for (let n = 0; n < count; n++) {
    const response = await fetch(`${url}/webhooks`, {
      method: 'POST',
      headers: ADMIN,
      body: JSON.stringify({ url: target, types: ['tugas.created'] }),
    })
    if (response.status !== 201) throw new Error(`POST /webhooks: ${response.status}`)
  }
}

async function onStore(store: Store, settings: EventsSettings) {
  const children: ChildProcess[] = []
  const fast = await receiver()
  try {
    const env = { WEBHOOK_ALLOW_PRIVATE: 'true' }
    const start = (name: string) => service(children, store, name, SERVICE_ARGS, env)
    const [none, one, ten] = [
      await start('tugas_bench_hooks_0'),
      await start('tugas_bench_hooks_1'),
      await start('tugas_bench_hooks_10'),
    ]
    await subscribe(one.url, `${fast.base}/latency`, 1)
    await subscribe(ten.url, `${fast.base}/ten`, 10)
    // In turn, so that the machine's drift falls on all three alike.
    const sums = { none: { rate: 0, cpu: 0 }, one: { rate: 0, cpu: 0 }, ten: { rate: 0, cpu: 0 } }
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const [name, running] of [
        ['none', none],
        ['one', one],
        ['ten', ten],
      ] as const) {
        const { rate: measured, cpu } = await rate(running, true, settings)
        sums[name].rate += measured / ROUNDS
        sums[name].cpu += cpu / ROUNDS
      }
    }
    // Let the deliveries the load queued drain before timing one at a time.
    await new Promise((resolve) => setTimeout(resolve, 3000))
    // What a delivery costs the machine, against the cheapest HTTP exchange there is: the load
    // generator posting to a bare node:http server. Creates with one subscription count until
    // every delivery has arrived; each side settles for a second, so both count the same idle.
    const bare = startServer([join(ROOT, 'bench/bare-server.mjs')], {})
    children.push(bare.child)
    const bareUrl = await bare.url
    const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 1000))
    // The ten subscriptions' backlog would go on using the machine: that service is done.
    const tenChild = children.find((child) => child.pid === ten.pid)
    if (tenChild !== undefined) await stop(tenChild)
    await fast.quiet()
    const cpu = { bare: 0, none: 0, one: 0 }
    await cpuPerPost(bareUrl, CPU_CREATES)
    for (let round = 0; round < ROUNDS; round += 1) {
      cpu.bare += (await cpuPerPost(bareUrl, CPU_CREATES, settle)) / ROUNDS
      cpu.none += (await cpuPerPost(`${none.url}/tugas`, CPU_CREATES, settle)) / ROUNDS
      const from = fast.received
      cpu.one +=
        (await cpuPerPost(`${one.url}/tugas`, CPU_CREATES, async () => {
          await fast.drained(from, CPU_CREATES)
          await settle()
        })) / ROUNDS
    }
    const times: number[] = []
    for (let n = 0; n < LATENCY_SAMPLES; n += 1) {
      times.push(await fast.latency(one.url))
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    times.sort((a, b) => a - b)
    const ms = (value: number) => value.toFixed(2)
    return [
      {
        store,
        measure: 'POST /tugas, req/s, one webhook vs none',
        result: ratio(sums.one, sums.none, 'none'),
      },
      {
        store,
        measure: 'POST /tugas, req/s, ten webhooks vs none',
        result: ratio(sums.ten, sums.none, 'none'),
      },
      {
        store,
        measure: 'machine CPU per create, µs: none, one webhook (its delivery included)',
        result: `${Math.round(cpu.none)}, ${Math.round(cpu.one)}`,
      },
      {
        store,
        measure: 'a delivery against a bare node:http exchange, machine CPU, µs',
        result: `${Math.round(cpu.one - cpu.none)} vs ${Math.round(cpu.bare)}`,
      },
      {
        store,
        measure: 'delivery latency to a fast receiver, idle, ms',
        result: `p50 ${ms(percentile(times, 0.5))}, p99 ${ms(percentile(times, 0.99))}`,
      },
    ]
  } finally {
    await Promise.all(children.map(stop))
    await fast.close()
  }
}

export async function runWebhooks(settings: EventsSettings): Promise<void> {
  console.log(
    '\nWebhooks: creates with one and with ten subscriptions (to a receiver in the bench process' +
      ` that answers 204 at once) against none, ${ROUNDS} times in turn; the time from a` +
      ` create's answer to its delivery (${LATENCY_SAMPLES} creates, one subscription, idle);` +
      ` the whole machine's CPU per create with none and with one subscription (until every` +
      ` delivery has arrived), and per POST to a bare node:http server, ${CPU_CREATES} each,` +
      ` ${ROUNDS} times in turn.`,
  )
  const rows = []
  if (benchStores().includes('memory')) rows.push(...(await onStore('memory', settings)))
  if (benchStores().includes('postgres') && (await postgresProblem()) === undefined) {
    rows.push(...(await onStore('postgres', settings)))
  }
  console.table(rows)
}
