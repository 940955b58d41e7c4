import type { FastifyRequest } from 'fastify'
import type { TSchema } from 'typebox'
import { atId } from '../../http/path-id.js'
import type { RouteSpec } from '../../http/route-spec.js'
import { notFound, pathId } from './errors.js'
import { failures, idParameter } from './responses.js'

export interface ReadOneOptions<T> {
  /** The path template, ending in `/{id}`. */
  path: string
  operationId: string
  /** The resource's name in messages and descriptions: `user` gives "user 7 not found". */
  what: string
  /** The published description; by default, the order of the id checks. */
  description?: string
  /** The 200 body's schema. */
  schema: TSchema
  find(id: number): Promise<T | undefined>
  /** The 200 body for what was found (an envelope, say); may refuse it by throwing. */
  present?(found: T, request: FastifyRequest): unknown
}

/** `GET .../{id}` of surface D: 400 `INVALID_ID`, then 404 `NOT_FOUND`, then the resource. */
export function readOne<T>(options: ReadOneOptions<T>): RouteSpec {
  const { what, find, present = (found: T) => found } = options
  const name = what[0]?.toUpperCase() + what.slice(1)
  return {
    method: 'GET',
    path: options.path,
    operationId: options.operationId,
    summary: `Read one ${what}.`,
    description:
      options.description ??
      `The ${what} with this id: an id that is not an integer is 400 (\`INVALID_ID\`), one no ${what} has 404 (\`NOT_FOUND\`).`,
    parameters: [idParameter(name)],
    responses: {
      200: { description: `The ${what}.`, schema: options.schema },
      400: failures.invalidId,
      404: failures.notFound,
    },
    async handler(request) {
      const { id, raw } = pathId(request)
      const found = await atId(id, find)
      if (found === undefined) throw notFound(what, raw)
      return present(found, request)
    },
  }
}
