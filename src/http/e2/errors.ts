// What the surfaces that speak E2 at the service root share (D with /kredensial, the feed,
// webhooks): their error shape, integer ids, 404 and 405, and the documented failures of bodies
// and stores. Each surface's own errors stay with it.
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { ApiError, type ErrorShape } from '../errors.js'
import { otherMethods } from '../method-not-allowed.js'
import { idOf, type PathId, type SegmentId } from '../path-id.js'
import type { ParameterSpec, ResponseSpec } from '../route-spec.js'
import { storeFailures } from '../store-failures.js'
import { E2Body, e2Shape } from './shape.js'

const detailsShape = e2Shape('details')

/** The challenge every 401 of these surfaces carries (docs/supporting.md#credentials-and-roles). */
export const CHALLENGE = 'Bearer realm="api"'

/**
 * These surfaces speak E2 with the map `details` (bodies up to the service's 1 MiB), and every
 * 401 they send, whichever check raised it, carries `WWW-Authenticate`.
 */
export const e2Errors: ErrorShape = {
  fromFramework: detailsShape.fromFramework,
  send(reply, error) {
    if (error.statusCode === 401) reply.header('www-authenticate', CHALLENGE)
    return detailsShape.send(reply, error)
  },
}

export const invalidId = (raw: string) =>
  new ApiError(400, 'INVALID_ID', `id ${JSON.stringify(raw)} is not an integer`)

/** The 404 of a well-formed id that names nothing, echoing the id as sent. */
export const notFound = (what: string, raw: string) =>
  new ApiError(404, 'NOT_FOUND', `${what} ${raw} not found`)

/** 429 `RATE_LIMIT_EXCEEDED`: too many `what` of late, and the whole seconds to wait. */
export const tooMany = (what: string, seconds: number) =>
  new ApiError(
    429,
    'RATE_LIMIT_EXCEEDED',
    `too many ${what}: retry in ${seconds} second${seconds === 1 ? '' : 's'}`,
  )

export const methodNotAllowed = () =>
  new ApiError(405, 'METHOD_NOT_ALLOWED', 'method not allowed on this endpoint')

/**
 * An id of these surfaces: an integer written in decimal, optionally negative. One that names
 * nothing (0, -1, past the largest id) is well-formed and simply not found.
 */
export const integerId: PathId = {
  form: /^-?[0-9]+$/,
  schema: Type.Integer(),
  invalid: invalidId,
}

/**
 * The `:id` of a route of these surfaces, with the segment as sent, or 400 `INVALID_ID`. Routes
 * call it after their access checks.
 */
export function pathId(request: FastifyRequest): SegmentId {
  return idOf(request, integerId)
}

/**
 * An `{id}` of these surfaces: documented as the integer a client sends, although any segment
 * matches the route; one that is not an integer is 400.
 */
export const idParameter = (what: string): ParameterSpec => ({
  name: 'id',
  in: 'path',
  description:
    `${what} id, an integer; an integer nothing has (\`0\`, negative, past ` +
    `9007199254740991) is 404, any other segment 400 \`INVALID_ID\`.`,
  schema: integerId.schema,
  example: 1,
})

/** A documented failure of these surfaces, in the E2 shape. */
export const e2Response = (description: string): ResponseSpec => ({ description, schema: E2Body })

/** The E2 answer of one error the shape gives, under a description. */
export const e2Answer = (description: string, { code }: ApiError) =>
  e2Response(`${description} (\`${code}\`).`)

/** The documented failures every resource of these surfaces may answer. */
export const e2Failures = {
  invalidId: e2Response('The id is not an integer (`INVALID_ID`).'),
  notFound: e2Response('No such resource (`NOT_FOUND`).'),
  body: {
    400: e2Response(
      'Body not valid JSON (`INVALID_JSON`), or fields break the rules (`VALIDATION_ERROR`).',
    ),
    413: e2Response('Body over 1 MiB (`BODY_TOO_LARGE`).'),
    415: e2Response(
      'Content-Type does not start with application/json (`UNSUPPORTED_MEDIA_TYPE`).',
    ),
  },
  /** A route that reads a store (credentials included): 500 when it fails, 503 while away. */
  store: storeFailures(e2Errors, e2Answer),
}

/** The 405 of every path of these surfaces, in E2, with `Allow`. */
export const notServed = otherMethods(
  e2Response('A method this path does not serve (`METHOD_NOT_ALLOWED`).'),
  (reply) => e2Errors.send(reply, methodNotAllowed()),
)
