import fastifyCors, { type FastifyCorsOptions } from '@fastify/cors'
import type { FastifyInstance, FastifyPluginCallback, onRequestHookHandler } from 'fastify'

/**
 * CORS for browsers (docs/decisions.md#cors): any origin, on every route of every surface, its
 * error answers and the 404 of unknown paths included.
 *
 * `Access-Control-Allow-Origin: *`, not the origin echoed back: credentials here are headers
 * (`Authorization`, `X-API-Key`), never cookies, so no `Access-Control-Allow-Credentials`; and a
 * browser refuses a `*` answer to a request sent with cookies, so none is ever relied on. `*` is
 * the same for every origin: no `Vary: Origin`, and a cache keeps one copy, not one per origin.
 * One caveat: an answer to a request without `Origin` carries no CORS header (so servers and
 * curl pay nothing for it); a shared cache put in front of the service must therefore key on
 * `Origin` too, or it could hand such an answer to a browser.
 */
const ORIGIN = '*'

/**
 * The response headers a script may read besides the CORS-safelisted ones (Content-Type...), as
 * docs/http.md#browsers-cors lists them. Among them `Allow`, so a client that gets a 405 can tell
 * which methods the path takes, and `WWW-Authenticate`, so a 401 tells it which scheme and why (a
 * missing or an expired token), e.g. to refresh a token rather than ask the user again.
 */
export const EXPOSED_HEADERS = [
  'ETag',
  'Location',
  'Retry-After',
  'RateLimit',
  'RateLimit-Policy',
  'Sunset',
  'Deprecation',
  'Link',
  'X-Request-Id',
  'Allow',
  'WWW-Authenticate',
]

/** What a preflight allows: every method some route serves, and the headers clients send. */
export const ALLOWED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']
export const ALLOWED_HEADERS = [
  'Content-Type',
  'Authorization',
  'X-API-Key',
  'X-Request-Id',
  'Accept',
  'If-Match',
  'If-None-Match',
  'Idempotency-Key',
]

/**
 * Seconds a browser may reuse a preflight answer: two hours, the most Chromium honours (Firefox
 * takes up to a day). Longer would only keep a browser on an outdated list after a release.
 */
export const PREFLIGHT_MAX_AGE = 7200

/**
 * The CORS step of every request, for the root instance's one `onRequest` hook (app.ts): a hook
 * added there before any surface is registered is inherited by every surface's context and by
 * every not-found handler, so routes and 404s of all surfaces get it.
 *
 * `onRequest`, the first hook: it runs before the body is read and before a route's own checks
 * (credentials, rate limit, id), so a preflight, which carries no credentials, is answered
 * before any of them could refuse it (or spend a rate-limit token), and the headers are on the
 * reply already when any later step answers with an error.
 *
 * Headers are written by @fastify/cors's own per-request handler, but that handler is not
 * registered as the plugin registers itself, for three reasons:
 * - it runs on every request, and adds its headers with or without an `Origin`; here a request
 *   without `Origin` (curl, servers: nearly all traffic) pays one header lookup, nothing more;
 * - it answers every `OPTIONS` request as a preflight (400 "Invalid Preflight Request" when
 *   `Origin` or `Access-Control-Request-Method` is missing); only a real preflight may be, any
 *   other `OPTIONS` gets the surface's 404 or 405 as before (docs/decisions.md#cors);
 * - it adds a catch-all `OPTIONS *` route at the root, which would answer `OPTIONS` on every
 *   path without one in the root context: surface B's empty 404 under `/api/` would become an
 *   E1 404, and a body sent with it would be read (415 in Fastify's own shape).
 * So `corsHandler` runs the plugin against a stand-in that keeps its hook and drops its route,
 * and one hook of ours picks, per request, which of its two handlers (preflight or not) runs.
 *
 * A preflight is answered on any path, one no surface serves included: the browser then sends
 * the actual request, and the surface's 404 carries CORS headers, so the client can read it.
 * Refusing the preflight would leave the client a bare network error instead.
 */
export function corsStep(app: FastifyInstance): onRequestHookHandler {
  const common: FastifyCorsOptions = {
    origin: ORIGIN,
    credentials: false,
    exposedHeaders: EXPOSED_HEADERS,
  }
  // Any request with an Origin, an OPTIONS that is not a preflight included: the two headers.
  const simple = corsHandler(app, { ...common, preflight: false })
  // A preflight: those, the allowed methods, headers and max age, and 204 with no body.
  const preflight = corsHandler(app, {
    ...common,
    methods: ALLOWED_METHODS,
    allowedHeaders: ALLOWED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE,
  })
  return function cors(request, reply, done) {
    const { headers } = request
    if (headers.origin === undefined) {
      done()
    } else if (
      request.method === 'OPTIONS' &&
      headers['access-control-request-method'] !== undefined
    ) {
      preflight.call(this, request, reply, done)
    } else {
      simple.call(this, request, reply, done)
    }
  }
}

/**
 * The per-request handler @fastify/cors would add as its hook with `options`. The plugin sees
 * only what it uses: `decorateRequest` (passed on, once), `addHook` (kept) and `options` (its
 * catch-all route, dropped). Should a release of the plugin use anything else, this throws when
 * the app is built, not on a request.
 */
function corsHandler(app: FastifyInstance, options: FastifyCorsOptions): onRequestHookHandler {
  let handler: onRequestHookHandler | undefined
  const standIn = {
    decorateRequest(name: string, value: unknown) {
      if (!app.hasRequestDecorator(name)) app.decorateRequest(name, value)
    },
    addHook(name: string, hook: onRequestHookHandler) {
      if (name !== 'onRequest' || handler !== undefined) {
        throw new Error(`@fastify/cors: unexpected ${name} hook`)
      }
      handler = hook
    },
    options() {},
  }
  const plugin = fastifyCors as FastifyPluginCallback<FastifyCorsOptions>
  plugin(standIn as unknown as FastifyInstance, { ...options, hook: 'onRequest' }, (error) => {
    if (error) throw error
  })
  if (handler === undefined) throw new Error('@fastify/cors added no onRequest hook')
  return handler
}
