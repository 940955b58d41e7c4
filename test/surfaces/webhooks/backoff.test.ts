// Retry delays at every allowed setting (docs/webhooks.md#delivery): gaps of base, twice that,
// and so on, capped at one day, so that the largest settings (WEBHOOK_RETRY_BASE_MS=3600000,
// WEBHOOK_MAX_ATTEMPTS=100) still give a delay every store holds, and the delivery is marked
// failed after its last attempt. Time is moved on by the test, not waited for.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { MemoryEventLog } from '../../../src/events/memory-store.js'
import type { Queryable } from '../../../src/store/postgres/database.js'
import {
  MAX_RETRY_DELAY_MS,
  nextStep,
  retryDelayMs,
} from '../../../src/surfaces/webhooks/backoff.js'
import { MemoryWebhookStore } from '../../../src/surfaces/webhooks/memory-store.js'
import type { ClaimLimits, WebhookStore } from '../../../src/surfaces/webhooks/store.js'
import { forEachStore } from '../../support/stores.js'

const DAY_MS = 24 * 60 * 60 * 1000
const LARGEST = { baseMs: 3_600_000, maxAttempts: 100 }
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'

test('the delay at every allowed setting: a whole number of ms, at least doubling, at most a day', () => {
  assert.equal(MAX_RETRY_DELAY_MS, DAY_MS)
  for (const baseMs of [1, 2, 1000, 999_999, 3_600_000]) {
    let before = 0
    for (let attempt = 1; attempt < 100; attempt++) {
      const delay = retryDelayMs(baseMs, attempt)
      assert.ok(Number.isSafeInteger(delay) && delay >= 1, `${baseMs}, ${attempt}: ${delay}`)
      // What a timer and a PostgreSQL integer hold.
      assert.ok(delay <= DAY_MS && delay <= 2 ** 31 - 1, `${baseMs}, ${attempt}: ${delay}`)
      assert.ok(delay >= Math.min(2 * before, DAY_MS), `${baseMs}, ${attempt}: ${delay}`)
      before = delay
    }
  }
  assert.deepEqual(
    [1, 2, 8].map((attempt) => retryDelayMs(1000, attempt)),
    [1000, 2000, 128_000],
  )
  assert.equal(retryDelayMs(1000, 24), DAY_MS)
  assert.equal(retryDelayMs(3_600_000, 5), 57_600_000)
  assert.equal(retryDelayMs(3_600_000, 6), DAY_MS)
})

test('what follows an attempt: delivered, retried after the delay, or failed at the last', () => {
  assert.deepEqual(nextStep(true, 100, 100, 1000), { result: 'delivered' })
  assert.deepEqual(nextStep(false, 99, 100, 1000), { result: 'retrying', retryInMs: DAY_MS })
  assert.deepEqual(nextStep(false, 100, 100, 1000), { result: 'failed' })
  assert.deepEqual(nextStep(false, 1, 1, 1000), { result: 'failed' })
})

/** Claims that take whatever is due. */
const anyDue: ClaimLimits = { leaseMs: 60_000, perSubscription: 10, held: new Map(), shared: 10 }

/**
 * Attempts the one delivery pending, each failing, as the deliverer would with the largest
 * settings, until it is over; after each attempt recorded, `makeDue` moves its time on.
 */
async function failEveryAttempt(store: WebhookStore, makeDue: () => Promise<void>) {
  const results: string[] = []
  for (let round = 0; round < LARGEST.maxAttempts + 5; round++) {
    const [due] = await store.claim(anyDue)
    if (due === undefined) break
    const step = nextStep(false, due.attempt, LARGEST.maxAttempts, LARGEST.baseMs)
    await store.record([
      {
        due,
        attempt: {
          event_id: due.eventId,
          attempt: due.attempt,
          status_code: 500,
          error: null,
          duration_ms: 1,
          result: step.result,
        },
        ...(step.retryInMs !== undefined && { retryInMs: step.retryInMs }),
      },
    ])
    results.push(step.result)
    if (step.retryInMs !== undefined) {
      // Not due before its delay is over.
      assert.deepEqual(await store.claim(anyDue), [])
      await makeDue()
    }
  }
  return results
}

await forEachStore('the largest backoff settings', (kind) => {
  test('a delivery failing every attempt is marked failed after its 100th', async () => {
    const stores = await kind.fresh()
    let now = Date.now()
    // Memory: its own store over the same log, on a clock the test moves on by a day.
    const store =
      kind.name === 'memory'
        ? new MemoryWebhookStore(stores.events as MemoryEventLog, 100, undefined, () => now)
        : stores.webhooks
    // PostgreSQL: the delivery made due again where it waits (its delay fits the column).
    const db = (stores.webhooks as unknown as { db: Queryable }).db
    const makeDue = async () => {
      if (kind.name === 'memory') now += DAY_MS
      else await db.query('UPDATE webhook_deliveries SET next_at = now()')
    }
    const webhook = await store.create({
      url: 'http://a.example/',
      types: ['tugas.*'],
      secret: SECRET,
    })
    await stores.tugas.create({ title: 'Selalu gagal', status: 'belum' })
    for (let waited = 0; waited < 5000; waited += 20) {
      if ((await store.claim({ ...anyDue, leaseMs: 0 })).length > 0) break
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const results = await failEveryAttempt(store, makeDue)
    assert.equal(results.length, LARGEST.maxAttempts)
    assert.deepEqual(new Set(results.slice(0, -1)), new Set(['retrying']))
    assert.equal(results.at(-1), 'failed')
    const [last] = await store.attempts(webhook.id)
    assert.deepEqual(
      { attempt: last?.attempt, result: last?.result },
      { attempt: 100, result: 'failed' },
    )
    // Over: nothing more is due, a day later or ever.
    await makeDue()
    assert.deepEqual(await store.claim(anyDue), [])
  })
})
