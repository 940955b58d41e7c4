// The harness of the surfaces' property-based bad-input tests. Every request goes through an
// oracle: the surface's model of what is stored says which answers the spec allows (computed
// without the app), the answer must be one of them and in the surface's forms, and the model then
// learns what the answer changed. Surfaces B (/api/tugas) and C (/todos), items in a list with
// numeric ids, share more: the apps their tests run on, how items are seeded, the properties they
// have in common, and the conditional-headers property. What each surface expects stays in its
// own test file.
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import fc from 'fast-check'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import type { Config } from '../../src/config.js'
import { conditionalHeadersProperty, type HeaderTarget } from './conditional-kit.js'
import { conformanceChecker, type SeenRequest, type SeenResponse } from './conformance.js'
import { json, testApp } from './helpers.js'
import * as kit from './property-kit.js'

/** About 150 runs a property keeps a file well under 15 s; failures show the assertion. */
export const PARAMETERS = { numRuns: 150, includeErrorInReport: true }

// ---------------------------------------------------------------------------------------------
// Conformance: every answer checked against the app's own /openapi.json

type Conforms = (request: SeenRequest, response: SeenResponse) => void

/** Checkers by the text of the document they check against: compiled once per document. */
const checkers = new Map<string, Conforms>()
const checkerOfApp = new WeakMap<FastifyInstance, Conforms>()

/** The checker of the document `app` publishes (`conformanceChecker`), compiled once per text. */
export async function conformanceOf(app: FastifyInstance): Promise<Conforms> {
  let conforms = checkerOfApp.get(app)
  if (conforms === undefined) {
    const text = (await app.inject({ method: 'GET', url: '/openapi.json' })).body
    conforms = checkers.get(text) ?? conformanceChecker(JSON.parse(text))
    checkers.set(text, conforms)
    checkerOfApp.set(app, conforms)
  }
  return conforms
}

/**
 * `app.inject` and a check that the answer matches the app's own /openapi.json, as `call` in
 * helpers.ts does (the URL checked is the one the service received, `kit.urlAsSent`), with the
 * document's checker compiled once for every app that publishes it.
 */
export async function conformingInject(
  app: FastifyInstance,
  options: InjectOptions & { url: string },
): Promise<LightMyRequestResponse> {
  const conforms = await conformanceOf(app)
  const response = await app.inject(options)
  conforms(
    { method: options.method ?? 'GET', url: kit.urlAsSent(response, options.url) },
    { statusCode: response.statusCode, headers: response.headers, body: response.body },
  )
  return response
}

// ---------------------------------------------------------------------------------------------
// The oracle

/** What a surface's rules say of the requests `S` sent to it, over its model of what is stored. */
export interface Oracle<S, T, O extends { status: number }> {
  /** Sends `sent`; the answer and the URL as the service received it (`kit.urlAsSent`). */
  inject(sent: S): Promise<{ answer: kit.Answer; url: string }>
  /** The request and its answer, for failure messages. */
  describe(sent: S, url: string, answer: kit.Answer): string
  /** Which resource the URL, as received, names. */
  targetOf(url: string): T
  /** The surface's forms, from the request and the status alone. */
  assertShape(sent: S, target: T, answer: kit.Answer, what: string): void
  /** The answers the spec allows, given what the model holds. */
  expected(sent: S, target: T): O[]
  /** Throws unless `answer` is `outcome`. */
  assertOutcome(outcome: O, sent: S, answer: kit.Answer, what: string): void
  /** Tells the model what the answer, `outcome`, changed. */
  remember(outcome: O, answer: kit.Answer, what: string): void
  assertNotPolluted(): void
}

/**
 * A sender that checks every answer: in the surface's forms, one of the answers the spec allows
 * (`kit.matchOutcome`), remembered by the model, and nothing leaked into Object.prototype.
 */
export function oracleSender<S, T, O extends { status: number }>(
  oracle: Oracle<S, T, O>,
): (sent: S) => Promise<kit.Answer> {
  return async (sent) => {
    const { answer, url } = await oracle.inject(sent)
    const what = oracle.describe(sent, url, answer)
    const target = oracle.targetOf(url)
    oracle.assertShape(sent, target, answer, what)
    const outcomes = oracle.expected(sent, target)
    const matched = kit.matchOutcome(outcomes, answer, what, (outcome) => {
      oracle.assertOutcome(outcome, sent, answer, what)
    })
    oracle.remember(matched, answer, what)
    oracle.assertNotPolluted()
    return answer
  }
}

// ---------------------------------------------------------------------------------------------
// Surfaces B and C: the apps their tests run on

/** A surface of items in a list (`collection`, `${collection}/<id>`), ids from 1. */
export interface ItemSurface<M> {
  /** The list's path: `/api/tugas`, `/todos`. */
  collection: string
  /** The app's settings beside the defaults. */
  config: Partial<Config>
  /** The model of an empty store. */
  model(): M
  /** Called when a test starts on the model, before it is seeded (it may be the last test's). */
  begin?(model: M): void
  /** The oracle over `model`; requests go through `inject` (checked against the document). */
  oracle(
    model: M,
    inject: (sent: kit.Sent) => Promise<{ answer: kit.Answer; url: string }>,
  ): Oracle<kit.Sent, unknown, { status: number }>
  /** The body of the `i`th item the seed makes (from 1). */
  seedBody(i: number): unknown
  assertNotPolluted(): void
}

export interface Harness<M> {
  app: FastifyInstance
  model: M
  /** Sends the request, checks the answer (`oracleSender`); returns it, its JSON parsed. */
  send(sent: kit.Sent): Promise<kit.Answer & { json: unknown }>
}

/**
 * The state a test starts from: exactly `seeded` items made by the seed (ids 1 to `seeded`) and
 * nothing else; or any state, for a test whose every check holds whatever is stored (the model
 * knows it all the same).
 */
export type Start = { seeded: number } | 'any'

interface Running<M> extends Harness<M> {
  surface: ItemSurface<M>
  /** Items made by the seed so far, while nothing else was written. */
  seeded: number
  /** Something besides the seed was written (or may have been): only `any` tests may follow. */
  written: boolean
  /** The model may not know what the app holds (a test failed, or bypassed the oracle). */
  lost: boolean
}

/**
 * The apps a file's tests run on, the last one of each surface kept open. A test gets its
 * surface's last app when that app is in the state the test starts from, as its model shows: one
 * that only refused writes (bad input is refused: nothing is written) or only read leaves the
 * seeded state as it found it, so the next test need not build and migrate an app of its own.
 * Any answer of 2xx to a request other than GET or HEAD counts as a write. An app whose model may
 * be wrong is never handed on.
 */
export class ItemApps {
  /** The last app of each surface. */
  readonly #last = new Map<object, Running<unknown>>()

  constructor() {
    after(async () => {
      for (const h of [...this.#last.values()]) await this.#retire(h)
    })
  }

  /** Runs `body` on an app of `surface` in the state `start`. */
  async run<M>(surface: ItemSurface<M>, start: Start, body: (h: Harness<M>) => Promise<void>) {
    const h = await this.#take(surface, start)
    try {
      await body(h)
    } catch (error) {
      h.lost = true
      throw error
    }
  }

  /** The app of `surface` in any state, for requests the model does not see. */
  async unmodelled<M>(surface: ItemSurface<M>): Promise<FastifyInstance> {
    const h = await this.#take(surface, 'any')
    h.lost = true
    return h.app
  }

  async #take<M>(surface: ItemSurface<M>, start: Start): Promise<Running<M>> {
    const last = this.#last.get(surface) as Running<M> | undefined
    const fits =
      last !== undefined &&
      !last.lost &&
      (start === 'any' || (!last.written && last.seeded <= start.seeded))
    if (last !== undefined && !fits) await this.#retire(last)
    const h = fits ? last : await this.#fresh(surface)
    surface.begin?.(h.model)
    if (start !== 'any') {
      while (h.seeded < start.seeded) {
        const i = h.seeded + 1
        const { statusCode } = await h.send({
          method: 'POST',
          url: surface.collection,
          contentType: 'application/json',
          payload: JSON.stringify(surface.seedBody(i)),
        })
        assert.equal(statusCode, 201)
        h.seeded = i
        h.written = false
      }
    }
    return h
  }

  async #fresh<M>(surface: ItemSurface<M>): Promise<Running<M>> {
    const app = await testApp({ config: surface.config, closedBy: 'caller' })
    const model = surface.model()
    const checked = oracleSender(
      surface.oracle(model, (sent) => kit.inject(app, sent, conformingInject)),
    )
    const h: Running<M> = {
      app,
      model,
      surface,
      seeded: 0,
      written: false,
      lost: false,
      async send(sent) {
        try {
          const answer = await checked(sent)
          if (!['GET', 'HEAD'].includes(sent.method) && answer.statusCode < 300) h.written = true
          return kit.withJson(answer)
        } catch (error) {
          h.lost = true
          throw error
        }
      },
    }
    this.#last.set(surface, h as Running<unknown>)
    return h
  }

  /** Closes the app, then checks for pollution. */
  async #retire(h: Running<unknown>): Promise<void> {
    this.#last.delete(h.surface)
    await h.app.close()
    h.surface.assertNotPolluted()
  }
}

// ---------------------------------------------------------------------------------------------
// Surfaces B and C: the properties they share

/** Ids of items that exist (after seeding), and a few that do not. */
export const plausibleId = fc.constantFrom('1', '2', '3', '4', '5', '6', '9')

/**
 * Any id a client might put in the path: ids of items (`plausibleId`), numbers, `lookalikes`
 * (numbers in disguise, escapes), any text, ids of any length, broken escapes.
 */
export function anyIdOf(...lookalikes: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    plausibleId,
    ...kit.numericIds,
    fc.constantFrom(...lookalikes),
    ...kit.encodedIds,
    ...kit.longIds,
    kit.undecodableIds,
  )
}

export interface ItemArbitraries {
  /** Every path of the surface: the list, items with any id, paths that name nothing. */
  anyPath: fc.Arbitrary<string>
  /** Any id a client might put in the path. */
  anyId: fc.Arbitrary<string>
  contentType: fc.Arbitrary<string | undefined>
  /** Bodies that are JSON text of any shape. */
  jsonBody: fc.Arbitrary<string>
  /** No body, JSON text, or anything at all. */
  anyBody: fc.Arbitrary<string | Buffer | undefined>
  /** JSON text of objects that look like an item, for bodies likely to pass the body reader. */
  itemLike: fc.Arbitrary<string>
}

/** The properties of bad input surfaces B and C share, one test each; in a `describe`. */
export function sharedProperties<M>(
  apps: ItemApps,
  surface: ItemSurface<M>,
  a: ItemArbitraries,
): void {
  const list = surface.collection
  /**
   * Property: bodies from `bodies` with Content-Types from `types` to URLs from `urls`, each
   * POSTed to the list or PUT on an item, on the app seeded with 3 items.
   */
  const bodiesTo =
    (
      urls: fc.Arbitrary<string>,
      types: fc.Arbitrary<string | undefined>,
      bodies: fc.Arbitrary<string | Buffer | undefined>,
    ) =>
    () =>
      apps.run(surface, { seeded: 3 }, async (h) => {
        await fc.assert(
          fc.asyncProperty(urls, types, bodies, async (url, type, payload) => {
            const m = url === list ? 'POST' : 'PUT'
            await h.send({ method: m, url, contentType: type, payload })
          }),
          PARAMETERS,
        )
      })

  test('any method, path, content type and body', () =>
    apps.run(surface, { seeded: 3 }, async (h) => {
      await fc.assert(
        fc.asyncProperty(
          kit.method,
          a.anyPath,
          a.contentType,
          a.anyBody,
          async (m, url, type, payload) => {
            await h.send({ method: m, url, contentType: type, payload })
          },
        ),
        PARAMETERS,
      )
    }))

  test(
    `JSON bodies of any shape on POST ${list} and PUT ${list}/<id>`,
    bodiesTo(
      fc.oneof(
        fc.constant(list),
        plausibleId.map((id) => `${list}/${id}`),
      ),
      kit.jsonContentType,
      a.jsonBody,
    ),
  )

  test(
    'any content type with any body on the routes that read bodies',
    bodiesTo(
      fc.constantFrom(list, `${list}/1`, `${list}/2`, `${list}/9`),
      a.contentType,
      a.anyBody,
    ),
  )

  test('any id, with every method', () =>
    apps.run(surface, { seeded: 5 }, async (h) => {
      await fc.assert(
        fc.asyncProperty(
          kit.method,
          a.anyId,
          fc.option(fc.tuple(kit.jsonContentType, a.itemLike), { nil: undefined }),
          async (m, id, body) => {
            await h.send({
              method: m,
              url: `${list}/${id}`,
              contentType: body?.[0],
              payload: body?.[1],
            })
          },
        ),
        PARAMETERS,
      )
    }))
}

/** The body limit of the routes that read bodies. */
export const BODY_LIMIT = 1024 * 1024

/**
 * `payload` (over the limit) to POST on the list, PUT on item 1 (which exists) and on item 2
 * (which does not): each is 413, in the surface's form (the oracle checks it).
 */
export function overTheLimit<M>(apps: ItemApps, surface: ItemSurface<M>, payload: string) {
  return apps.run(surface, { seeded: 1 }, async (h) => {
    const list = surface.collection
    for (const [m, url] of [
      ['POST', list],
      ['PUT', `${list}/1`],
      ['PUT', `${list}/2`],
    ] as const) {
      const { statusCode } = await h.send({
        method: m,
        url,
        contentType: 'application/json',
        payload,
      })
      assert.equal(statusCode, 413, `${m} ${url}`)
    }
  })
}

/**
 * Any If-Match and If-None-Match on the surface's item routes (`conditionalHeadersProperty`),
 * through GET, PUT with `replacements` and DELETE; items made with `created` until three exist.
 */
export function conditionalHeaders<M>(
  apps: ItemApps,
  surface: ItemSurface<M>,
  { created, replacements }: { created: unknown; replacements: string[] },
) {
  const list = surface.collection
  return conditionalHeadersProperty({
    app: () => apps.unmodelled(surface),
    async items(app) {
      let items = (await conformingInject(app, { url: list })).json() as { id: number }[]
      if (items.length < 3) {
        const payload = created as Record<string, unknown>
        await conformingInject(app, { method: 'POST', url: list, headers: json, payload })
        items = (await conformingInject(app, { url: list })).json()
      }
      return items.map(({ id }) => `${list}/${id}`)
    },
    missing: `${list}/999`,
    targets: [
      { method: 'GET', kind: 'read' },
      {
        method: 'PUT',
        kind: 'guarded',
        body: fc.oneof(fc.constantFrom(...replacements), kit.jsonValueText),
      },
      { method: 'DELETE', kind: 'guarded' },
    ] satisfies HeaderTarget[],
    preconditionFailed(response) {
      assert.equal(response.statusCode, 412)
      assert.deepEqual(response.json(), { error: 'versi tidak cocok' })
    },
  })
}
