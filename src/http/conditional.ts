// Conditional requests (RFC 9110 sections 8.8.3 and 13; docs/decisions.md#conditional-requests) on
// the item routes of every surface: the strong `ETag` of the representation an item's GET sends,
// `If-None-Match` on GET (304), `If-Match` on the writes (412 in the surface's shape), and what the
// document says of them. The check of `If-Match` is the store's (store/precondition.ts): a route
// never reads, compares and then writes.
import { hash } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { type TSchema, Type } from 'typebox'
import {
  PRECONDITION_FAILED,
  type Precondition,
  type PreconditionFailed,
} from '../store/precondition.js'
import { headerValue } from './headers.js'
import type { HeaderSpec, ParameterSpec, ResponseSpec, RouteSpec } from './route-spec.js'

// ---------------------------------------------------------------------------------------------
// Entity tags

/** Characters of the hash kept in a tag: 22 of base64url, 132 bits. */
const TAG_CHARACTERS = 22

/**
 * The strong entity tag of a representation: its SHA-256 in base64url, cut to 22 characters,
 * quoted. Derived from the exact bytes sent, it changes exactly when they change (no version
 * column to keep in step), and two servers holding the same item give it the same tag.
 */
export function strongTag(representation: string): string {
  // The one-shot hash: a Hash object per answer (a stream) costs twice the hashing itself.
  return `"${hash('sha256', representation, 'base64url').slice(0, TAG_CHARACTERS)}"`
}

/** One member of an `If-Match` or `If-None-Match` list. */
export interface EntityTag {
  weak: boolean
  /** The opaque tag with its quotes: `"abc"`. */
  opaque: string
}

/** A parsed `If-Match` / `If-None-Match` value: `*`, or a list of tags (possibly empty). */
export type EntityTagList = '*' | EntityTag[]

/** `entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE`, etagc = %x21 / %x23-7E / obs-text. */
const ENTITY_TAG = /(W\/)?("[\x21\x23-\x7E\x80-\xFF]*")/y

/**
 * Reads an `If-Match` or `If-None-Match` value (RFC 9110 13.1.1, 13.1.2): `"*"` alone, or a
 * comma-separated list of entity tags with optional white space around the commas. Empty list
 * members are ignored (RFC 9110 5.6.1), so `""` and `,` are the empty list. A comma inside a
 * tag's quotes belongs to the tag. Undefined when the value is not of that form: `*` among
 * tags, a lowercase `w/`, a tag without its quotes, two tags without a comma, a space or a
 * control character inside the quotes. Repeated header lines arrive joined by commas (Node), one
 * list.
 */
export function parseEntityTags(value: string): EntityTagList | undefined {
  const field = value.replace(/^[ \t]+|[ \t]+$/g, '')
  if (field === '*') return '*'
  const tags: EntityTag[] = []
  let at = 0
  let afterTag = false
  while (at < field.length) {
    const char = field[at]
    if (char === ' ' || char === '\t') {
      at++
    } else if (char === ',') {
      afterTag = false
      at++
    } else {
      if (afterTag) return undefined
      ENTITY_TAG.lastIndex = at
      const match = ENTITY_TAG.exec(field)
      if (match === null) return undefined
      tags.push({ weak: match[1] !== undefined, opaque: match[2] as string })
      at = ENTITY_TAG.lastIndex
      afterTag = true
    }
  }
  return tags
}

/**
 * Whether `If-Match: <field>` holds for a current representation whose strong tag is `current`
 * (RFC 9110 13.1.1): `*`, or a listed tag equal to it by the strong comparison, so a weak tag
 * never matches. A value that is not a valid list matches nothing: a write is never made on a
 * condition that cannot be read.
 */
export function ifMatchHolds(field: string, current: string): boolean {
  const list = parseEntityTags(field)
  if (list === undefined) return false
  return list === '*' || list.some((tag) => !tag.weak && tag.opaque === current)
}

/**
 * Whether `If-None-Match: <field>` matches a current representation whose tag is `current`
 * (RFC 9110 13.1.2), so that a GET answers 304: `*`, or a listed tag equal to it by the weak
 * comparison (`W/"x"` matches `"x"`). A value that is not a valid list matches nothing: the
 * full answer, which is never wrong for a GET.
 */
export function ifNoneMatchMatches(field: string, current: string): boolean {
  const list = parseEntityTags(field)
  if (list === undefined) return false
  return list === '*' || list.some((tag) => tag.opaque === current)
}

// ---------------------------------------------------------------------------------------------
// Answers that carry an item

/** How an item's GET represents it: the serializer's schema and the body it is given. */
export interface Representation<T> {
  /** The schema the GET's 200 body is serialized with. */
  schema: TSchema
  /** The GET's body for `item` (an envelope, say); the item itself when left out. */
  body?(item: T): unknown
}

/** The answers of one kind of item, each with the tag of the representation its GET sends. */
export interface TaggedItem<T> {
  /** The schema of the GET's 200 body (the document's). */
  readonly schema: TSchema
  /** A GET: 304, no body, when `If-None-Match` matches; else 200 with the item. ETag on both. */
  read(request: FastifyRequest, reply: FastifyReply, item: T): FastifyReply
  /** The answer of a write that returns the item (200, or the status set), with its new ETag. */
  send(reply: FastifyReply, item: T): FastifyReply
  /** The request's `If-Match` as the store's precondition; undefined when none was sent. */
  ifMatch(request: FastifyRequest, reply: FastifyReply): Precondition<T> | undefined
}

const JSON_TYPE = 'application/json; charset=utf-8'

/**
 * The answers of items represented as `representation` says. The body is serialized here, with
 * the serializer Fastify compiles for the schema (cached per route and schema), and sent as
 * that text: the tag is the hash of exactly the bytes sent, and the tag a write's precondition
 * is compared with is computed the same way from the item the store holds at that instant.
 */
export function taggedItem<T>(representation: Representation<T>): TaggedItem<T> {
  const { schema, body = (item: T) => item } = representation
  const serialized = (reply: FastifyReply, item: T): string =>
    reply.compileSerializationSchema(schema as Record<string, unknown>)(
      body(item) as Record<string, unknown>,
    )
  return {
    schema,
    read(request, reply, item) {
      const text = serialized(reply, item)
      const tag = strongTag(text)
      reply.header('etag', tag)
      const field = headerValue(request.headers['if-none-match'])
      if (field !== undefined && ifNoneMatchMatches(field, tag)) return reply.code(304).send()
      return reply.type(JSON_TYPE).send(text)
    },
    send(reply, item) {
      const text = serialized(reply, item)
      return reply.header('etag', strongTag(text)).type(JSON_TYPE).send(text)
    },
    ifMatch(request, reply) {
      const field = headerValue(request.headers['if-match'])
      if (field === undefined) return undefined
      return (current) => ifMatchHolds(field, strongTag(serialized(reply, current)))
    },
  }
}

/**
 * What a guarded write gave, or `failed()` thrown (the surface's 412) when its precondition did
 * not hold. Call it after the 404 check: a missing item is not a failed precondition.
 */
export function preconditionHeld<R>(result: R | PreconditionFailed, failed: () => Error): R {
  if (result === PRECONDITION_FAILED) throw failed()
  return result
}

/**
 * Checks what a guarded delete gave (undefined: the id names nothing, so the store was not
 * asked): `notFound()` thrown when there was no item, then `failed()` when its precondition did
 * not hold.
 */
export function deleted(
  result: boolean | PreconditionFailed | undefined,
  errors: { notFound(): Error; failed(): Error },
): void {
  if (result === undefined || result === false) throw errors.notFound()
  preconditionHeld(result, errors.failed)
}

// ---------------------------------------------------------------------------------------------
// What the document says

const ETAG: HeaderSpec = {
  description:
    'Strong entity tag of the representation sent (RFC 9110): a quoted hash of the body, which ' +
    'changes exactly when it changes. Send it back in `If-None-Match` (GET) or `If-Match` ' +
    '(writes).',
  schema: Type.String({ pattern: '^"[A-Za-z0-9_-]+"$' }),
  required: true,
}

/** A documented answer that carries an item's representation, with its `ETag`. */
export function withETag(response: ResponseSpec): ResponseSpec {
  return { ...response, headers: { ...response.headers, ETag: ETAG } }
}

const IF_NONE_MATCH: ParameterSpec = {
  name: 'If-None-Match',
  in: 'header',
  description:
    'Entity tags from `ETag`, comma-separated, or `*`. When one matches the current ' +
    'representation (weak comparison: `W/"x"` matches `"x"`), the answer is 304 with no body. ' +
    'A value that is not such a list matches nothing.',
  schema: Type.String(),
  example: '"69AjMQxeVKNaCALLuEbcAK"',
}

const IF_MATCH: ParameterSpec = {
  name: 'If-Match',
  in: 'header',
  description:
    'Entity tags from `ETag`, comma-separated, or `*` (any current representation). The write ' +
    'is made only if one matches the current representation (strong comparison: a weak tag ' +
    '`W/"..."` never matches), in the same atomic step as the write; otherwise 412 and nothing ' +
    'changes. A value that is not such a list matches nothing. Checked after the id, the body ' +
    'and existence (404). Without it the write is unconditional.',
  schema: Type.String(),
  example: '*',
}

const NOT_MODIFIED: ResponseSpec = {
  description: '`If-None-Match` matched the current representation: no body.',
  headers: { ETag: ETAG },
}

/** A GET of one item, documented with `If-None-Match`, its 304, and the `ETag` of its 200. */
export function conditionalRead(route: RouteSpec): RouteSpec {
  const ok = route.responses[200]
  if (ok === undefined) throw new Error(`${route.operationId}: a conditional read answers 200`)
  return {
    ...route,
    parameters: [...(route.parameters ?? []), IF_NONE_MATCH],
    responses: { ...route.responses, 200: withETag(ok), 304: NOT_MODIFIED },
  }
}

/**
 * A write guarded by `If-Match`, documented with the header, `failed` (the surface's 412), and
 * the `ETag` of its 200 when that carries the item.
 */
export function conditionalWrite(route: RouteSpec, failed: ResponseSpec): RouteSpec {
  const responses: RouteSpec['responses'] = { ...route.responses, 412: failed }
  const ok = route.responses[200]
  if (ok?.schema !== undefined) responses[200] = withETag(ok)
  return { ...route, parameters: [...(route.parameters ?? []), IF_MATCH], responses }
}
