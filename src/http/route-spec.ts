import type {
  FastifyContextConfig,
  FastifyInstance,
  FastifyReply,
  HTTPMethods,
  onRequestAsyncHookHandler,
  onRequestHookHandler,
  preParsingAsyncHookHandler,
  preParsingHookHandler,
  RouteHandlerMethod,
} from 'fastify'
import { type TSchema, Type } from 'typebox'
import { withoutBodies } from './json-body.js'
import { encapsulated } from './plugin.js'

export interface HeaderSpec {
  description: string
  schema: TSchema
  /** Sent with every response of this status (OpenAPI `required`). */
  required?: boolean
}

/** One documented answer; with neither `schema` nor `text` its body is empty. */
export interface ResponseSpec {
  description: string
  /** The JSON body (`application/json`): Fastify serializes the reply with it. */
  schema?: TSchema
  /** The plain-text body (`text/plain; charset=utf-8`), a string schema; documented only. */
  text?: TSchema
  /** The HTML page (`text/html; charset=utf-8`), a string schema; documented only. */
  html?: TSchema
  /**
   * A Server-Sent Events stream (`text/event-stream`): the schema of the data of each event,
   * by event name (`event: tugas.created`, `event: reset`); documented only.
   */
  eventStream?: Record<string, TSchema>
  headers?: Record<string, HeaderSpec>
}

export interface ParameterSpec {
  name: string
  /** Where the value is sent; a `header` parameter is a request header (`If-Match`). */
  in: 'path' | 'query' | 'header'
  description: string
  schema: TSchema
  required?: boolean
  /** For a path parameter: the regular expression a segment must match for the route to match. */
  match?: string
  /** A value the operation succeeds with, for the tools that build requests from the document. */
  example?: unknown
}

/** A surface's answer to the methods a path does not serve: documented, and sent by `send`. */
export interface OtherMethods {
  /** The 405 as published, `Allow` included. */
  response: ResponseSpec
  /** Writes the body; the status and `Allow` are already set. */
  send(reply: FastifyReply): FastifyReply
}

/**
 * What the OpenAPI document publishes of one operation. A route registered other than through
 * `registerRoutes` (the `/docs` page, which a plugin serves; `/openapi.json` and `/metrics`, which
 * send text they write themselves) is described by one of these beside its registration, which takes
 * its path from it; every other route is a RouteSpec.
 */
export interface OperationSpec {
  method: Extract<HTTPMethods, 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'>
  /** OpenAPI path template relative to the surface's base, e.g. `/tugas/{id}`. */
  path: string
  operationId: string
  summary: string
  /** Longer prose for the published description, where the summary is not enough. */
  description?: string
  parameters?: ParameterSpec[]
  body?: {
    schema: TSchema
    description: string
    example?: unknown
    /**
     * The body's media type when it is not `application/json`; documented only (the body of a
     * webhook delivery, `application/cloudevents+json`).
     */
    mediaType?: string
  }
  responses: Record<number, ResponseSpec>
  /** The operation's group in the document (OpenAPI `tags`): one per surface. */
  tags?: string[]
  /**
   * Where the operation is served, when not at every server of the document (OpenAPI
   * operation-level `servers`), e.g. `['/']` for a path outside the document's `/v1` prefix.
   */
  servers?: string[]
  /** Credentials the operation takes, by security scheme name (OpenAPI `security`). */
  security?: string[]
  /**
   * How the route's path answers the methods no route of it serves: 405 with `Allow`
   * (`answerOtherMethodsOf`). Left out, they are the service's generic 404 (surface A).
   */
  otherMethods?: OtherMethods
}

/**
 * One operation, described once: Fastify registers it (its response schemas serialize the
 * replies) and the OpenAPI document publishes it, so documentation and behaviour share a source.
 */
export interface RouteSpec extends OperationSpec {
  /** Checks that run before the body is read (credentials, role policy, content type, id). */
  onRequest?: (onRequestHookHandler | onRequestAsyncHookHandler)[]
  /** Checks that run after `onRequest`, before the body is read (surface B's 415 without a body). */
  preParsing?: (preParsingHookHandler | preParsingAsyncHookHandler)[]
  /**
   * What the route opts into (Fastify's route `config`), read by the features that serve it.
   * `idempotent`: the route takes an `Idempotency-Key` (docs/decisions.md#safe-retries): set by
   * `idempotent()` (http/idempotency.ts), which also documents it; its `onRoute` hook adds the
   * hooks. `keepReceivedBody`: the body reader keeps the body's text (http/json-body.ts).
   */
  config?: FastifyContextConfig
  handler: RouteHandlerMethod
}

/** A 201's reply: the status with the `Location` of what was created, which every 201 names. */
export function created(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(201).header('location', location)
}

/** The documented `Location` header of a 201. */
export function locationHeader(description: string): ResponseSpec['headers'] {
  return { Location: { description, schema: Type.String() } }
}

/** The route's path in Fastify's syntax: `{id}` becomes `:id` (with its `match`, if any). */
export function fastifyPath(route: RouteSpec): string {
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const match = route.parameters?.find((p) => p.in === 'path' && p.name === name)?.match
    return match === undefined ? `:${name}` : `:${name}(${match})`
  })
}

export interface RegisterOptions {
  /** Path prefix the routes are served under. */
  base?: string
  /**
   * Prepares the child context the routes with a body are registered in (their body reader,
   * their error shape); without it they are registered in `instance`, which reads bodies.
   */
  bodies?: (instance: FastifyInstance) => void
}

/**
 * Registers `routes`. Routes that take no body are registered in a child context that ignores
 * bodies: a DELETE sent with a stray body or Content-Type must not become 400 or 415.
 */
export function registerRoutes(
  instance: FastifyInstance,
  routes: RouteSpec[],
  { base = '', bodies }: RegisterOptions = {},
): void {
  const withBody = routes.filter((route) => route.body !== undefined)
  if (bodies === undefined) addRoutes(instance, withBody, base)
  else {
    instance.register(
      encapsulated('with bodies', async (child) => {
        bodies(child)
        addRoutes(child, withBody, base)
      }),
    )
  }
  withoutBodies(instance, (bodyless) =>
    addRoutes(
      bodyless,
      routes.filter((route) => route.body === undefined),
      base,
    ),
  )
}

function addRoutes(instance: FastifyInstance, routes: RouteSpec[], base: string): void {
  for (const route of routes) {
    const response: Record<number, TSchema> = {}
    for (const [status, spec] of Object.entries(route.responses)) {
      if (spec.schema !== undefined) response[Number(status)] = spec.schema
    }
    instance.route({
      method: route.method,
      url: base + fastifyPath(route),
      schema: { response },
      ...(route.onRequest && { onRequest: route.onRequest }),
      ...(route.preParsing && { preParsing: route.preParsing }),
      ...(route.config && { config: route.config }),
      handler: route.handler,
    })
  }
}

/**
 * Sends `payload` serialized with `schema` rather than the route's response schema: for a route
 * whose success has two forms. Taking the payload, not just the schema, keeps the serializer off
 * the reply until the payload exists: set earlier, it would also serialize an error thrown
 * while the payload was being loaded. Fastify caches the compiled serializer per schema object.
 */
export function sendWith(reply: FastifyReply, schema: TSchema, payload: unknown): FastifyReply {
  return reply
    .type('application/json; charset=utf-8')
    .serializer(reply.compileSerializationSchema(schema as Record<string, unknown>))
    .send(payload)
}

/** One text a body may hold: fixed, or a template with one part that varies (an id). */
export type Text = string | { template: (part: string) => string; part: RegExp }

const PART = '\u0000'

/**
 * A string schema accepting exactly `texts`, for bodies whose every word is fixed (E3 messages,
 * plain-text answers): an `enum` of fixed texts, or a `pattern` once a text has a varying part.
 * Serializers apply neither keyword: the schema describes, it never changes what is sent.
 */
export function exactTexts(texts: Text[]): TSchema {
  if (texts.every((text) => typeof text === 'string')) return Type.String({ enum: texts })
  const alternatives = texts.map((text) =>
    typeof text === 'string'
      ? escapeRegExp(text)
      : escapeRegExp(text.template(PART)).replace(PART, `(?:${text.part.source})`),
  )
  return Type.String({ pattern: `^(?:${alternatives.join('|')})$` })
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
