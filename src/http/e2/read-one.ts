import type { FastifyRequest } from 'fastify'
import { conditionalRead, type TaggedItem } from '../conditional.js'
import { atId } from '../path-id.js'
import type { RouteSpec } from '../route-spec.js'
import { e2Failures, idParameter, notFound, pathId } from './errors.js'

export interface ReadOneOptions<T> {
  /** The path template, ending in `/{id}`. */
  path: string
  operationId: string
  /** The resource's name in messages and descriptions: `user` gives "user 7 not found". */
  what: string
  /** The published description; by default, the order of the id checks. */
  description?: string
  /** How the 200 represents what was found (an envelope, say), with the ETag of that. */
  item: TaggedItem<T>
  find(id: number): Promise<T | undefined>
  /** A check of what was found before it is answered (ownership); refuses by throwing. */
  check?(found: T, request: FastifyRequest): void
}

/**
 * `GET .../{id}` of a surface that speaks E2 at the root (D, webhooks): 400 `INVALID_ID`, then
 * 404 `NOT_FOUND`, then the resource with its ETag, or 304 when `If-None-Match` matches it.
 */
export function readOne<T>(options: ReadOneOptions<T>): RouteSpec {
  const { what, find, item, check } = options
  const name = what[0]?.toUpperCase() + what.slice(1)
  return conditionalRead({
    method: 'GET',
    path: options.path,
    operationId: options.operationId,
    summary: `Read one ${what}.`,
    description:
      options.description ??
      `The ${what} with this id: an id that is not an integer is 400 (\`INVALID_ID\`), one no ${what} has 404 (\`NOT_FOUND\`).`,
    parameters: [idParameter(name)],
    responses: {
      200: { description: `The ${what}.`, schema: item.schema },
      400: e2Failures.invalidId,
      404: e2Failures.notFound,
    },
    async handler(request, reply) {
      const { id, raw } = pathId(request)
      const found = await atId(id, find)
      if (found === undefined) throw notFound(what, raw)
      check?.(found, request)
      return item.read(request, reply, found)
    },
  })
}
