// Every route the service serves is described in /openapi.json, in every configuration that
// changes the routes or the document (TUGAS_VERSIONING none/path/header, PRODUK_VERSIONING
// none/header, USERS_VARIANT enveloped/flat, TODOS_VARIANT basic/priority): a route added
// without its operation fails here. The routes are the ones Fastify registers, as its `onRoute`
// hook reports them (added through Fastify's `fastify.initialization` diagnostics channel, before
// the app registers any route); every `METHOD url` is compared with the document's operations.
//
// A served `METHOD url` is covered when:
// - an operation of the document has that method and path at one of its servers: its own
//   `servers` (`{origin}` is the root), or else the document's (`{origin}/v1`) and, as the
//   document's description says, the root too (surface A is also served without the prefix);
// - it is a HEAD route and a GET at its URL would be covered: Fastify adds a HEAD for every GET
//   (`/docs/` with `/docs`), and HEAD is covered by its GET;
// - its path is a documented path item with `x-method-not-allowed`, and the method is not one of
//   the path's operations: it is that 405, documented on the path for every other method;
// - it is a GET or HEAD below `/docs/` and `GET /docs` is documented: the page's own scripts,
//   style sheets and copies of the document (docs/decisions.md#the-docs-page-in-the-document);
// - it is listed in NO_ENDPOINT: a route whose only answer is the service's 404 for a path
//   that names no endpoint, checked here by sending it.
// No OPTIONS route is exempt: CORS preflights are answered by a hook on every path
// (src/http/cors.ts), not by a route, so an OPTIONS route is covered only as any other method is.
// In the other direction, every documented operation is served at each URL the document gives it.
import assert from 'node:assert/strict'
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { describe, test } from 'node:test'
import type { FastifyInstance, RouteOptions } from 'fastify'
import { serverPath } from '../../support/conformance.js'
import { testApp } from '../../support/helpers.js'
import { EVERY_VARIANT as COMBOS, type Variants as Combo } from '../../support/variants.js'

type Json = Record<string, unknown>

const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

/**
 * Routes that are served but name no endpoint: each answers the service's 404 `TIDAK_ADA`, as
 * any unknown path does, with a message of its own. By configuration, `METHOD url`.
 */
const NO_ENDPOINT: { when: (combo: Combo) => boolean; route: string; why: string }[] = [
  {
    when: (combo) => combo.tugasVersioning === 'path',
    route: 'GET /tugas',
    why: 'path mode: the unversioned list is a 404 pointing to /v1/tugas and /v2/tugas',
  },
]

/** The routes Fastify reports for each app created while `record` runs: `METHOD url`. */
async function servedRoutes(build: () => Promise<FastifyInstance>) {
  const routes = new Map<unknown, string[]>()
  const onInit = (message: unknown) => {
    const { fastify } = message as { fastify: FastifyInstance }
    const list: string[] = []
    routes.set(fastify, list)
    fastify.addHook('onRoute', (route: RouteOptions) => {
      for (const method of [route.method].flat()) list.push(`${method} ${route.url}`)
    })
  }
  subscribe('fastify.initialization', onInit)
  let app: FastifyInstance
  try {
    app = await build()
  } finally {
    unsubscribe('fastify.initialization', onInit)
  }
  const list = routes.get(app)
  assert.ok(list, 'the app was not created through Fastify while listening')
  return { app, routes: [...new Set(list)] }
}

/** A Fastify route URL in the document's syntax: `/tugas/:id(^[0-9]+$)` is `/tugas/{id}`. */
const asTemplate = (url: string) => url.replace(/:(\w+)(?:\([^/]*\))?/g, '{$1}')

/** A server's path prefix: `{origin}/v1` is `/v1`, `{origin}` is ``. */
const prefixOf = (server: unknown) => (serverPath(server) ?? '').replace(/\/+$/, '')

interface Operation {
  method: string
  path: string
  /** Where the document says it is served. */
  prefixes: string[]
  /** Where the service also serves it: the root, for an operation at the document's servers. */
  alsoAt: string[]
}

function operationsOf(document: Json): Operation[] {
  const documentServers = (document.servers as unknown[]).map(prefixOf)
  return Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([key]) => OPERATION_METHODS.includes(key))
      .map(([method, operation]) => {
        const own = ((operation as Json).servers ?? item.servers) as unknown[] | undefined
        return {
          method: method.toUpperCase(),
          path,
          prefixes: own === undefined ? documentServers : own.map(prefixOf),
          alsoAt: own === undefined ? [''] : [],
        }
      }),
  )
}

/** The served routes the document does not cover, by the rules at the top of this file. */
function uncovered(document: Json, routes: string[], combo: Combo): string[] {
  const operations = operationsOf(document)
  const paths = document.paths as Record<string, Json>
  const operationAt = new Set<string>()
  /** Served path -> its path item, for the 405 rule. */
  const itemAt = new Map<string, Json>()
  for (const { method, path, prefixes, alsoAt } of operations) {
    for (const prefix of [...prefixes, ...alsoAt]) {
      operationAt.add(`${method} ${prefix}${path}`)
      itemAt.set(`${prefix}${path}`, paths[path] as Json)
    }
  }
  const noEndpoint = new Set(NO_ENDPOINT.filter(({ when }) => when(combo)).map((e) => e.route))
  const covered = (method: string, url: string): boolean => {
    const template = asTemplate(url)
    if (operationAt.has(`${method} ${template}`)) return true
    if (method === 'HEAD') return covered('GET', url)
    const item = itemAt.get(template)
    if (item?.['x-method-not-allowed'] !== undefined && !(method.toLowerCase() in item)) {
      return true
    }
    if (url.startsWith('/docs/') && method === 'GET' && operationAt.has('GET /docs')) return true
    return noEndpoint.has(`${method} ${url}`)
  }
  return routes.filter((route) => {
    const [method = '', url = ''] = route.split(' ')
    return !covered(method, url)
  })
}

describe('every route the service serves has an operation in /openapi.json', () => {
  for (const combo of COMBOS) {
    const name = Object.values(combo).join(', ')
    test(name, async () => {
      const { app, routes } = await servedRoutes(() => testApp({ config: combo }))
      const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as Json

      // The check sees the service's own endpoints, every surface's and the page's.
      for (const route of [
        'GET /openapi.json',
        'GET /docs',
        'GET /docs/json',
        'GET /metrics',
        'GET /health/ready',
        'GET /v2/tugas',
        'POST /api/tugas',
        'GET /todos/:id',
        'GET /laporan',
      ]) {
        assert.ok(routes.includes(route), `${route} is not among the routes seen`)
      }

      assert.deepEqual(uncovered(document, routes, combo), [], 'served, but no operation')

      for (const { route, why } of NO_ENDPOINT.filter(({ when }) => when(combo))) {
        const [method, url] = route.split(' ') as ['GET', string]
        const answer = await app.inject({ method, url })
        assert.equal(answer.statusCode, 404, `${route} (${why})`)
        assert.equal(answer.json().error.kode, 'TIDAK_ADA', `${route} (${why})`)
      }

      const served = new Set(routes.map((route) => asTemplate(route)))
      for (const { method, path, prefixes } of operationsOf(document)) {
        for (const prefix of prefixes) {
          assert.ok(
            served.has(`${method} ${prefix}${path}`),
            `${method} ${path} is documented at ${prefix || '/'}, but not served there`,
          )
        }
      }
    })
  }
})
