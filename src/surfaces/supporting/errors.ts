import type { FastifyRequest } from 'fastify'
import { e2Shape } from '../../http/e2.js'
import { ApiError, type ErrorShape } from '../../http/errors.js'

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

export const notFound = (what: string, id: number | string) =>
  new ApiError(404, 'NOT_FOUND', `${what} ${id} not found`)

export const methodNotAllowed = () =>
  new ApiError(405, 'METHOD_NOT_ALLOWED', 'method not allowed on this endpoint')

/**
 * A surface D id: an integer written in decimal, optionally negative. One that names nothing
 * (0, -1, past the safe-integer range) is well-formed and simply not found.
 */
export function parseId(raw: string): number | undefined {
  return /^-?[0-9]+$/.test(raw) ? Number(raw) : undefined
}

/** The `:id` of a surface D route, or 400 `INVALID_ID`. Routes call it after their access checks. */
export function pathId(request: FastifyRequest): number {
  const raw = (request.params as { id: string }).id
  const id = parseId(raw)
  if (id === undefined) throw invalidId(raw)
  return id
}
