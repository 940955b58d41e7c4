// The in-memory token bucket of /laporan (Part 2, Limits: rate-limit rules 1 to 4; decisions.md
// section 5), on a fake monotonic clock: `now` is milliseconds, advanced by the tests.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { BucketPolicy, RateDecision } from '../../src/rate-limit/limiter.js'
import { TokenBucketLimiter } from '../../src/rate-limit/token-bucket.js'

/** A limiter on a clock that only moves when the test says so. */
function bucket(policy: BucketPolicy, start = 0) {
  let now = start
  const limiter = new TokenBucketLimiter(policy, () => now)
  return {
    limiter,
    take: (key = 'key') => limiter.take(key),
    advance(ms: number) {
      now += ms
    },
    set(ms: number) {
      now = ms
    },
  }
}

/** Takes `count` tokens of `key` at one instant and returns every decision. */
async function burst(limiter: TokenBucketLimiter, count: number, key = 'key') {
  const decisions: RateDecision[] = []
  for (let i = 0; i < count; i++) decisions.push(await limiter.take(key))
  return decisions
}

describe('token bucket: created full on first use (rules 1 and 3)', () => {
  test('capacity 3: exactly 3 admitted at one instant, the 4th refused; remaining 2, 1, 0, 0', async () => {
    const { limiter } = bucket({ capacity: 3, refillPerSecond: 1 })
    const decisions = await burst(limiter, 4)
    assert.deepEqual(
      decisions.map((d) => d.admitted),
      [true, true, true, false],
    )
    assert.deepEqual(
      decisions.map((d) => d.remaining),
      [2, 1, 0, 0],
    )
  })

  test('an admitted request has retryAfterSeconds 0', async () => {
    const { take } = bucket({ capacity: 3, refillPerSecond: 1 })
    const first = await take()
    assert.equal(first.admitted, true)
    assert.equal(first.retryAfterSeconds, 0)
  })

  test('capacity 1 admits one, capacity 5 admits five, at one instant', async () => {
    for (const capacity of [1, 5]) {
      const { limiter } = bucket({ capacity, refillPerSecond: 1 })
      const admitted = (await burst(limiter, capacity + 2)).map((d) => d.admitted)
      assert.deepEqual(admitted, [...Array<boolean>(capacity).fill(true), false, false])
    }
  })
})

describe('token bucket: refill by elapsed time x rate, capped at capacity (rule 2)', () => {
  test('refill 1/s: after 1000 ms exactly one more is admitted', async () => {
    const { limiter, take, advance } = bucket({ capacity: 3, refillPerSecond: 1 })
    await burst(limiter, 3)
    advance(999)
    assert.equal((await take()).admitted, false, 'not yet a whole token after 999 ms')
    advance(1)
    const next = await take()
    assert.equal(next.admitted, true)
    assert.equal(next.remaining, 0)
    assert.equal((await take()).admitted, false)
  })

  test('after a long idle (1 hour) the burst is still only the capacity', async () => {
    const { limiter, advance } = bucket({ capacity: 3, refillPerSecond: 1 })
    await burst(limiter, 3)
    advance(60 * 60 * 1000)
    const decisions = await burst(limiter, 4)
    assert.deepEqual(
      decisions.map((d) => d.admitted),
      [true, true, true, false],
    )
    assert.deepEqual(
      decisions.map((d) => d.remaining),
      [2, 1, 0, 0],
    )
  })

  test('a partly used bucket tops up to the capacity, not beyond', async () => {
    const { limiter, take, advance } = bucket({ capacity: 3, refillPerSecond: 1 })
    await take()
    advance(10_000)
    const admitted = (await burst(limiter, 4)).map((d) => d.admitted)
    assert.deepEqual(admitted, [true, true, true, false])
  })

  test('fractional refill 0.5/s: after 1000 ms refused with retryAfter 1, after 2000 ms admitted', async () => {
    const { limiter, take, advance } = bucket({ capacity: 3, refillPerSecond: 0.5 })
    await burst(limiter, 3)
    advance(1000)
    const early = await take()
    assert.equal(early.admitted, false)
    assert.equal(early.retryAfterSeconds, 1)
    advance(1000)
    const later = await take()
    assert.equal(later.admitted, true)
    assert.equal(later.remaining, 0)
  })

  test('refill 2/s: after 500 ms one more is admitted, and only one', async () => {
    const { limiter, take, advance } = bucket({ capacity: 3, refillPerSecond: 2 })
    await burst(limiter, 3)
    advance(499)
    assert.equal((await take()).admitted, false)
    advance(1)
    assert.equal((await take()).admitted, true)
    assert.equal((await take()).admitted, false)
  })

  test('refill 2/s: after 1000 ms two more are admitted', async () => {
    const { limiter, advance } = bucket({ capacity: 3, refillPerSecond: 2 })
    await burst(limiter, 3)
    advance(1000)
    const admitted = (await burst(limiter, 3)).map((d) => d.admitted)
    assert.deepEqual(admitted, [true, true, false])
  })
})

describe('token bucket: retryAfterSeconds = ceil((1 - tokens) / refill) (rule 4)', () => {
  async function emptied(refillPerSecond: number, capacity = 3) {
    const b = bucket({ capacity, refillPerSecond })
    await burst(b.limiter, capacity)
    return b
  }

  for (const [refill, expected] of [
    [1, 1],
    [0.5, 2],
    [0.25, 4],
    [3, 1],
    [0.1, 10],
  ] as const) {
    test(`empty bucket at refill ${refill}/s: retryAfter ${expected}`, async () => {
      const { take } = await emptied(refill)
      const refused = await take()
      assert.equal(refused.admitted, false)
      assert.equal(refused.remaining, 0)
      assert.equal(refused.retryAfterSeconds, expected)
    })
  }

  test('tokens 0.3 (300 ms at refill 1 after emptying): retryAfter 1', async () => {
    const { take, advance } = await emptied(1)
    advance(300)
    const refused = await take()
    assert.equal(refused.admitted, false)
    assert.equal(refused.retryAfterSeconds, 1)
  })

  test('tokens 0.7 (700 ms at refill 1): retryAfter 1, not 0 (float 0.30000000000000004)', async () => {
    const { take, advance } = await emptied(1)
    advance(700)
    const refused = await take()
    assert.equal(refused.admitted, false)
    assert.equal(refused.retryAfterSeconds, 1)
  })

  test('tokens 0.5 at refill 0.25/s: retryAfter 2; tokens 0.25: retryAfter 3', async () => {
    const a = await emptied(0.25)
    a.advance(2000)
    assert.equal((await a.take()).retryAfterSeconds, 2)
    const b = await emptied(0.25)
    b.advance(1000)
    assert.equal((await b.take()).retryAfterSeconds, 3)
  })

  test('the retryAfter a refusal gives is enough: waiting exactly that long admits', async () => {
    for (const refill of [0.25, 0.3, 0.5, 0.7, 1, 1.5, 3]) {
      for (const waitedMs of [0, 100, 333, 700, 999]) {
        const { take, advance } = await emptied(refill)
        advance(waitedMs)
        const refused = await take()
        if (refused.admitted) continue
        advance(refused.retryAfterSeconds * 1000)
        const retried = await take()
        assert.equal(retried.admitted, true, `refill ${refill}, waited ${waitedMs} ms`)
      }
    }
  })

  test('retryAfter is the least whole number of seconds: one second less is still refused', async () => {
    for (const refill of [0.25, 0.5, 1]) {
      const { take, advance } = await emptied(refill)
      const refused = await take()
      advance((refused.retryAfterSeconds - 1) * 1000)
      assert.equal((await take()).admitted, false, `refill ${refill}`)
    }
  })

  test('never 0 on a refusal, whatever fraction of a token is left', async () => {
    for (const refill of [0.1, 0.25, 0.5, 1, 2, 3, 10]) {
      const { take, advance } = await emptied(refill)
      for (let i = 0; i < 40; i++) {
        const decision = await take()
        if (!decision.admitted) {
          assert.ok(decision.retryAfterSeconds >= 1, `refill ${refill}, step ${i}`)
          assert.ok(Number.isInteger(decision.retryAfterSeconds), `refill ${refill}, step ${i}`)
        }
        advance(37)
      }
    }
  })
})

describe('token bucket: one bucket per key (rule 1)', () => {
  test('exhausting key A does not affect key B', async () => {
    const { limiter } = bucket({ capacity: 3, refillPerSecond: 1 })
    await burst(limiter, 5, 'A')
    const b = await burst(limiter, 4, 'B')
    assert.deepEqual(
      b.map((d) => d.admitted),
      [true, true, true, false],
    )
    assert.deepEqual(
      b.map((d) => d.remaining),
      [2, 1, 0, 0],
    )
    assert.equal((await limiter.take('A')).admitted, false, 'A is still empty')
  })
})

describe('token bucket: a refused request costs nothing', () => {
  test('refused at t, admitted at t + 1 s: tokens kept accruing through the refusals', async () => {
    const { limiter, take, advance } = bucket({ capacity: 3, refillPerSecond: 1 })
    await burst(limiter, 3)
    assert.equal((await take()).admitted, false)
    advance(500)
    assert.equal((await take()).admitted, false)
    advance(500)
    assert.equal((await take()).admitted, true)
  })

  test('many refusals at one instant leave the retryAfter unchanged', async () => {
    const { limiter, take } = bucket({ capacity: 3, refillPerSecond: 0.5 })
    await burst(limiter, 3)
    for (let i = 0; i < 10; i++) {
      const refused = await take()
      assert.equal(refused.admitted, false)
      assert.equal(refused.retryAfterSeconds, 2)
      assert.equal(refused.fullInSeconds, 6)
    }
  })
})

describe('token bucket: fullInSeconds (the RateLimit t parameter)', () => {
  test('capacity 3 refill 1: after one take 1, after two 2, after three 3, refused 3', async () => {
    const { limiter } = bucket({ capacity: 3, refillPerSecond: 1 })
    const decisions = await burst(limiter, 4)
    assert.deepEqual(
      decisions.map((d) => d.fullInSeconds),
      [1, 2, 3, 3],
    )
  })

  test('refill 0.5: after one take 2; refill 2: after one take 1 (rounded up)', async () => {
    assert.equal((await bucket({ capacity: 3, refillPerSecond: 0.5 }).take()).fullInSeconds, 2)
    assert.equal((await bucket({ capacity: 3, refillPerSecond: 2 }).take()).fullInSeconds, 1)
  })

  test('counts the time already refilled: 2.5 s after emptying, one take leaves t 2', async () => {
    const { limiter, take, advance } = bucket({ capacity: 3, refillPerSecond: 1 })
    await burst(limiter, 3)
    advance(2500)
    const decision = await take()
    // 2.5 - 1 = 1.5 tokens left: 1.5 s to full, rounded up.
    assert.equal(decision.admitted, true)
    assert.equal(decision.remaining, 1)
    assert.equal(decision.fullInSeconds, 2)
  })
})

describe('token bucket: memory is bounded', () => {
  test('buckets full again are dropped: 1000 keys once, past the full-refill time, size 1', async () => {
    const { limiter, advance } = bucket({ capacity: 3, refillPerSecond: 1 })
    for (let i = 0; i < 1000; i++) await limiter.take(`key-${i}`)
    assert.equal(limiter.size, 1000)
    advance(3001)
    await limiter.take('one-more')
    assert.equal(limiter.size, 1)
  })

  test('emptied buckets at capacity 3 refill 0.5 are full after 6 s, and then dropped', async () => {
    const { limiter, advance } = bucket({ capacity: 3, refillPerSecond: 0.5 })
    for (let i = 0; i < 100; i++) await burst(limiter, 3, `key-${i}`)
    advance(1000)
    await burst(limiter, 3, 'emptied-at-1s')
    advance(5001) // 6.001 s: key-i are full again, 'emptied-at-1s' holds 2.5005 tokens
    await limiter.take('one-more')
    assert.equal(limiter.size, 2)
    assert.equal((await limiter.take('emptied-at-1s')).remaining, 1)
  })

  test('a bucket not yet full is kept, with its tokens', async () => {
    const { limiter, take, advance } = bucket({ capacity: 3, refillPerSecond: 1 })
    for (let i = 0; i < 1000; i++) await limiter.take(`key-${i}`)
    advance(2500)
    await take('late') // 2 tokens left at 2.5 s
    advance(501) // 3.001 s: every key-i is full again; 'late' holds 2.501
    await take('one-more')
    assert.equal(limiter.size, 2)
    const late = await take('late')
    assert.equal(late.admitted, true)
    assert.equal(late.remaining, 1, 'the kept bucket was not reset to full')
  })

  test('a dropped bucket comes back full', async () => {
    const { limiter, advance } = bucket({ capacity: 3, refillPerSecond: 1 })
    await burst(limiter, 3, 'A')
    advance(3001)
    await limiter.take('other')
    assert.equal(limiter.size, 1)
    const again = await burst(limiter, 4, 'A')
    assert.deepEqual(
      again.map((d) => d.admitted),
      [true, true, true, false],
    )
  })
})

describe('token bucket: a clock that goes backwards', () => {
  test('adds no tokens', async () => {
    const { limiter, take, set } = bucket({ capacity: 3, refillPerSecond: 1 }, 10_000)
    await burst(limiter, 3)
    set(5_000)
    const refused = await take()
    assert.equal(refused.admitted, false)
    assert.equal(refused.remaining, 0)
    assert.equal(refused.retryAfterSeconds, 1)
  })

  test('takes no tokens away either', async () => {
    const { limiter, take, set } = bucket({ capacity: 3, refillPerSecond: 1 }, 10_000)
    await burst(limiter, 1)
    set(2_000)
    const decision = await take()
    assert.equal(decision.admitted, true)
    assert.equal(decision.remaining, 1)
  })
})
