import type { FastifyRequest, onRequestHookHandler } from 'fastify'
import type { TSchema } from 'typebox'
import type { ApiError } from './errors.js'

/**
 * The largest id any store holds: ids are bigint columns kept within JavaScript's safe integers
 * (migrations), and the memory stores count in numbers.
 */
export const MAX_ID = Number.MAX_SAFE_INTEGER

/**
 * What a path segment says about an id, in a surface that writes ids as `form`:
 * - a number that may name a stored item (`id`): ask the store;
 * - `undefined`: well-formed, but no store can hold it (0, negative, past MAX_ID, 400 digits):
 *   the surface's 404, without asking the store;
 * - `'malformed'`: not an id of this surface: its id error.
 */
export function readId(raw: string, form: RegExp): number | undefined | 'malformed' {
  if (!form.test(raw)) return 'malformed'
  const id = Number(raw)
  return Number.isSafeInteger(id) && id >= 1 ? id : undefined
}

/** How one surface writes ids, and its error for a segment that is not one. */
export interface PathId {
  /** The whole segment, e.g. `/^[0-9]+$/`. */
  form: RegExp
  /**
   * The id as the document publishes it: the integers `form` accepts (`minimum: 0` without a
   * sign), as a client sends them (docs/openapi.md#path-ids).
   */
  schema: TSchema
  /** The surface's error for a segment that is not an id, echoing it as sent. */
  invalid(raw: string): ApiError
}

/** An id segment as read: the id to ask the store for (undefined: it names nothing), as sent. */
export interface SegmentId {
  id: number | undefined
  raw: string
}

/** `request`'s `:name` segment, or the surface's id error when it is not an id. */
export function idOf(request: FastifyRequest, pathId: PathId, name = 'id'): SegmentId {
  const raw = (request.params as Record<string, string>)[name] ?? ''
  const id = readId(raw, pathId.form)
  if (id === 'malformed') throw pathId.invalid(raw)
  return { id, raw }
}

/**
 * A route hook that checks `:id` before anything else, the body included: surfaces B and C parse
 * the id first (docs/compact.md#rules, docs/todos.md#todos_variantbasic-default), and Fastify reads
 * bodies before the handler runs.
 */
export function checkIdFirst(pathId: PathId): onRequestHookHandler {
  // A callback hook, as are the other checks that need no store: a promise per request is
  // measurable on the hot path.
  return (request, _reply, done) => {
    try {
      idOf(request, pathId)
      done()
    } catch (error) {
      done(error as Error)
    }
  }
}

/** What `find` gives for `id`, or undefined, without asking, for an id that names nothing. */
export function atId<T>(
  id: number | undefined,
  find: (id: number) => Promise<T>,
): Promise<T | undefined> {
  // Not async: the store's own promise, not a second one adopting it (two ticks a request).
  return id === undefined ? Promise.resolve(undefined) : find(id)
}
