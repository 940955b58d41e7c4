// The IdempotencyStore contract, on every implementation: one atomic begin (new, replay,
// mismatch, in flight), the answer kept exactly, release, the lease of a first request that
// never answers, keys forgotten after 24 hours; then each store's own: the memory bounds, the
// PostgreSQL sweep of forgotten rows.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { MemoryIdempotencyStore } from '../../src/store/idempotency/memory-store.js'
import { PgIdempotencyStore } from '../../src/store/idempotency/pg-store.js'
import {
  type Begun,
  type IdempotencyStore,
  KEY_LIFETIME_MS,
  type KeyRef,
  LEASE_MS,
  type StoredAnswer,
} from '../../src/store/idempotency/store.js'
import { freshDatabase, skipWithoutPostgres } from '../support/postgres.js'
import { forEachStore } from '../support/stores.js'

const T0 = new Date('2026-03-01T08:00:00.000Z')
const at = (ms: number) => new Date(T0.getTime() + ms)
const ref = (key: string, scope = 'POST /tugas'): KeyRef => ({ scope, key })

const CREATED: StoredAnswer = {
  status: 201,
  body: '{"id":7,"title":"Belajar Fastify","status":"belum"}',
  headers: {
    'content-type': 'application/json; charset=utf-8',
    location: '/tugas/7',
    etag: '"abc"',
  },
}

function tokenOf(begun: Begun): string {
  assert.equal(begun.outcome, 'new', JSON.stringify(begun))
  return (begun as { token: string }).token
}

await forEachStore('IdempotencyStore', (kind) => {
  const fresh = async (): Promise<IdempotencyStore> => (await kind.fresh()).idempotency

  test('a new key is taken; with the same body it is in flight, then replayed once answered', async () => {
    const store = await fresh()
    const token = tokenOf(await store.begin(ref('k1'), 'fp-a', T0))
    assert.deepEqual(await store.begin(ref('k1'), 'fp-a', at(1)), { outcome: 'in-flight' })
    await store.complete(ref('k1'), token, CREATED)
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(await store.begin(ref('k1'), 'fp-a', at(2 + i)), {
        outcome: 'replay',
        answer: CREATED,
      })
    }
  })

  test('the same key with another body is a mismatch, in flight or answered', async () => {
    const store = await fresh()
    const token = tokenOf(await store.begin(ref('k'), 'fp-a', T0))
    assert.deepEqual(await store.begin(ref('k'), 'fp-b', at(1)), { outcome: 'mismatch' })
    await store.complete(ref('k'), token, CREATED)
    assert.deepEqual(await store.begin(ref('k'), 'fp-b', at(2)), { outcome: 'mismatch' })
    assert.equal((await store.begin(ref('k'), 'fp-a', at(3))).outcome, 'replay')
  })

  test('a key is per scope: the same key on another target, or another key, is new', async () => {
    const store = await fresh()
    const token = tokenOf(await store.begin(ref('k'), 'fp', T0))
    await store.complete(ref('k'), token, CREATED)
    tokenOf(await store.begin(ref('k', 'POST /v1/tugas'), 'fp', T0))
    tokenOf(await store.begin(ref('k', 'POST /tugas/1/komentar'), 'other', T0))
    tokenOf(await store.begin(ref('K'), 'fp', T0))
    assert.equal((await store.begin(ref('k'), 'fp', T0)).outcome, 'replay')
  })

  test('every answer is kept exactly: status, body text, headers, an empty body', async () => {
    const store = await fresh()
    const answers: StoredAnswer[] = [
      { status: 422, body: '{"error":{"kode":"VALIDASI_GAGAL"}}', headers: {} },
      { status: 200, body: '{"isi":"a\u0000b 😀 \\\\u0000 é"}', headers: { etag: '"x"' } },
      { status: 204, body: '', headers: { 'x-a': 'b' } },
    ]
    for (const [i, answer] of answers.entries()) {
      const token = tokenOf(await store.begin(ref(`k${i}`), 'fp', T0))
      await store.complete(ref(`k${i}`), token, answer)
      assert.deepEqual(await store.begin(ref(`k${i}`), 'fp', T0), { outcome: 'replay', answer })
    }
  })

  test('a long target and the longest key are held', async () => {
    const store = await fresh()
    const scope = `POST /tugas/${'9'.repeat(20_000)}/komentar`
    const key = '~'.repeat(255)
    const token = tokenOf(await store.begin(ref(key, scope), 'fp', T0))
    await store.complete(ref(key, scope), token, CREATED)
    assert.equal((await store.begin(ref(key, scope), 'fp', T0)).outcome, 'replay')
  })

  test('release forgets an unanswered key: the next request with it is new, whatever its body', async () => {
    const store = await fresh()
    const token = tokenOf(await store.begin(ref('k'), 'fp-a', T0))
    await store.release(ref('k'), token)
    const again = tokenOf(await store.begin(ref('k'), 'fp-b', at(1)))
    assert.notEqual(again, token)
    assert.deepEqual(await store.begin(ref('k'), 'fp-a', at(2)), { outcome: 'mismatch' })
  })

  test('only the token that owns the key completes or releases it; an answer is kept once', async () => {
    const store = await fresh()
    const token = tokenOf(await store.begin(ref('k'), 'fp', T0))
    await store.complete(ref('k'), '00000000-0000-4000-8000-000000000001', CREATED)
    await store.release(ref('k'), '00000000-0000-4000-8000-000000000000')
    assert.deepEqual(await store.begin(ref('k'), 'fp', at(1)), { outcome: 'in-flight' })
    await store.complete(ref('k'), token, CREATED)
    await store.complete(ref('k'), token, { ...CREATED, status: 500 })
    await store.release(ref('k'), token)
    assert.deepEqual(await store.begin(ref('k'), 'fp', at(2)), {
      outcome: 'replay',
      answer: CREATED,
    })
    // Completing or releasing a key never begun does nothing.
    await store.complete(ref('none'), token, CREATED)
    await store.release(ref('none'), token)
    tokenOf(await store.begin(ref('none'), 'fp', at(3)))
  })

  test('a first request that never answers holds its key for the lease, then the same body takes it over', async () => {
    const store = await fresh()
    const first = tokenOf(await store.begin(ref('k'), 'fp', T0))
    assert.deepEqual(await store.begin(ref('k'), 'fp', at(LEASE_MS - 1)), { outcome: 'in-flight' })
    assert.deepEqual(await store.begin(ref('k'), 'other', at(LEASE_MS)), { outcome: 'mismatch' })
    const second = tokenOf(await store.begin(ref('k'), 'fp', at(LEASE_MS)))
    assert.notEqual(second, first)
    assert.deepEqual(await store.begin(ref('k'), 'fp', at(LEASE_MS + 1)), { outcome: 'in-flight' })
    // The first request, answering late, no longer owns the key.
    await store.complete(ref('k'), first, { ...CREATED, status: 200 })
    await store.release(ref('k'), first)
    assert.deepEqual(await store.begin(ref('k'), 'fp', at(LEASE_MS + 2)), { outcome: 'in-flight' })
    await store.complete(ref('k'), second, CREATED)
    assert.deepEqual(await store.begin(ref('k'), 'fp', at(LEASE_MS + 3)), {
      outcome: 'replay',
      answer: CREATED,
    })
  })

  test('a key is forgotten 24 hours after its first request: then it is new, whatever the body', async () => {
    const store = await fresh()
    const token = tokenOf(await store.begin(ref('k'), 'fp-a', T0))
    await store.complete(ref('k'), token, CREATED)
    const stale = tokenOf(await store.begin(ref('old'), 'fp', T0))
    const justBefore = at(KEY_LIFETIME_MS - 1)
    assert.equal((await store.begin(ref('k'), 'fp-a', justBefore)).outcome, 'replay')
    assert.deepEqual(await store.begin(ref('k'), 'fp-b', justBefore), { outcome: 'mismatch' })
    const dayLater = at(KEY_LIFETIME_MS)
    const renewed = tokenOf(await store.begin(ref('k'), 'fp-b', dayLater))
    tokenOf(await store.begin(ref('old'), 'fp', dayLater))
    // The old owner no longer owns it; the new one does.
    await store.release(ref('old'), stale)
    assert.deepEqual(await store.begin(ref('old'), 'fp', dayLater), { outcome: 'in-flight' })
    await store.complete(ref('k'), renewed, { ...CREATED, body: '{}' })
    assert.deepEqual(await store.begin(ref('k'), 'fp-b', at(KEY_LIFETIME_MS + 1)), {
      outcome: 'replay',
      answer: { ...CREATED, body: '{}' },
    })
  })

  test('20 concurrent begins of one key: exactly one is new, the others in flight', async () => {
    const store = await fresh()
    const begun = await Promise.all(
      Array.from({ length: 20 }, () => store.begin(ref('burst'), 'fp', T0)),
    )
    const outcomes = begun.map((one) => one.outcome)
    assert.equal(outcomes.filter((o) => o === 'new').length, 1, `outcomes: ${outcomes}`)
    assert.equal(outcomes.filter((o) => o === 'in-flight').length, 19, `outcomes: ${outcomes}`)
  })

  test('20 concurrent begins of one expired key: exactly one takes it anew', async () => {
    const store = await fresh()
    const token = tokenOf(await store.begin(ref('k'), 'fp', T0))
    await store.complete(ref('k'), token, CREATED)
    const later = at(KEY_LIFETIME_MS + 5)
    const begun = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.begin(ref('k'), i % 2 ? 'fp' : 'fp-2', later)),
    )
    const news = begun.filter((one) => one.outcome === 'new').length
    assert.equal(news, 1, JSON.stringify(begun.map((one) => one.outcome)))
  })
})

describe('MemoryIdempotencyStore bounds', () => {
  test('at most maxEntries keys: the oldest are forgotten first, answered or not', async () => {
    const store = new MemoryIdempotencyStore({ maxEntries: 3 })
    const tokens = []
    for (const key of ['a', 'b', 'c']) tokens.push(tokenOf(await store.begin(ref(key), 'fp', T0)))
    await store.complete(ref('a'), tokens[0] as string, CREATED)
    tokenOf(await store.begin(ref('d'), 'fp', at(1)))
    assert.equal(store.size, 3)
    // `a` was the oldest: forgotten, so its next request is new.
    tokenOf(await store.begin(ref('a'), 'fp', at(2)))
    assert.equal(store.size, 3)
    // That pushed out `b`; `c` and `d` are still held.
    assert.deepEqual(await store.begin(ref('d'), 'fp', at(3)), { outcome: 'in-flight' })
    assert.deepEqual(await store.begin(ref('c'), 'fp', at(3)), { outcome: 'in-flight' })
    tokenOf(await store.begin(ref('b'), 'fp', at(4)))
  })

  test('at most about maxBytes of text: a large answer pushes out the oldest keys, never itself', async () => {
    const store = new MemoryIdempotencyStore({ maxBytes: 30_000 })
    for (let i = 0; i < 20; i++) tokenOf(await store.begin(ref(`k${i}`), 'fp', at(i)))
    const token = tokenOf(await store.begin(ref('big'), 'fp', at(20)))
    const big = { ...CREATED, body: 'x'.repeat(20_000) }
    await store.complete(ref('big'), token, big)
    assert.ok(store.size < 21, `${store.size} keys`)
    assert.deepEqual(await store.begin(ref('big'), 'fp', at(21)), {
      outcome: 'replay',
      answer: big,
    })
    tokenOf(await store.begin(ref('k0'), 'fp', at(22)))
  })

  test('expired keys are swept: a day of keys, then one more, leaves one', async () => {
    const store = new MemoryIdempotencyStore()
    for (let i = 0; i < 100; i++) tokenOf(await store.begin(ref(`k${i}`), 'fp', at(i)))
    assert.equal(store.size, 100)
    tokenOf(await store.begin(ref('late'), 'fp', at(KEY_LIFETIME_MS + 99)))
    assert.equal(store.size, 1)
  })
})

describe('PgIdempotencyStore sweep', { skip: await skipWithoutPostgres() }, () => {
  test('rows 24 hours old are deleted by a later begin', async () => {
    const database = await freshDatabase()
    try {
      const store = new PgIdempotencyStore(database)
      for (let i = 0; i < 5; i++) tokenOf(await store.begin(ref(`k${i}`), 'fp', at(i)))
      const count = async () =>
        Number(
          (await database.query<{ n: string }>('SELECT count(*) AS n FROM idempotency_keys'))
            .rows[0]?.n,
        )
      assert.equal(await count(), 5)
      tokenOf(await store.begin(ref('late'), 'fp', at(KEY_LIFETIME_MS + 10)))
      assert.equal(await count(), 1)
    } finally {
      await database.close()
    }
  })
})
