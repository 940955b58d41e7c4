import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify'
import { encapsulated } from './plugin.js'

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The body as the text it was received as, on a route whose config asks for it
     * (`keepReceivedBody`: an `Idempotency-Key`'s fingerprint); null otherwise.
     */
    receivedBody: string | null
  }
  interface FastifyContextConfig {
    /** The route reads its body's text as received (`receivedBody`), not only the parsed JSON. */
    keepReceivedBody?: boolean
  }
}

/** The body reader's verdict on a body that is not JSON; carried to the error handler. */
export class MalformedJsonError extends Error {
  override name = 'MalformedJsonError'
  readonly statusCode = 400
}

/** `application/json` and structured-syntax `+json` types, with any parameters. */
const JSON_MEDIA_TYPE = /^application\/(?:[a-z0-9!#$&^_.-]+\+)?json(?:\s*;|$)/i

/**
 * Makes `instance` read JSON bodies, and only JSON bodies (`mediaType`, by default JSON and
 * `+json` types; or every body with `anyContentType`): any other content type is answered
 * 415 by Fastify and lands in the surface's error handler. A body that fails to parse throws
 * MalformedJsonError (400). `JSON.parse` is safe with `__proto__` keys: it creates an own data
 * property and never touches a prototype; routes read only the fields they know.
 */
export function acceptJsonBodies(
  instance: FastifyInstance,
  options: { mediaType?: RegExp; anyContentType?: boolean; bodyLimit?: number } = {},
): void {
  const { mediaType = JSON_MEDIA_TYPE, anyContentType = false, bodyLimit } = options
  if (!instance.hasRequestDecorator('receivedBody')) instance.decorateRequest('receivedBody', null)
  instance.removeAllContentTypeParsers()
  if (anyContentType) dropContentType(instance)
  instance.addContentTypeParser(
    anyContentType ? '*' : mediaType,
    { parseAs: 'string', ...(bodyLimit === undefined ? {} : { bodyLimit }) },
    (request, body, done) => {
      // Kept only where the route asks for it (its config, set with the route's definition).
      if (request.routeOptions.config.keepReceivedBody) request.receivedBody = body as string
      try {
        done(null, JSON.parse(body as string))
      } catch {
        done(new MalformedJsonError('body is not valid JSON'), undefined)
      }
    },
  )
}

/**
 * The body `request` sent, as the text it was received as; undefined when none was read (or its
 * route does not keep it: `keepReceivedBody`).
 */
export function receivedBody(request: FastifyRequest): string | undefined {
  // A context that reads no body has no such slot.
  return request.receivedBody ?? undefined
}

/**
 * Makes `instance` accept any body without reading it, for contexts that never read one (routes
 * without a body, unknown paths): a body's type or size must not turn a 204 or a 404 into a 415
 * or 413. The Content-Type header is dropped too, because Fastify answers 415 to an unparseable
 * one (such as an empty header) before any parser runs: on each route that may take a body, or,
 * for the context of a not-found handler (`notFound`), on every request.
 */
export function ignoreBodies(instance: FastifyInstance, { notFound = false } = {}): void {
  instance.removeAllContentTypeParsers()
  instance.addContentTypeParser('*', (_request, payload, done) => {
    payload.resume()
    done(null, undefined)
  })
  // A not-found handler is no route: only a hook of its context runs before it.
  if (notFound) instance.addHook('onRequest', withoutContentType)
  else dropContentType(instance)
}

/** Fastify never reads a body of these, nor its Content-Type. */
const NEVER_READ = new Set(['GET', 'HEAD'])

/**
 * Fastify answers 415 to an unparseable Content-Type before any parser runs; on the routes of
 * `instance` none matters. Added to each route whose method Fastify may read a body for, not as a
 * hook of the context: a hook every GET runs for nothing is measurable on the hot path.
 */
function dropContentType(instance: FastifyInstance): void {
  instance.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    if (methods.every((method) => NEVER_READ.has(method))) return
    const own = route.onRequest === undefined ? [] : [route.onRequest].flat()
    route.onRequest = [withoutContentType, ...own]
  })
}

// A callback hook: a promise per request is measurable.
const withoutContentType: onRequestHookHandler = (request, _reply, done) => {
  if (request.headers['content-type'] !== undefined) delete request.headers['content-type']
  done()
}

/** Registers routes that take no body in a child context of `instance` that ignores bodies. */
export function withoutBodies(
  instance: FastifyInstance,
  register: (bodyless: FastifyInstance) => void,
): void {
  instance.register(
    encapsulated('without bodies', async (bodyless) => {
      ignoreBodies(bodyless)
      register(bodyless)
    }),
  )
}

/** A content type that starts with `application/json` (the E2 surfaces' 415 rule). */
export const JSON_CONTENT_TYPE = /^application\/json/i
