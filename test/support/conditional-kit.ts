// Conditional requests over HTTP (decisions.md 8), the checks every surface's item routes share:
// declared once, run by each surface's conditional.test.ts with what differs (how an item is
// made, its writes, its 412), through `call`, so every answer is also checked against the
// document. On memory, and on PostgreSQL in `npm test`'s second pass (test/support/run-tests.ts).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { call } from './helpers.js'
import * as kit from './property-kit.js'

/** What `ETag` looks like: a strong tag, 22 characters of base64url in quotes. */
export const STRONG_TAG = /^"[A-Za-z0-9_-]{22}"$/

/** A tag no representation has: well-formed, strong. */
export const OTHER_TAG = '"AAAAAAAAAAAAAAAAAAAAAA"'

/** `If-Match` / `If-None-Match` values that are not lists of entity tags: they match nothing. */
export const MALFORMED = (tag: string) => [
  tag.slice(1, -1),
  `w/${tag}`,
  `W/ ${tag}`,
  `*, ${tag}`,
  `${tag} ${tag}`,
  `${tag}x`,
  `"a b", ${tag}`,
  `'${tag.slice(1, -1)}'`,
]

/** Values that hold the tag by the weak comparison only: 304 for a GET, 412 for a write. */
export const WEAKLY = (tag: string) => [`W/${tag}`, `${OTHER_TAG}, W/${tag}`]

/** Values that hold the tag by the strong comparison: 304 for a GET, the write made. */
export const STRONGLY = (tag: string) => [
  tag,
  '*',
  ` ${tag} `,
  `${OTHER_TAG}, ${tag}`,
  `W/${OTHER_TAG},${tag}`,
  `, ,${tag},`,
  `"x,y", ${tag}`,
]

/** Values that name only other tags: a GET is 200, a write 412. */
export const OTHERS = [OTHER_TAG, `W/${OTHER_TAG}`, '""', '', ',', `"${'x'.repeat(300)}"`]

export interface ConditionalWrite {
  method: 'PUT' | 'PATCH' | 'DELETE' | 'POST'
  /** The write's URL for the item at `url` (by default `url`). */
  url?(url: string): string
  /** The body; `n` varies it, so that different `n` leave different representations. */
  payload?(n: number): unknown
  /** The success status: 200 with the item (and its ETag), or 204. */
  status: 200 | 204
  /** The write removes the item (DELETE): the item's GET is 404 after it. */
  removes?: boolean
}

export interface ConditionalSurface {
  app(): Promise<FastifyInstance>
  /** A new item in `app`, its URL; `n` varies it where the surface lets a client choose. */
  create(app: FastifyInstance, n: number): Promise<string>
  /** The URL of an item that does not exist. */
  missing: string
  /** Headers every request sends (credentials). */
  headers?: Record<string, string>
  writes: ConditionalWrite[]
  /** Asserts the surface's 412: status and body. */
  preconditionFailed(response: LightMyRequestResponse): void
}

/**
 * The shared checks of one surface's item routes: the ETag of GET and of the writes, 304, 412 in
 * the surface's shape with nothing changed, the header forms, 404 first, 20 concurrent writes
 * with one If-Match.
 */
export function conditionalSuite(name: string, surface: ConditionalSurface): void {
  const send = (app: FastifyInstance, options: InjectOptions & { url: string }) =>
    call(app, { ...options, headers: { ...surface.headers, ...options.headers } })
  const get = (app: FastifyInstance, url: string, headers: Record<string, string> = {}) =>
    send(app, { method: 'GET', url, headers })
  const tagOf = async (app: FastifyInstance, url: string) => {
    const response = await get(app, url)
    assert.equal(response.statusCode, 200, `GET ${url}`)
    return String(response.headers.etag)
  }
  const write = (
    app: FastifyInstance,
    url: string,
    w: ConditionalWrite,
    n: number,
    ifMatch?: string,
  ) =>
    send(app, {
      method: w.method,
      url: w.url ? w.url(url) : url,
      headers: {
        ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }),
        ...(w.payload && { 'content-type': 'application/json' }),
      },
      ...(w.payload && { payload: JSON.stringify(w.payload(n)) }),
    })
  const made = (response: LightMyRequestResponse, w: ConditionalWrite, what: string) => {
    assert.equal(response.statusCode, w.status, `${what}: ${response.body}`)
  }

  describe(`${name}: conditional requests`, () => {
    test('GET sends a strong ETag, the same on every GET of the same representation', async () => {
      const app = await surface.app()
      const url = await surface.create(app, 1)
      const first = await get(app, url)
      assert.equal(first.statusCode, 200)
      assert.match(String(first.headers.etag), STRONG_TAG)
      const again = await get(app, url)
      assert.equal(again.headers.etag, first.headers.etag)
      assert.equal(again.body, first.body)
      const head = await send(app, { method: 'HEAD', url })
      assert.equal(head.headers.etag, first.headers.etag, 'HEAD sends the tag of GET')
    })

    test('If-None-Match that matches (weakly, a list, *) is 304 with the ETag and no body', async () => {
      const app = await surface.app()
      const url = await surface.create(app, 1)
      const tag = await tagOf(app, url)
      for (const value of [...STRONGLY(tag), ...WEAKLY(tag)]) {
        const response = await get(app, url, { 'if-none-match': value })
        assert.equal(response.statusCode, 304, `If-None-Match: ${value}`)
        assert.equal(response.body, '')
        assert.equal(response.headers.etag, tag)
        assert.equal(response.headers['content-type'], undefined)
      }
    })

    test('If-None-Match naming other tags, or not a list of tags, is the full 200', async () => {
      const app = await surface.app()
      const url = await surface.create(app, 1)
      const full = await get(app, url)
      for (const value of [...OTHERS, ...MALFORMED(String(full.headers.etag))]) {
        const response = await get(app, url, { 'if-none-match': value })
        assert.equal(response.statusCode, 200, `If-None-Match: ${value}`)
        assert.equal(response.body, full.body)
        assert.equal(response.headers.etag, full.headers.etag)
      }
    })

    test('a missing item is 404 whatever If-None-Match or If-Match say', async () => {
      const app = await surface.app()
      for (const value of ['*', OTHER_TAG]) {
        const read = await get(app, surface.missing, { 'if-none-match': value })
        assert.equal(read.statusCode, 404, `GET, If-None-Match: ${value}`)
        for (const w of surface.writes) {
          const response = await write(app, surface.missing, w, 1, value)
          assert.equal(response.statusCode, 404, `${w.method}, If-Match: ${value}`)
        }
      }
    })

    for (const w of surface.writes) {
      const what = `${w.method}${w.url ? ` ${w.url('<item>')}` : ''}`

      test(`${what}: If-Match naming other tags, weak tags or no list is 412, nothing changed`, async () => {
        const app = await surface.app()
        const url = await surface.create(app, 1)
        const before = await get(app, url)
        const tag = String(before.headers.etag)
        for (const value of [...OTHERS, ...WEAKLY(tag), ...MALFORMED(tag)]) {
          const response = await write(app, url, w, 2, value)
          surface.preconditionFailed(response)
          assert.equal(response.headers.etag, undefined, `a 412 carries no ETag (${value})`)
          const after = await get(app, url)
          assert.equal(after.body, before.body, `If-Match: ${value} changed nothing`)
          assert.equal(after.headers.etag, tag)
        }
      })

      test(`${what}: If-Match holding the current tag (a list, *) is made; the answer's ETag is the next GET's`, async () => {
        const app = await surface.app()
        for (const [i, value] of STRONGLY('<tag>').entries()) {
          const url = await surface.create(app, i)
          const tag = await tagOf(app, url)
          const ifMatch = value.replaceAll('<tag>', tag)
          const response = await write(app, url, w, 100 + i, ifMatch)
          made(response, w, `If-Match: ${ifMatch}`)
          const after = await get(app, url)
          if (w.removes) {
            assert.equal(after.statusCode, 404)
            continue
          }
          if (w.status === 200) {
            assert.match(String(response.headers.etag), STRONG_TAG)
            assert.equal(response.headers.etag, after.headers.etag)
            assert.equal(response.body, after.body, 'the answer is the representation tagged')
          }
        }
      })

      test(`${what}: a lost update is refused: two writers with the same If-Match, the second 412`, async () => {
        const app = await surface.app()
        const url = await surface.create(app, 1)
        const tag = await tagOf(app, url)
        made(await write(app, url, w, 2, tag), w, 'the first writer')
        const second = await write(app, url, w, 3, tag)
        if (w.removes) assert.equal(second.statusCode, 404, 'the item is gone')
        else surface.preconditionFailed(second)
      })
    }

    // PATCH where the surface has one, else its first write that keeps the item.
    const change =
      surface.writes.find((w) => w.method === 'PATCH') ?? surface.writes.find((w) => !w.removes)
    if (change !== undefined) {
      test(`20 concurrent ${change.method} requests with one If-Match: exactly one is made, 19 are 412`, async () => {
        const app = await surface.app()
        const url = await surface.create(app, 1)
        const tag = await tagOf(app, url)
        const answers = await Promise.all(
          Array.from({ length: 20 }, (_, n) => write(app, url, change, 1000 + n, tag)),
        )
        const winners = answers.filter((answer) => answer.statusCode === change.status)
        assert.equal(winners.length, 1, answers.map((answer) => answer.statusCode).join(' '))
        for (const answer of answers) {
          if (answer !== winners[0]) surface.preconditionFailed(answer)
        }
        const after = await get(app, url)
        if (change.status === 200) {
          assert.equal(after.body, winners[0]?.body, "the item is the winner's")
          assert.equal(after.headers.etag, winners[0]?.headers.etag)
        }
      })
    }

    const deletes = surface.writes.find((w) => w.removes)
    if (deletes !== undefined) {
      test('20 concurrent DELETEs with one If-Match: exactly one 204, the rest 404', async () => {
        const app = await surface.app()
        const url = await surface.create(app, 1)
        const tag = await tagOf(app, url)
        const answers = await Promise.all(
          Array.from({ length: 20 }, (_, n) => write(app, url, deletes, n, tag)),
        )
        const codes = answers.map((answer) => answer.statusCode).sort()
        assert.deepEqual(codes, [204, ...Array(19).fill(404)])
      })
    }
  })
}

/**
 * The tags of representations seen over a run of writes: the tag changes exactly when the
 * representation changes, so equal bodies have equal tags and different bodies different tags.
 */
export class TagLedger {
  readonly #tags = new Map<string, string>()
  readonly #bodies = new Map<string, string>()

  see(body: string, tag: string): void {
    const known = this.#tags.get(body)
    if (known !== undefined) assert.equal(tag, known, `one representation, two tags: ${body}`)
    const seen = this.#bodies.get(tag)
    if (seen !== undefined) assert.equal(body, seen, `one tag ${tag}, two representations`)
    this.#tags.set(body, tag)
    this.#bodies.set(tag, body)
  }

  get size(): number {
    return this.#tags.size
  }
}

/** One route a conditional header may be sent to, for `conditionalHeadersProperty`. */
export interface HeaderTarget {
  method: 'GET' | 'PUT' | 'PATCH' | 'DELETE' | 'POST'
  /** The route's URL for the item at `item` (by default `item`). */
  url?(item: string): string
  /** `read`: the item's GET (304); `guarded`: a write If-Match guards (412). */
  kind: 'read' | 'guarded'
  /** The bodies it is sent with (JSON text); none when left out. */
  body?: fc.Arbitrary<string>
}

export interface HeaderSurface {
  app(): Promise<FastifyInstance>
  /** The URLs of items that exist now (making one where the surface can). */
  items(app: FastifyInstance): Promise<string[]>
  missing: string
  /** Headers every request sends (credentials). */
  headers?: Record<string, string>
  targets: HeaderTarget[]
  preconditionFailed(response: LightMyRequestResponse): void
}

/**
 * Property: any `If-Match` and `If-None-Match` (lists, `*`, weak tags, broken values, any text),
 * on any item route, alone or together: a 304 only for a GET of an item that exists and whose
 * tag the value matches by the weak comparison; a 412 only for a guarded write of an item that
 * exists and whose tag the value does not hold by the strong comparison, in the surface's shape,
 * with nothing changed; a guarded write made only when the value holds the tag. Every answer is
 * checked against the document (`call`). Each outcome must come up in the runs.
 */
export async function conditionalHeadersProperty(
  surface: HeaderSurface,
  numRuns = 150,
): Promise<void> {
  const app = await surface.app()
  const send = (options: InjectOptions & { url: string }) =>
    call(app, { ...options, headers: { ...surface.headers, ...options.headers } })
  const current = async (url: string) => {
    const { statusCode, headers, body } = await send({ method: 'GET', url })
    return statusCode === 200 ? { tag: String(headers.etag), body } : undefined
  }
  const reached = new Set<string>()
  const outcomes = [
    '304',
    '404',
    ...(surface.targets.some((t) => t.kind === 'guarded') ? ['412', 'written with If-Match'] : []),
  ]
  // Each outcome must come up; some (a 304 needs a GET, an item that exists and a value that
  // matches its tag) are rare enough that one round of runs can miss them, so up to five rounds
  // are run until all have. Unreachable outcomes still fail.
  for (let round = 0; round < 5 && outcomes.some((outcome) => !reached.has(outcome)); round++) {
    await checkRound()
  }
  for (const outcome of outcomes) {
    assert.ok(reached.has(outcome), `no run reached ${outcome}: ${[...reached].join(', ')}`)
  }

  async function checkRound() {
    await fc.assert(
      fc.asyncProperty(
        fc
          .constantFrom(...surface.targets)
          .chain((target) => fc.tuple(fc.constant(target), target.body ?? fc.constant(undefined))),
        fc.nat(),
        fc.boolean(),
        fc.option(kit.conditionShape, { nil: undefined }),
        fc.option(kit.conditionShape, { nil: undefined }),
        async ([target, body], pick, missing, ifMatchShape, ifNoneMatchShape) => {
          const items = await surface.items(app)
          const item = missing || items.length === 0 ? surface.missing : items[pick % items.length]
          const url = target.url ? target.url(item as string) : (item as string)
          const before = await current(item as string)
          const tag = before?.tag ?? '"none"'
          const ifMatch = ifMatchShape && kit.conditionValue(ifMatchShape, tag)
          const ifNoneMatch = ifNoneMatchShape && kit.conditionValue(ifNoneMatchShape, tag)
          const answer = await send({
            method: target.method,
            url,
            headers: {
              ...(ifMatch && { 'if-match': ifMatch.value }),
              ...(ifNoneMatch && { 'if-none-match': ifNoneMatch.value }),
              ...(body !== undefined && { 'content-type': 'application/json' }),
            },
            ...(body !== undefined && { payload: body }),
          })
          const what = `${target.method} ${url} If-Match ${JSON.stringify(ifMatch)} If-None-Match ${JSON.stringify(ifNoneMatch)}: ${answer.statusCode} ${answer.body.slice(0, 200)}`
          const { statusCode } = answer
          if (statusCode === 304) {
            assert.ok(target.kind === 'read' && before && ifNoneMatch?.weak !== false, what)
            assert.equal(answer.headers.etag, tag, what)
            assert.equal(answer.body, '', what)
          } else if (target.kind === 'read' && statusCode === 200) {
            assert.notEqual(ifNoneMatch?.weak, true, what)
            assert.equal(answer.headers.etag, tag, what)
          }
          if (statusCode === 412) {
            assert.ok(target.kind === 'guarded' && before && ifMatch?.strong !== true, what)
            surface.preconditionFailed(answer)
            assert.deepEqual(
              await current(item as string),
              before,
              `a 412 changed nothing: ${what}`,
            )
          } else if (target.kind === 'guarded' && statusCode >= 200 && statusCode < 300) {
            assert.notEqual(ifMatch?.strong, false, what)
            if (ifMatch !== undefined) reached.add('written with If-Match')
          }
          reached.add(String(statusCode))
        },
      ),
      { numRuns, includeErrorInReport: true },
    )
  }
}
