// What the surfaces that speak E3, `{ "error": <message> }`, have in common (B and C): the
// messages both send, their published answers, each message exact and taken from the function
// that raises it, and the routes of one item (`/api/tugas/{id}`, `/todos/{id}`).
import type { FastifyReply, FastifyRequest } from 'fastify'
import { type TSchema, Type } from 'typebox'
import {
  conditionalRead,
  conditionalWrite,
  deleted,
  preconditionHeld,
  type TaggedItem,
  taggedItem,
} from '../../http/conditional.js'
import { ApiError, type ErrorShape, type FrameworkFailure } from '../../http/errors.js'
import { idempotencyFailures } from '../../http/idempotency.js'
import { atId, checkIdFirst, idOf, type PathId } from '../../http/path-id.js'
import {
  exactTexts,
  type ParameterSpec,
  type ResponseSpec,
  type RouteSpec,
  type Text,
} from '../../http/route-spec.js'
import { storeFailures } from '../../http/store-failures.js'
import type { ItemStore } from '../../store/item-store.js'
import type { Precondition, PreconditionFailed } from '../../store/precondition.js'

/** The code of an error sent as E3 (a surface's `send` tells it from its other forms). */
const E3_CODE = 'E3'

/** An error sent as E3, `{ "error": <message> }`. */
export function e3Error(statusCode: number, message: string): ApiError {
  return new ApiError(statusCode, E3_CODE, message)
}

/** The E3 message of a 503 (docs/decisions.md#unavailable-backing-services), shared by B and C. */
const LAYANAN_TIDAK_TERSEDIA = 'layanan sedang tidak tersedia'

/** The E3 message of a 412, `If-Match` not matching (docs/compact.md#errors), shared by B and C. */
const VERSI_TIDAK_COCOK = 'versi tidak cocok'

/** The 412 of a write whose `If-Match` the item does not match, on surfaces B and C. */
export const versiTidakCocok = () => e3Error(412, VERSI_TIDAK_COCOK)

/**
 * The E3 status and message of each `Idempotency-Key` refusal, B's and C's
 * (docs/compact.md#errors).
 */
function idempotencyE3(
  kind: 'idempotency-key-invalid' | 'idempotency-key-in-use' | 'idempotency-key-reused',
): [number, string] {
  switch (kind) {
    case 'idempotency-key-invalid':
      return [400, 'Idempotency-Key tidak valid']
    case 'idempotency-key-reused':
      return [422, 'Idempotency-Key dipakai untuk permintaan lain']
    case 'idempotency-key-in-use':
      return [409, 'permintaan dengan Idempotency-Key ini sedang diproses']
  }
}

/** What surfaces B and C answer alike to a failure they did not raise: 500, 503, a refused key. */
export function sharedE3(
  kind: Extract<FrameworkFailure['kind'], 'internal' | 'unavailable' | `idempotency-key-${string}`>,
): ApiError {
  switch (kind) {
    case 'internal':
      return e3Error(500, 'terjadi kesalahan internal')
    case 'unavailable':
      return e3Error(503, LAYANAN_TIDAK_TERSEDIA)
    default:
      return e3Error(...idempotencyE3(kind))
  }
}

/**
 * The documented answers surfaces B and C give alike, E3 in `shape`: the store's failures and the
 * refusals of an `Idempotency-Key`.
 */
export function e3Failures(shape: ErrorShape) {
  return {
    store: storeFailures(shape, e3Answer),
    idempotency: idempotencyFailures(shape, e3Answer),
  }
}

/** An E3 answer whose message is one of `texts`. */
export function e3(description: string, texts: Text[]): ResponseSpec {
  return { description, schema: Type.Object({ error: exactTexts(texts) }) }
}

/** The E3 answer of one error `shape` gives, under a description (a sentence without its stop). */
export function e3Answer(description: string, error: ApiError): ResponseSpec {
  return e3(`${description}.`, [error.message])
}

/** What `shape` answers for a failure it did not raise itself, as text. */
export function frameworkText(shape: ErrorShape, failure: FrameworkFailure): string {
  return shape.fromFramework(failure).message
}

/** One item of an E3 surface, at `path` (ending in `/{id}`), as its routes read and answer it. */
export interface E3Item<T> {
  path: string
  /** The item in summaries: `compact task`, `todo`. */
  what: string
  /** The item in operation ids: `CompactTugas`, `Todo`. */
  name: string
  schema: TSchema
  pathId: PathId
  /** What an id is, and what the routes answer for one that is not. */
  idDescription: string
  /** The documented 400 (the id) and 404, and the store's failures. */
  failures: {
    invalidId: ResponseSpec
    notFound: ResponseSpec
    store: Record<500 | 503, ResponseSpec>
  }
  /** The 404 for the id as sent. */
  notFound(raw: string): ApiError
  store: Pick<ItemStore<T, unknown, unknown>, 'get' | 'delete'>
}

/** A write of one item guarded by a precondition, as the stores take it. */
export type GuardedChange<T> = (
  id: number,
  precondition: Precondition<T> | undefined,
) => Promise<T | undefined | PreconditionFailed>

/** The routes of one item, and the pieces its other routes (PUT) are made of. */
export interface ItemRoutes<T> {
  /** `GET`: the id (400), then existence (404); 304 when `If-None-Match` matches. */
  read: RouteSpec
  /** `DELETE`: the id (400), existence (404), then `If-Match` (412); any body is ignored. */
  remove: RouteSpec
  /** The id parameter, checked first, before the body is read (docs/compact.md#rules). */
  idFirst: Pick<RouteSpec, 'parameters' | 'onRequest'>
  /** The item in the answers that carry it (a create's), with its ETag. */
  tagged: TaggedItem<T>
  /** A write of the item, documented with `If-Match` and its 412. */
  guarded(route: RouteSpec): RouteSpec
  /**
   * Answers `change` of the item `request` names, guarded by its `If-Match`: the item's 404 for
   * the id as sent, then its 412, else 200 with the item and its ETag.
   */
  write(
    request: FastifyRequest,
    reply: FastifyReply,
    change: GuardedChange<T>,
  ): Promise<FastifyReply>
}

/** The routes of `item`: both surfaces' `GET` and `DELETE` of one item are the same. */
export function itemRoutes<T>(item: E3Item<T>): ItemRoutes<T> {
  const { path, what, name, store } = item
  const responses = {
    400: item.failures.invalidId,
    404: item.failures.notFound,
    ...item.failures.store,
  }
  const parameter: ParameterSpec = {
    name: 'id',
    in: 'path',
    description: item.idDescription,
    // Any segment reaches the route, whose id rule answers it (400): the document says what a
    // client sends, an integer.
    schema: item.pathId.schema,
    example: 1,
  }
  const idFirst = { parameters: [parameter], onRequest: [checkIdFirst(item.pathId)] }
  const tagged = taggedItem<T>({ schema: item.schema })
  const failed = e3('`If-Match` names no tag of the item as it is now; nothing changed.', [
    versiTidakCocok().message,
  ])
  const guarded = (route: RouteSpec) => conditionalWrite(route, failed)
  /** What `change` gives for the item `request` names: its 404, then its 412. */
  async function at<R>(
    request: FastifyRequest,
    change: (id: number) => Promise<R | undefined | PreconditionFailed>,
  ): Promise<R> {
    const { id, raw } = idOf(request, item.pathId)
    const found = await atId(id, change)
    if (found === undefined) throw item.notFound(raw)
    return preconditionHeld(found, versiTidakCocok)
  }
  const operation = (method: 'GET' | 'DELETE', summary: string, description: string) => ({
    method,
    path,
    operationId: `${method === 'GET' ? 'get' : 'delete'}${name}`,
    summary,
    description,
    ...idFirst,
  })
  return {
    idFirst,
    tagged,
    guarded,
    async write(request, reply, change) {
      const ifMatch = tagged.ifMatch(request, reply)
      return tagged.send(reply, await at(request, (id) => change(id, ifMatch)))
    },
    read: conditionalRead({
      ...operation(
        'GET',
        `Read one ${what}.`,
        'The id is checked first (400), then existence (404), then `If-None-Match` (304).',
      ),
      responses: { 200: { description: `The ${what}.`, schema: item.schema }, ...responses },
      async handler(request, reply) {
        return tagged.read(request, reply, await at(request, (id) => store.get(id)))
      },
    }),
    remove: guarded({
      ...operation(
        'DELETE',
        `Delete a ${what}.`,
        'Any body sent is ignored. Checks in order: the id (400), existence (404), then ' +
          '`If-Match` (412). Later reads are 404.',
      ),
      responses: { 204: { description: 'Deleted; empty body.' }, ...responses },
      async handler(request, reply) {
        const ifMatch = tagged.ifMatch(request, reply)
        const { id, raw } = idOf(request, item.pathId)
        deleted(await atId(id, (known) => store.delete(known, ifMatch)), {
          notFound: () => item.notFound(raw),
          failed: versiTidakCocok,
        })
        return reply.code(204).send()
      },
    }),
  }
}
