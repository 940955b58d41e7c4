import type {
  FastifyInstance,
  FastifyReply,
  HTTPMethods,
  onRequestAsyncHookHandler,
  onRequestHookHandler,
  RouteHandlerMethod,
} from 'fastify'
import { type TSchema, Type } from 'typebox'
import { withoutBodies } from './json-body.js'

export interface ResponseSpec {
  description: string
  schema?: TSchema
  headers?: Record<string, { description: string; schema: TSchema }>
}

export interface ParameterSpec {
  name: string
  in: 'path' | 'query'
  description: string
  schema: TSchema
  required?: boolean
  /** For a path parameter: the regular expression a segment must match for the route to match. */
  match?: string
}

/**
 * One operation, described once: Fastify registers it (its response schemas serialize the
 * replies) and the OpenAPI document publishes it, so documentation and behaviour share a source.
 */
export interface RouteSpec {
  method: Extract<HTTPMethods, 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'>
  /** OpenAPI path template relative to the surface's base, e.g. `/tugas/{id}`. */
  path: string
  operationId: string
  summary: string
  /** Longer prose for the published description, where the summary is not enough. */
  description?: string
  parameters?: ParameterSpec[]
  body?: { schema: TSchema; description: string }
  responses: Record<number, ResponseSpec>
  /**
   * Where the operation is served, when not at every server of the document (OpenAPI
   * operation-level `servers`), e.g. `['/']` for a path outside the document's `/v1` prefix.
   */
  servers?: string[]
  /** Credentials the operation takes, by security scheme name (OpenAPI `security`). */
  security?: string[]
  /** Checks that run before the body is read (credentials, role policy, content type, id). */
  onRequest?: (onRequestHookHandler | onRequestAsyncHookHandler)[]
  handler: RouteHandlerMethod
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

/**
 * Registers `routes` under `base`. Routes that take no body are registered in a child context
 * that ignores bodies: a DELETE sent with a stray body or Content-Type must not become 400 or 415.
 */
export function registerRoutes(instance: FastifyInstance, routes: RouteSpec[], base = ''): void {
  addRoutes(
    instance,
    routes.filter((route) => route.body !== undefined),
    base,
  )
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
