// The webhooks' scenario (issue 25), on each store: what subscriptions cost a create (none, one
// and ten subscribed, to a receiver that answers 204 at once), measured in turn, and the time
// from a create's answer to its delivery at the receiver.
import type { ChildProcess } from 'node:child_process'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  create,
  type EventsSettings,
  percentile,
  ROUNDS,
  rate,
  ratio,
  type Store,
  service,
} from './events.js'
import { postgresProblem, SERVICE_ARGS, stop } from './servers.js'

const LATENCY_SAMPLES = 200
const ADMIN = { authorization: 'Bearer demo-admin-token', 'content-type': 'application/json' }

/** A receiver that answers 204 at once and notes when each task's `tugas.created` arrives. */
async function receiver() {
  const arrived = new Map<string, number>()
  const waiting = new Map<string, () => void>()
  const server = createServer((request, response) => {
    let body = ''
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => {
      body += chunk
    })
    request.on('end', () => {
      response.writeHead(204).end()
      if (request.url !== '/latency') return
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
    const sums = { none: 0, one: 0, ten: 0 }
    for (let round = 0; round < ROUNDS; round += 1) {
      sums.none += await rate(none.url, true, settings)
      sums.one += await rate(one.url, true, settings)
      sums.ten += await rate(ten.url, true, settings)
    }
    // Let the deliveries the load queued drain before timing one at a time.
    await new Promise((resolve) => setTimeout(resolve, 3000))
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
        result: ratio(sums.one / ROUNDS, sums.none / ROUNDS, 'none'),
      },
      {
        store,
        measure: 'POST /tugas, req/s, ten webhooks vs none',
        result: ratio(sums.ten / ROUNDS, sums.none / ROUNDS, 'none'),
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
      ` create's answer to its delivery (${LATENCY_SAMPLES} creates, one subscription, idle).`,
  )
  const rows = await onStore('memory', settings)
  if ((await postgresProblem()) === undefined) rows.push(...(await onStore('postgres', settings)))
  console.table(rows)
}
