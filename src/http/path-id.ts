import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify'
import type { ApiError } from './errors.js'

export interface PathId {
  /** The `:id` segment as a number, or undefined when it is not an id of this surface. */
  parse(raw: string): number | undefined
  /** The surface's error for a segment that is not an id, echoing it as sent. */
  invalid(raw: string): ApiError
}

function raw(request: FastifyRequest): string {
  return (request.params as { id: string }).id
}

/**
 * A route hook that checks `:id` before anything else, the body included: surfaces B and C
 * parse the id first (Part 1, B rule 1), and Fastify reads bodies before the handler runs.
 */
export function checkIdFirst(pathId: PathId): onRequestAsyncHookHandler {
  return async (request) => {
    if (pathId.parse(raw(request)) === undefined) throw pathId.invalid(raw(request))
  }
}

/** The id of a request that passed `checkIdFirst`, with the segment as sent. */
export function idOf(request: FastifyRequest, pathId: PathId): { id: number; raw: string } {
  return { id: pathId.parse(raw(request)) as number, raw: raw(request) }
}
