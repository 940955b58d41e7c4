// Isolation (docs/webhooks.md#isolation): while one subscription has 150 deliveries pending to
// a receiver that accepts and never answers (its attempts waiting out a long timeout), another
// subscription's delivery is attempted within one second of its event: in memory, and on
// PostgreSQL with two processes delivering from one schema.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../../../src/config.js'
import { callJson, testApp } from '../../support/helpers.js'
import { freshDatabaseUrl, skipWithoutPostgres } from '../../support/postgres.js'
import { answer, Receiver, subscribe } from '../../support/receiver.js'

const PENDING = 150
/** Far beyond the test: an attempt to the dead receiver holds its slot all along. */
const TIMEOUT_MS = 120_000

let receiver: Receiver
before(async () => {
  receiver = await Receiver.start()
})
after(() => receiver?.close())

/**
 * `apps` (one, or several on one database) deliver 150 todos' events to a receiver that never
 * answers; then a task's event, to another subscription, arrives within a second of its write.
 */
async function isolated(apps: FastifyInstance[], dead: string, live: string) {
  const [first = apps[0] as FastifyInstance] = apps
  receiver.answers(dead, ...Array.from({ length: PENDING * 2 }, () => answer.silent()))
  await subscribe(first, receiver.url(dead), ['todos.*'])
  await subscribe(first, receiver.url(live), ['tugas.created'])
  for (let i = 0; i < PENDING; i++) {
    const app = apps[i % apps.length] as FastifyInstance
    const todo = await callJson(app, 'POST', '/todos', JSON.stringify({ title: `Todo ${i}` }))
    assert.equal(todo.statusCode, 201)
  }
  // The dead receiver holds attempts in flight (every process's share) before the event comes.
  await receiver.until(dead, 16 * apps.length, 5000)
  const task = await callJson(
    first,
    'POST',
    '/tugas',
    JSON.stringify({ title: 'Tidak tertahan', status: 'belum' }),
  )
  assert.equal(task.statusCode, 201)
  const written = performance.now()
  const [delivery] = await receiver.until(live, 1, 5000)
  const waited = (delivery?.at ?? Number.POSITIVE_INFINITY) - written
  assert.ok(waited < 1000, `delivered ${Math.round(waited)} ms after the write`)
  // The dead one's deliveries are still pending or in flight: none was given up.
  assert.ok(receiver.at(dead).length < PENDING, `${receiver.at(dead).length} attempts to it`)
}

const settings: Partial<Config> = { webhookAllowPrivate: true, webhookTimeoutMs: TIMEOUT_MS }

test('memory: 150 pending to a receiver that never answers hold back no other subscription', async () => {
  const app = await testApp({ config: settings })
  await isolated([app], '/dead-memory', '/live-memory')
})

const skip = await skipWithoutPostgres()

/**
 * The first 16 attempts of 200 wait 300 ms, so the rest pile up behind them; they must then go
 * as fast as attempts end (each end that leaves room claims again), not one claim per tick.
 */
async function drained(app: FastifyInstance, path: string) {
  receiver.answers(path, ...Array.from({ length: 16 }, () => answer.after(300, 204)))
  await subscribe(app, receiver.url(path), ['todos.created'])
  for (let i = 0; i < 200; i++) {
    const todo = await callJson(app, 'POST', '/todos', JSON.stringify({ title: `Antre ${i}` }))
    assert.equal(todo.statusCode, 201)
  }
  const written = performance.now()
  await receiver.until(path, 200, 20_000)
  const waited = performance.now() - written
  assert.ok(waited < 3000, `the last of 200 arrived ${Math.round(waited)} ms after the writes`)
}

test('memory: a subscription with a backlog is drained as fast as its receiver answers', async () => {
  await drained(await testApp({ config: { webhookAllowPrivate: true } }), '/backlog-memory')
})

describe('PostgreSQL', { skip }, () => {
  test('a subscription with a backlog is drained as fast as its receiver answers', async () => {
    const app = await testApp({
      config: { webhookAllowPrivate: true, databaseUrl: await freshDatabaseUrl() },
    })
    await drained(app, '/backlog-postgres')
  })

  test('two processes: 150 pending to a receiver that never answers hold back no other subscription', async () => {
    const databaseUrl = await freshDatabaseUrl()
    const apps: FastifyInstance[] = []
    try {
      for (let i = 0; i < 2; i++) {
        apps.push(await testApp({ config: { ...settings, databaseUrl }, closedBy: 'caller' }))
      }
      await isolated(apps, '/dead-postgres', '/live-postgres')
    } finally {
      for (const app of apps) await app.close()
    }
  })
})
