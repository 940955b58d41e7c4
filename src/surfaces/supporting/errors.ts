import type { FastifyRequest } from 'fastify'
import { e2Shape } from '../../http/e2.js'
import { ApiError, type ErrorShape } from '../../http/errors.js'
import { idOf, type PathId, type SegmentId } from '../../http/path-id.js'

const e2 = e2Shape('details')

/** The challenge every 401 of surface D carries (Part 2, Authentication rule 3). */
export const CHALLENGE = 'Bearer realm="api"'

/**
 * Surface D speaks E2 with the map `details` (bodies up to the service's 1 MiB), and every 401
 * it sends, whichever check raised it, carries `WWW-Authenticate`.
 */
export const supportingErrors: ErrorShape = {
  fromFramework: e2.fromFramework,
  send(reply, error) {
    if (error.statusCode === 401) reply.header('www-authenticate', CHALLENGE)
    return e2.send(reply, error)
  },
}

export const invalidId = (raw: string) =>
  new ApiError(400, 'INVALID_ID', `id ${JSON.stringify(raw)} is not an integer`)

/** The 404 of a well-formed id that names nothing, echoing the id as sent. */
export const notFound = (what: string, raw: string) =>
  new ApiError(404, 'NOT_FOUND', `${what} ${raw} not found`)

/** 412: the resource's current representation has none of the tags `If-Match` names. */
export const preconditionFailed = (what: string, raw: string) =>
  new ApiError(
    412,
    'PRECONDITION_FAILED',
    `${what} ${raw} does not match If-Match: it has changed since that ETag`,
  )

export const methodNotAllowed = () =>
  new ApiError(405, 'METHOD_NOT_ALLOWED', 'method not allowed on this endpoint')

/**
 * A surface D id: an integer written in decimal, optionally negative. One that names nothing
 * (0, -1, past the largest id) is well-formed and simply not found.
 */
export const supportingId: PathId = { form: /^-?[0-9]+$/, invalid: invalidId }

/**
 * The `:id` of a surface D route, with the segment as sent, or 400 `INVALID_ID`. Routes call it
 * after their access checks.
 */
export function pathId(request: FastifyRequest): SegmentId {
  return idOf(request, supportingId)
}
