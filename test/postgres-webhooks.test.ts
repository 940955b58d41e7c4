// Webhooks on PostgreSQL across processes (docs/webhooks.md#at-least-once): two deliverers on
// one database never make the same attempt twice, not even when the resolver never answers
// (its time counts within the attempt's, so the claim outlives it), and a delivery waiting out
// its backoff when the process is killed (SIGKILL to its whole group) is made by the next
// process to start. The last runs dist/: `npm run build` first (`npm test` does).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import { SEQUENCER_LOCK } from '../src/events/pg-sequencer.js'
import { PgEventLog } from '../src/events/pg-store.js'
import { Database } from '../src/store/postgres/database.js'
import { createPostgresStores, EVENT_RENDERERS } from '../src/stores.js'
import { Deliverer } from '../src/surfaces/webhooks/deliverer.js'
import { PgWebhookStore } from '../src/surfaces/webhooks/pg-store.js'
import { NameResolver } from '../src/surfaces/webhooks/resolver.js'
import { testApp } from './support/helpers.js'
import { freshDatabaseUrl, migratedSchema, skipWithoutPostgres } from './support/postgres.js'
import { listening, npmStart } from './support/processes.js'
import { answer, Receiver } from './support/receiver.js'
import { SilentDns } from './support/silent-dns.js'
import { ADMIN } from './support/supporting.js'

const skip = await skipWithoutPostgres()

const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }

let receiver: Receiver
before(async () => {
  receiver = await Receiver.start()
})
after(() => receiver?.close())

const post = (base: string, path: string, body: unknown) =>
  fetch(`${base}${path}`, { method: 'POST', headers: admin, body: JSON.stringify(body) })

async function subscribe(base: string, path: string): Promise<number> {
  const response = await post(base, '/webhooks', { url: receiver.url(path), types: ['tugas.*'] })
  assert.equal(response.status, 201)
  return ((await response.json()) as { data: { id: number } }).data.id
}

interface Attempt {
  event_id: number
  attempt: number
  status_code: number | null
  result: string
}

async function attempts(base: string, id: number, count: number): Promise<Attempt[]> {
  for (let waited = 0; waited < 20_000; waited += 50) {
    const response = await fetch(`${base}/webhooks/${id}/deliveries`, { headers: admin })
    const { data } = (await response.json()) as { data: Attempt[] }
    if (data.length >= count) return data
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`fewer than ${count} attempts recorded`)
}

describe('webhooks on PostgreSQL, several processes', { skip }, () => {
  test('a replay includes the writes before it: their events are numbered first', async () => {
    const databaseUrl = await freshDatabaseUrl()
    const app = await testApp({ config: { databaseUrl, webhookAllowPrivate: true } })
    await app.listen({ host: '127.0.0.1', port: 0 })
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
    const id = await subscribe(base, '/replayed')
    // The sequencer held off (its lock taken here): the task's event waits for its id.
    const holder = new pg.Client({ connectionString: databaseUrl })
    await holder.connect()
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [SEQUENCER_LOCK])
      assert.equal((await post(base, '/tugas', { title: 'Diputar ulang' })).status, 201)
      const replaying = post(base, `/webhooks/${id}/replay`, { after: '0' })
      // Time for a replay that did not wait to answer before the lock is let go.
      await new Promise((resolve) => setTimeout(resolve, 300))
      await holder.query('SELECT pg_advisory_unlock($1)', [SEQUENCER_LOCK])
      const replayed = await replaying
      assert.equal(replayed.status, 202)
      assert.deepEqual(await replayed.json(), { data: { queued: 1 } })
    } finally {
      await holder.end()
    }
  })

  test('two deliverers on one database: each attempt is made once', async () => {
    const databaseUrl = await freshDatabaseUrl()
    const apps: FastifyInstance[] = []
    const bases: string[] = []
    for (let i = 0; i < 2; i++) {
      const app = await testApp({
        config: { databaseUrl, webhookAllowPrivate: true, webhookRetryBaseMs: 50 },
        closedBy: 'caller',
      })
      await app.listen({ host: '127.0.0.1', port: 0 })
      apps.push(app)
      bases.push(`http://127.0.0.1:${(app.server.address() as { port: number }).port}`)
    }
    try {
      const [base0 = '', base1 = ''] = bases
      const id = await subscribe(base0, '/two')
      // The first ten requests fail, whichever events they carry: ten retries to share out.
      receiver.answers('/two', ...Array.from({ length: 10 }, () => answer.status(500)))
      const tasks = 30
      await Promise.all(
        Array.from({ length: tasks }, (_, i) =>
          post(i % 2 ? base1 : base0, '/tugas', { title: `Tugas ${i}`, status: 'belum' }),
        ),
      )
      const received = await receiver.until('/two', tasks + 10, 30_000)
      const kept = await attempts(base1, id, tasks + 10)
      // Nothing more comes: every event was delivered once, after its failures.
      await new Promise((resolve) => setTimeout(resolve, 1500))
      assert.equal(receiver.at('/two').length, tasks + 10)
      const byEvent = new Map<string, number>()
      for (const request of received) {
        const event = String(request.headers['webhook-id'])
        byEvent.set(event, (byEvent.get(event) ?? 0) + 1)
      }
      assert.equal(byEvent.size, tasks)
      // Each recorded attempt was made once: (event, attempt) pairs are unique, and each event
      // ends with one delivered attempt.
      const pairs = new Set(kept.map(({ event_id, attempt }) => `${event_id}/${attempt}`))
      assert.equal(pairs.size, kept.length)
      assert.equal(kept.filter(({ result }) => result === 'delivered').length, tasks)
      for (const [event, count] of byEvent) {
        const made = kept.filter(({ event_id }) => String(event_id) === event).length
        assert.equal(count, made, `event ${event}: ${count} requests, ${made} attempts recorded`)
      }
    } finally {
      for (const app of apps) await app.close()
    }
  })

  test('a resolver that never answers: the attempt times out within its claim, no second process makes it', async () => {
    const lease = await migratedSchema()
    const dns = await SilentDns.start()
    // Two processes' connections to one schema, one change feed telling both.
    const dbs = [0, 1].map(
      () => new Database({ url: lease.url, poolSize: 4, statementTimeoutMs: 5000 }),
    )
    const [db = dbs[0] as Database] = dbs
    const events = new PgEventLog({
      db,
      sequencer: db.background('events'),
      listenUrl: lease.directUrl,
      retain: 1000,
      renderers: EVENT_RENDERERS,
    })
    await events.start()
    const stores = createPostgresStores(db, events)
    const timeoutMs = 300
    const leaseMarginMs = 1000
    // Each claim held 1 s past the timeout: a lookup that outlived the attempt's time (the
    // resolver's own would retry for many seconds) would let the other deliverer, looking every
    // 20 ms, claim the delivery again. The margin is long enough for a loaded machine to record
    // the attempt before the claim runs out (100 ms was not, in CI: a second attempt 1).
    const deliverers = dbs.map(
      (each) =>
        new Deliverer({
          store: new PgWebhookStore(each, events, EVENT_RENDERERS),
          timeoutMs,
          retryBaseMs: 60_000,
          maxAttempts: 3,
          allowPrivate: true,
          resolver: new NameResolver([dns.server]),
          leaseMarginMs,
          tickMs: 20,
        }),
    )
    try {
      for (const deliverer of deliverers) deliverer.start()
      const hook = await stores.webhooks.create({
        url: 'http://hook.example/',
        types: ['tugas.*'],
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      })
      await stores.tugas.create({ title: 'Nama tak terjawab', status: 'belum' })
      // Two claims' length (each would have run out and been taken again), watching how many
      // attempts the two make at once.
      let most = 0
      const watch = setInterval(() => {
        most = Math.max(
          most,
          deliverers.reduce((sum, { inFlight }) => sum + inFlight, 0),
        )
      }, 5)
      await new Promise((resolve) => setTimeout(resolve, 2 * (timeoutMs + leaseMarginMs)))
      clearInterval(watch)
      assert.equal(most, 1, 'attempts of the one delivery at once')
      const kept = await stores.webhooks.attempts(hook.id)
      assert.deepEqual(
        kept.map(({ attempt, status_code, error, result }) => ({
          attempt,
          status_code,
          error,
          result,
        })),
        [
          {
            attempt: 1,
            status_code: null,
            error: 'timeout: the host did not resolve in time',
            result: 'retrying',
          },
        ],
      )
      const took = kept[0]?.duration_ms ?? 0
      assert.ok(took < timeoutMs + leaseMarginMs, `${took} ms: past the claim`)
      assert.ok(dns.queries > 0)
    } finally {
      for (const deliverer of deliverers) await deliverer.close()
      await events.close()
      for (const each of dbs) await each.close()
      await dns.close()
      await lease.release()
    }
  })

  test('SIGKILL during a backoff: the next process makes the delivery', async () => {
    const env = {
      DATABASE_URL: await freshDatabaseUrl(),
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_BASE_MS: '2000',
      LOG_LEVEL: 'warn',
    }
    const first = npmStart({ ...env, LOG_LEVEL: 'info' })
    const base = await listening(first, [])
    const id = await subscribe(base, '/killed')
    receiver.answers('/killed', answer.status(503))
    assert.equal(
      (await post(base, '/tugas', { title: 'Sebelum mati', status: 'belum' })).status,
      201,
    )
    const [failed] = await attempts(base, id, 1)
    assert.equal(failed?.result, 'retrying')
    // Killed while the retry waits its 2 s: nothing of this process runs again.
    process.kill(-(first.pid as number), 'SIGKILL')
    const killedAt = performance.now()

    const second = npmStart({ ...env, LOG_LEVEL: 'info' })
    const restarted = await listening(second, [])
    const [, retried] = await receiver.until('/killed', 2, 20_000)
    assert.ok(retried)
    assert.equal(retried.headers['webhook-id'], String(failed?.event_id))
    const kept = await attempts(restarted, id, 2)
    assert.deepEqual(
      kept.map(({ attempt, status_code, result }) => ({ attempt, status_code, result })),
      [
        { attempt: 2, status_code: 204, result: 'delivered' },
        { attempt: 1, status_code: 503, result: 'retrying' },
      ],
    )
    // Not before its backoff was over.
    assert.ok(retried.at - killedAt > 0)
    process.kill(-(second.pid as number), 'SIGKILL')
  })
})
