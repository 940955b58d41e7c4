// The RateLimit header fields of /laporan (draft-ietf-httpapi-ratelimit-headers) and Retry-After
// (Part 2, rate-limit rule 4; the header choices in the project context).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import Fastify from 'fastify'
import { rateLimitHeaders, sendRateLimitHeaders } from '../../src/rate-limit/headers.js'
import type { BucketPolicy, RateDecision } from '../../src/rate-limit/limiter.js'

const admitted = (remaining: number, fullInSeconds: number): RateDecision => ({
  admitted: true,
  remaining,
  retryAfterSeconds: 0,
  fullInSeconds,
})

const refused = (retryAfterSeconds: number, fullInSeconds: number): RateDecision => ({
  admitted: false,
  remaining: 0,
  retryAfterSeconds,
  fullInSeconds,
})

describe('rateLimitHeaders', () => {
  const policy = { capacity: 3, refillPerSecond: 1 }

  test('capacity 3 refill 1: policy q=3;w=3, ratelimit r=<remaining>;t=<fullInSeconds>', () => {
    assert.deepEqual(rateLimitHeaders('laporan', policy, admitted(2, 1)), {
      'ratelimit-policy': '"laporan";q=3;w=3',
      ratelimit: '"laporan";r=2;t=1',
    })
    assert.deepEqual(rateLimitHeaders('laporan', policy, refused(1, 3)), {
      'ratelimit-policy': '"laporan";q=3;w=3',
      ratelimit: '"laporan";r=0;t=3',
    })
  })

  test('w is ceil(capacity / refill): 6 for 3 at 0.5/s, 3 for 5 at 2/s, 1 for 1 at 3/s', () => {
    for (const [capacity, refillPerSecond, w] of [
      [3, 0.5, 6],
      [5, 2, 3],
      [1, 3, 1],
      [10, 0.3, 34],
      [5, 0.5, 10],
    ] as const) {
      const headers = rateLimitHeaders('laporan', { capacity, refillPerSecond }, admitted(0, 1))
      assert.equal(
        headers['ratelimit-policy'],
        `"laporan";q=${capacity};w=${w}`,
        `capacity ${capacity}, refill ${refillPerSecond}`,
      )
    }
  })

  test('the policy name is the quoted item of both fields', () => {
    const headers = rateLimitHeaders('other', policy, admitted(1, 2))
    assert.equal(headers['ratelimit-policy'], '"other";q=3;w=3')
    assert.equal(headers.ratelimit, '"other";r=1;t=2')
  })

  test('gives no Retry-After: only sendRateLimitHeaders adds it, on a refusal', () => {
    assert.deepEqual(Object.keys(rateLimitHeaders('laporan', policy, refused(2, 3))).sort(), [
      'ratelimit',
      'ratelimit-policy',
    ])
  })
})

describe('sendRateLimitHeaders', () => {
  /** An app whose one route answers 200 after setting the headers of `decision`. */
  async function answerWith(policy: BucketPolicy, decision: RateDecision) {
    const app = Fastify()
    app.get('/', async (_request, reply) => {
      sendRateLimitHeaders(reply, 'laporan', policy, decision)
      return { ok: true }
    })
    return app.inject({ url: '/' })
  }

  test('admitted: RateLimit-Policy and RateLimit, no Retry-After', async () => {
    const response = await answerWith({ capacity: 3, refillPerSecond: 1 }, admitted(1, 2))
    assert.equal(response.headers['ratelimit-policy'], '"laporan";q=3;w=3')
    assert.equal(response.headers.ratelimit, '"laporan";r=1;t=2')
    assert.equal(response.headers['retry-after'], undefined)
  })

  test('refused: the RateLimit fields and Retry-After with the whole seconds to wait', async () => {
    const response = await answerWith({ capacity: 3, refillPerSecond: 0.5 }, refused(2, 6))
    assert.equal(response.headers['ratelimit-policy'], '"laporan";q=3;w=6')
    assert.equal(response.headers.ratelimit, '"laporan";r=0;t=6')
    assert.equal(response.headers['retry-after'], '2')
  })

  test('returns the reply, for chaining', async () => {
    const app = Fastify()
    app.get('/', async (_request, reply) => {
      const returned = sendRateLimitHeaders(
        reply,
        'laporan',
        { capacity: 3, refillPerSecond: 1 },
        admitted(2, 1),
      )
      assert.equal(returned, reply)
      return returned.code(202).send({ ok: true })
    })
    assert.equal((await app.inject({ url: '/' })).statusCode, 202)
  })
})
