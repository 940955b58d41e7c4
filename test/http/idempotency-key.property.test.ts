// Property-based tests of the `Idempotency-Key` header (decisions.md 8) on every idempotent
// create of surfaces A to D: whatever key a client sends (empty, blank, over-long, control
// characters, white space, anything past ASCII, or a valid one, new or used before), the answer
// is what the rule says: a key outside 1 to 255 visible ASCII characters is the surface's
// refusal and makes nothing; a new valid key is processed; a used one with this (new) body is
// the surface's 422, and with the first body the first answer again. Every answer is checked
// against the document (`call`), on memory and, in `npm test`'s second pass, on PostgreSQL.
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../../src/config.js'
import { call, json, testApp } from '../support/helpers.js'
import {
  E1_REFUSALS,
  E3_REFUSALS,
  e2Refusals,
  type IdempotentRoute,
} from '../support/idempotency-kit.js'

const PARAMETERS = { numRuns: 300, includeErrorInReport: true }

/** The key rule, as docs/http.md#safe-retries-idempotency-key states it. */
const VALID_KEY = /^[\x21-\x7E]{1,255}$/

interface Route {
  title: string
  config: 'default' | 'priority'
  url: string
  body(n: number): string
  headers: Record<string, string>
  refusals: IdempotentRoute['refusals']
}

const ROUTES: Route[] = [
  {
    title: 'POST /tugas',
    config: 'default',
    url: '/tugas',
    body: (n) => `{"title":"Tugas ${n}"}`,
    headers: json,
    refusals: E1_REFUSALS,
  },
  {
    title: 'POST /v1/tugas/1/komentar',
    config: 'default',
    url: '/v1/tugas/1/komentar',
    body: (n) => `{"isi":"Komentar ${n}"}`,
    headers: json,
    refusals: E1_REFUSALS,
  },
  {
    title: 'POST /api/tugas',
    config: 'default',
    url: '/api/tugas',
    body: (n) => `{"judul":"Kompak ${n}"}`,
    headers: json,
    refusals: E3_REFUSALS,
  },
  {
    title: 'POST /todos (basic)',
    config: 'default',
    url: '/todos',
    body: (n) => `{"title":"Todo ${n}"}`,
    headers: {},
    refusals: E3_REFUSALS,
  },
  {
    title: 'POST /todos (priority)',
    config: 'priority',
    url: '/todos',
    body: (n) => `{"title":"Rapat ${n}","priority":1}`,
    headers: json,
    refusals: e2Refusals('fields'),
  },
  {
    title: 'POST /users',
    config: 'default',
    url: '/users',
    body: (n) => `{"name":"Pengguna ${n}","email":"p${n}@contoh.id","password":"rahasia-sekali"}`,
    headers: json,
    refusals: e2Refusals('details'),
  },
  {
    title: 'POST /pesanan',
    config: 'default',
    url: '/pesanan',
    body: (n) => `{"email":"p${n}@contoh.id","jumlah":${n + 1}}`,
    headers: json,
    refusals: e2Refusals('details'),
  },
]

const CONFIGS: Record<Route['config'], Partial<Config>> = {
  default: {},
  priority: { todosVariant: 'priority' },
}

const visible = fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map(String.fromCharCode) })

/** One character outside %x21-7E: white space, a control, DEL, Latin-1, past Latin-1. */
const notVisible = fc.oneof(
  fc.constantFrom(' ', '\t', '\u0000', '\r', '\n', '\u007f', '\u0085', '\u00a0', 'é', '😀', 'ğ'),
  fc.integer({ min: 0, max: 0x20 }).map(String.fromCharCode),
  fc.integer({ min: 0x7f, max: 0xff }).map(String.fromCharCode),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }).filter((c) => !VALID_KEY.test(c)),
)

/** Keys of every kind the rule speaks of. */
const anyKey = fc.oneof(
  // Valid: 1 to 255 visible ASCII characters (short ones repeat, so keys get used twice).
  fc.string({ unit: fc.constantFrom('a', 'b', '-'), minLength: 1, maxLength: 2 }),
  visible.filter((key) => key.length >= 1),
  fc
    .integer({ min: 200, max: 255 })
    .chain((length) =>
      fc.string({ unit: fc.constantFrom('x', '~', '!'), minLength: length, maxLength: length }),
    ),
  // Over-long: 256 characters and more.
  fc.integer({ min: 256, max: 2000 }).map((length) => 'k'.repeat(length)),
  fc.string({ unit: fc.constantFrom('y', '"'), minLength: 256, maxLength: 400 }),
  // Empty, blank, white space around or inside.
  fc.constantFrom('', ' ', '  ', '\t', ' abc', 'abc ', 'a b'),
  // A visible key with something not visible inserted.
  fc
    .tuple(visible, notVisible, visible)
    .map(([before, odd, afterwards]) => `${before}${odd}${afterwards}`),
)

describe('Idempotency-Key under any value, on every idempotent create', () => {
  const apps = new Map<Route['config'], Promise<FastifyInstance>>()
  const appFor = (config: Route['config']) => {
    let app = apps.get(config)
    if (app === undefined) {
      app = testApp({ config: CONFIGS[config], closedBy: 'caller' })
      apps.set(config, app)
    }
    return app
  }
  after(async () => {
    for (const app of apps.values()) await (await app).close()
  })

  test('a bad key is refused and makes nothing; a new key makes one; a used key is 422 or the first answer', async () => {
    /** The first body and answer of each key used so far, by route. */
    const used = new Map<string, { body: string; status: number; answer: string }>()
    let n = 0
    const reached = new Set<string>()
    // A replay needs a short key drawn twice for one route with the same body: a round of 300
    // misses it now and then, so up to five rounds run (keys carry over) until every outcome has
    // come up; an outcome that never can still fails below.
    for (let round = 0; round < 5 && reached.size < 4; round++)
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...ROUTES),
          anyKey,
          fc.boolean(),
          async (route, key, sameBody) => {
            const app = await appFor(route.config)
            const id = `${route.config} ${route.url} ${key}`
            const first = used.get(id)
            const body = first !== undefined && sameBody ? first.body : route.body(++n)
            const response = await call(app, {
              method: 'POST',
              url: route.url,
              headers: { ...route.headers, 'idempotency-key': key },
              payload: body,
            })
            const what = `${route.title} key ${JSON.stringify(key)} (${key.length}): ${response.statusCode} ${response.body}`
            const refusedAs = (expected: { status: number; body: unknown }) => {
              assert.equal(response.statusCode, expected.status, what)
              assert.deepEqual(response.json(), expected.body, what)
            }
            if (!VALID_KEY.test(key)) {
              reached.add('invalid')
              refusedAs(route.refusals.invalid)
            } else if (first === undefined) {
              reached.add('new')
              assert.equal(response.statusCode, 201, what)
              used.set(id, { body, status: response.statusCode, answer: response.body })
            } else if (body === first.body) {
              reached.add('replay')
              assert.equal(response.statusCode, first.status, what)
              assert.equal(response.body, first.answer, what)
            } else {
              reached.add('reused')
              refusedAs(route.refusals.reused)
            }
          },
        ),
        PARAMETERS,
      )
    assert.deepEqual([...reached].sort(), ['invalid', 'new', 'replay', 'reused'])
  })

  test('refused keys make nothing: the collections hold exactly what valid keys made', async () => {
    const app = await testApp()
    let made = 0
    await fc.assert(
      fc.asyncProperty(anyKey, async (key) => {
        const response = await call(app, {
          method: 'POST',
          url: '/api/tugas',
          headers: { ...json, 'idempotency-key': key },
          payload: `{"judul":"Hitung ${made}"}`,
        })
        if (response.statusCode === 201) made++
        else assert.ok([400, 422].includes(response.statusCode), response.body)
        const listed = (await call(app, { url: '/api/tugas' })).json() as unknown[]
        assert.equal(listed.length, made)
      }),
      { ...PARAMETERS, numRuns: 60 },
    )
  })
})
