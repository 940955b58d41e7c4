// Idempotent creates over HTTP (decisions.md 8), the checks every idempotent route shares:
// declared once, run by each surface's idempotency.test.ts with what differs (the route, its
// bodies, how to count what it made, the surface's refusals), through `call`, so every answer is
// also checked against the document. On memory, and on PostgreSQL in `npm test`'s second pass
// (test/support/run-tests.ts).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import type { Config } from '../../src/config.js'
import { fingerprint } from '../../src/http/idempotency.js'
import { KEY_LIFETIME_MS, LEASE_MS } from '../../src/store/idempotency/store.js'
import { ServiceUnavailableError } from '../../src/store/unavailable.js'
import { createMemoryStores, type Stores } from '../../src/stores.js'
import { conformanceChecker } from './conformance.js'
import { call, testApp } from './helpers.js'

/** What an answer is made of, as a replay must repeat it. */
export interface Seen {
  status: number
  headers: Record<string, string | undefined>
  body: string
}

const seen = (response: LightMyRequestResponse): Seen => ({
  status: response.statusCode,
  headers: response.headers as Record<string, string | undefined>,
  body: response.body,
})

/** The replay of `first`: the same status, body (byte for byte) and naming headers. */
export function assertReplay(actual: Seen, first: Seen, what: string): void {
  assert.equal(actual.status, first.status, `${what}: status`)
  assert.equal(actual.body, first.body, `${what}: body`)
  for (const name of ['location', 'etag', 'content-type']) {
    assert.equal(actual.headers[name], first.headers[name], `${what}: ${name}`)
  }
}

/** One of the surface's refusals: its status and exact body. */
export interface Refusal {
  status: number
  body: unknown
}

export interface IdempotentRoute {
  /** The suite's title: `POST /tugas`. */
  title: string
  config?: Partial<Config>
  /** The request target. */
  url: string
  /** Body text `n`: different `n`, different bodies, each a valid request on its own. */
  body(n: number): string
  /** Headers every request sends beside the key (Content-Type). */
  headers?: Record<string, string>
  /** The success status. */
  status: number
  /** How many things the route has made so far, read through the API. */
  count(app: FastifyInstance): Promise<number>
  /** The surface's answers to a bad key, another body, a key in flight. */
  refusals: { invalid: Refusal; reused: Refusal; inUse: Refusal }
  /** The store method the route writes through, to hold it or make it fail. */
  writes(stores: Stores): { target: object; method: string }
  /** Prepares stores for `writes`, when the route needs something to exist (a task, an order). */
  prepare?(stores: Stores): Promise<unknown>
}

/** Surface A's refusals (E1). */
export const E1_REFUSALS: IdempotentRoute['refusals'] = {
  invalid: {
    status: 422,
    body: {
      error: {
        kode: 'VALIDASI_GAGAL',
        pesan: 'Idempotency-Key is invalid',
        detail: ['Idempotency-Key must be 1 to 255 visible ASCII characters'],
      },
    },
  },
  reused: {
    status: 422,
    body: {
      error: {
        kode: 'VALIDASI_GAGAL',
        pesan: 'Idempotency-Key was used for another request',
        detail: ['Idempotency-Key was sent before with another body'],
      },
    },
  },
  inUse: {
    status: 409,
    body: {
      error: {
        kode: 'SEDANG_DIPROSES',
        pesan: 'a request with this Idempotency-Key is still being processed',
      },
    },
  },
}

/** Surface D's refusals, and the priority todo's (E2 with the map `details` or `fields`). */
export function e2Refusals(map: 'details' | 'fields'): IdempotentRoute['refusals'] {
  return {
    invalid: {
      status: 400,
      body: {
        error: {
          code: 'VALIDATION_ERROR',
          message: 'request header fails validation',
          [map]: { 'Idempotency-Key': 'must be 1 to 255 visible ASCII characters' },
        },
      },
    },
    reused: {
      status: 422,
      body: {
        error: {
          code: 'IDEMPOTENCY_KEY_REUSED',
          message: 'Idempotency-Key was used for another request',
        },
      },
    },
    inUse: {
      status: 409,
      body: {
        error: {
          code: 'IDEMPOTENCY_KEY_IN_USE',
          message: 'a request with this Idempotency-Key is still being processed',
        },
      },
    },
  }
}

/** Surface B's and C's refusals (E3). */
export const E3_REFUSALS: IdempotentRoute['refusals'] = {
  invalid: { status: 400, body: { error: 'Idempotency-Key tidak valid' } },
  reused: { status: 422, body: { error: 'Idempotency-Key dipakai untuk permintaan lain' } },
  inUse: {
    status: 409,
    body: { error: 'permintaan dengan Idempotency-Key ini sedang diproses' },
  },
}

/** Keys that are not 1 to 255 visible ASCII characters, each refused. */
export const BAD_KEYS = [
  '',
  ' ',
  'a b',
  'a\tb',
  'x'.repeat(256),
  'kunci-é',
  'ä',
  '\u007f',
  '"a, b"',
]

/** Keys at the edges of the rule, each taken. */
export const GOOD_KEYS = ['a', '~'.repeat(255), '"8e03978e-40d5-43e8-bc93-6894a57f9324"', '!#$%&*+']

/** Holds calls of `target[method]` until released; says when the first one has started. */
export function hold(target: object, method: string) {
  const holder = target as Record<string, (...args: unknown[]) => Promise<unknown>>
  const original = holder[method]?.bind(target)
  if (original === undefined) throw new Error(`no method ${method}`)
  let entered!: () => void
  const started = new Promise<void>((resolve) => {
    entered = resolve
  })
  let release!: () => void
  const released = new Promise<void>((resolve) => {
    release = resolve
  })
  holder[method] = async (...args) => {
    entered()
    await released
    return original(...args)
  }
  return { started, release }
}

/** Makes the next call of `target[method]` fail as an unreachable database does. */
export function failOnce(target: object, method: string): void {
  const holder = target as Record<string, (...args: unknown[]) => Promise<unknown>>
  const original = holder[method]?.bind(target)
  if (original === undefined) throw new Error(`no method ${method}`)
  holder[method] = async () => {
    holder[method] = original
    throw new ServiceUnavailableError('postgres')
  }
}

/**
 * Sends `count` requests at once over a real connection each (the app listens on a free port),
 * and checks every answer against the app's document.
 */
export async function burst(
  app: FastifyInstance,
  count: number,
  request: { url: string; headers: Record<string, string>; body?: string | undefined },
): Promise<Seen[]> {
  const address = await app.listen({ host: '127.0.0.1', port: 0 })
  const check = conformanceChecker((await app.inject({ url: '/openapi.json' })).json())
  const answers = await Promise.all(
    Array.from({ length: count }, async () => {
      const response = await fetch(`${address}${request.url}`, {
        method: 'POST',
        headers: request.headers,
        ...(request.body !== undefined && { body: request.body }),
      })
      const headers: Record<string, string> = {}
      response.headers.forEach((value, name) => {
        headers[name] = value
      })
      return { status: response.status, headers, body: await response.text() }
    }),
  )
  for (const answer of answers) {
    check({ method: 'POST', url: request.url }, { statusCode: answer.status, ...answer })
  }
  return answers
}

/** Declares the shared checks of one idempotent route. */
export function describeIdempotentRoute(route: IdempotentRoute): void {
  const { url, refusals } = route
  const post = (app: FastifyInstance, key: string | undefined, body = route.body(0)) =>
    call(app, {
      method: 'POST',
      url,
      headers: { ...route.headers, ...(key !== undefined && { 'idempotency-key': key }) },
      payload: body,
    })
  const refused = (response: LightMyRequestResponse, refusal: Refusal, what: string) => {
    assert.equal(response.statusCode, refusal.status, `${what}: ${response.body}`)
    assert.deepEqual(response.json(), refusal.body, what)
  }
  /** An app, on its own memory stores when `stores` is given (to hold or fail a write). */
  const appWith = async (options: { stores?: Stores; now?: () => Date } = {}) => {
    if (options.stores && route.prepare) await route.prepare(options.stores)
    return testApp({ ...(route.config && { config: route.config }), ...options })
  }

  describe(`Idempotency-Key on ${route.title}`, () => {
    test('without a key every request is processed', async () => {
      const app = await appWith()
      const before = await route.count(app)
      for (let i = 0; i < 2; i++) {
        assert.equal((await post(app, undefined, route.body(i))).statusCode, route.status)
      }
      assert.equal(await route.count(app), before + 2)
    })

    test('a retry with the key and the same body gets the first answer again and does nothing', async () => {
      const app = await appWith()
      const before = await route.count(app)
      const first = seen(await post(app, 'kunci-1'))
      assert.equal(first.status, route.status, first.body)
      for (let i = 0; i < 3; i++)
        assertReplay(seen(await post(app, 'kunci-1')), first, `retry ${i}`)
      assert.equal(await route.count(app), before + 1)
      // Another key is another request.
      assert.equal((await post(app, 'kunci-2', route.body(1))).statusCode, route.status)
      assert.equal(await route.count(app), before + 2)
    })

    test('the same key with another body is refused and does nothing; the first body still replays', async () => {
      const app = await appWith()
      const first = seen(await post(app, 'kunci'))
      const before = await route.count(app)
      refused(await post(app, 'kunci', route.body(1)), refusals.reused, 'another body')
      // The same JSON written differently is another body too: bytes are compared.
      refused(await post(app, 'kunci', `${route.body(0)} `), refusals.reused, 'a trailing space')
      assert.equal(await route.count(app), before)
      assertReplay(seen(await post(app, 'kunci')), first, 'the first body')
    })

    test('a key that is not 1 to 255 visible ASCII characters is refused and does nothing', async () => {
      const app = await appWith()
      const before = await route.count(app)
      for (const key of BAD_KEYS) {
        refused(await post(app, key), refusals.invalid, `key ${JSON.stringify(key)}`)
      }
      assert.equal(await route.count(app), before)
      for (const [i, key] of GOOD_KEYS.entries()) {
        const response = await post(app, key, route.body(i + 1))
        assert.equal(response.statusCode, route.status, `key ${JSON.stringify(key)}`)
      }
      assert.equal(await route.count(app), before + GOOD_KEYS.length)
    })

    test('while the first request is in flight, the same key is refused; then it replays', async () => {
      const stores = createMemoryStores()
      const app = await appWith({ stores })
      const { target, method } = route.writes(stores)
      const held = hold(target, method)
      const firstAnswer = post(app, 'kunci')
      await held.started
      refused(await post(app, 'kunci'), refusals.inUse, 'in flight')
      // Another body is refused as such, in flight or not.
      refused(await post(app, 'kunci', route.body(1)), refusals.reused, 'another body')
      held.release()
      const first = seen(await firstAnswer)
      assert.equal(first.status, route.status, first.body)
      assertReplay(seen(await post(app, 'kunci')), first, 'after the first')
    })

    test('a first request answered 5xx forgets the key: the retry is processed', async () => {
      const stores = createMemoryStores()
      const app = await appWith({ stores })
      const { target, method } = route.writes(stores)
      failOnce(target, method)
      const before = await route.count(app)
      const failed = await post(app, 'kunci')
      assert.equal(failed.statusCode, 503)
      const retried = seen(await post(app, 'kunci'))
      assert.equal(retried.status, route.status, retried.body)
      assert.equal(await route.count(app), before + 1)
      assertReplay(seen(await post(app, 'kunci')), retried, 'after the retry')
    })

    test('20 concurrent requests with one key make exactly one; each answer is the first or 409', async () => {
      const app = await appWith()
      const before = await route.count(app)
      const headers = { ...route.headers, 'idempotency-key': 'serbuan' }
      const answers = await burst(app, 20, { url, headers, body: route.body(0) })
      const made = answers.filter((answer) => answer.status === route.status)
      assert.ok(made.length >= 1, JSON.stringify(answers.map((answer) => answer.status)))
      const first = made[0] as Seen
      for (const answer of answers) {
        if (answer.status === refusals.inUse.status && answer.status !== route.status) {
          assert.deepEqual(JSON.parse(answer.body), refusals.inUse.body)
        } else {
          assertReplay(answer, first, 'an answer of the burst')
        }
      }
      assert.equal(await route.count(app), before + 1)
      assertReplay(seen(await post(app, 'serbuan')), first, 'a retry after the burst')
    })

    test('a key is kept 24 hours from its first request, then forgotten', async () => {
      let clock = new Date('2026-05-01T10:00:00.000Z').getTime()
      const app = await appWith({ now: () => new Date(clock) })
      const before = await route.count(app)
      const first = seen(await post(app, 'kunci'))
      clock += KEY_LIFETIME_MS - 1
      assertReplay(seen(await post(app, 'kunci')), first, 'a moment before 24 hours')
      assert.equal(await route.count(app), before + 1)
      clock += 1
      const later = await post(app, 'kunci', route.body(1))
      assert.equal(later.statusCode, route.status, later.body)
      assert.equal(await route.count(app), before + 2)
    })

    test('a first request that never answered holds its key for the lease only', async () => {
      let clock = new Date('2026-05-01T10:00:00.000Z').getTime()
      const stores = createMemoryStores()
      const app = await appWith({ stores, now: () => new Date(clock) })
      // A process that took the key and died: the key is in flight, with nobody to answer.
      const begun = await stores.idempotency.begin(
        { scope: `POST ${url}`, key: 'yatim' },
        fingerprint(route.body(0)),
        new Date(clock),
      )
      assert.equal(begun.outcome, 'new')
      refused(await post(app, 'yatim'), refusals.inUse, 'within the lease')
      clock += LEASE_MS
      const taken = seen(await post(app, 'yatim'))
      assert.equal(taken.status, route.status, taken.body)
      assertReplay(seen(await post(app, 'yatim')), taken, 'after the takeover')
    })
  })
}
