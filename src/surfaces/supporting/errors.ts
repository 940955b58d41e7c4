// Every error surface D returns, and how its routes document them: E2 with the map `details`.
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { ApiError, type ErrorShape } from '../../http/errors.js'
import { idempotencyFailures } from '../../http/idempotency.js'
import { otherMethods } from '../../http/method-not-allowed.js'
import { idOf, type PathId, type SegmentId } from '../../http/path-id.js'
import type { HeaderSpec, ParameterSpec, ResponseSpec } from '../../http/route-spec.js'
import { storeFailures } from '../../http/store-failures.js'
import type { Identity } from './access/identity.js'
import { E2Body, e2Shape } from './e2.js'

const detailsShape = e2Shape('details')

/** The challenge every 401 of surface D carries (docs/supporting.md#credentials-and-roles). */
export const CHALLENGE = 'Bearer realm="api"'

/**
 * Surface D speaks E2 with the map `details` (bodies up to the service's 1 MiB), and every 401
 * it sends, whichever check raised it, carries `WWW-Authenticate`.
 */
export const supportingErrors: ErrorShape = {
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

/** 412: the resource's current representation has none of the tags `If-Match` names. */
export const preconditionFailed = (what: string, raw: string) =>
  new ApiError(
    412,
    'PRECONDITION_FAILED',
    `${what} ${raw} does not match If-Match: it has changed since that ETag`,
  )

export const methodNotAllowed = () =>
  new ApiError(405, 'METHOD_NOT_ALLOWED', 'method not allowed on this endpoint')

// Every 401 also carries `WWW-Authenticate`: `supportingErrors` adds it.
export const unauthenticated = () =>
  new ApiError(
    401,
    'UNAUTHENTICATED',
    'a valid credential is required: Authorization: Bearer <token> or X-API-Key',
  )
export const missingApiKey = () =>
  new ApiError(401, 'MISSING_API_KEY', 'the X-API-Key header is required')

/** 403 by the role policy: the caller's role may not call `endpoint` (`GET /dokumen/{id}`). */
export const forbidden = (identity: Identity, endpoint: string) =>
  new ApiError(403, 'FORBIDDEN', `role "${identity.peran}" is not allowed to call ${endpoint}`)

/** 403 by ownership, checked after existence: the document is another user's. */
export const notYours = (id: number) =>
  new ApiError(403, 'FORBIDDEN', `document ${id} is not yours: it belongs to another user`)

export const emailTaken = (email: string) =>
  new ApiError(409, 'EMAIL_TELAH_DIPAKAI', `email ${JSON.stringify(email)} is already registered`)

export const alreadyPaid = (id: number) =>
  new ApiError(409, 'SUDAH_DIBAYAR', `order ${id} is already paid`, { status: 'LUNAS' })

/** 410: products version 1 from its sunset on; the message names its successor. */
export const versionRetired = (sunset: Date, successor: string) =>
  new ApiError(
    410,
    'VERSION_RETIRED',
    `products version 1 was retired on ${sunset.toUTCString()}: use ${successor}`,
  )

export const rateLimited = (seconds: number) =>
  new ApiError(
    429,
    'RATE_LIMIT_EXCEEDED',
    `too many requests for this API key: retry in ${seconds} second${seconds === 1 ? '' : 's'}`,
  )

/** 429 for a client address that presented too many unknown credentials of late. */
export const tooManyFailures = (seconds: number) =>
  new ApiError(
    429,
    'RATE_LIMIT_EXCEEDED',
    `too many failed credentials from this address: retry in ${seconds} second${seconds === 1 ? '' : 's'}`,
  )

/**
 * A surface D id: an integer written in decimal, optionally negative. One that names nothing
 * (0, -1, past the largest id) is well-formed and simply not found.
 */
export const supportingId: PathId = {
  form: /^-?[0-9]+$/,
  schema: Type.Integer(),
  invalid: invalidId,
}

/**
 * The `:id` of a surface D route, with the segment as sent, or 400 `INVALID_ID`. Routes call it
 * after their access checks.
 */
export function pathId(request: FastifyRequest): SegmentId {
  return idOf(request, supportingId)
}

/**
 * A surface D `{id}`: documented as the integer a client sends, although any segment matches
 * the route; one that is not an integer is 400.
 */
export const idParameter = (what: string): ParameterSpec => ({
  name: 'id',
  in: 'path',
  description:
    `${what} id, an integer; an integer nothing has (\`0\`, negative, past ` +
    `9007199254740991) is 404, any other segment 400 \`INVALID_ID\`.`,
  schema: supportingId.schema,
  example: 1,
})

/** The documented failures of surface D routes, all in the E2 shape. */
const e2 = (description: string): ResponseSpec => ({ description, schema: E2Body })
/** The E2 answer of one error surface D's shape gives, under a description. */
const e2Answer = (description: string, { code }: ApiError) => e2(`${description} (\`${code}\`).`)

export const failures = {
  invalidId: e2('The id is not an integer (`INVALID_ID`).'),
  notFound: e2('No such resource (`NOT_FOUND`).'),
  body: {
    400: e2(
      'Body not valid JSON (`INVALID_JSON`), or fields break the rules (`VALIDATION_ERROR`).',
    ),
    413: e2('Body over 1 MiB (`BODY_TOO_LARGE`).'),
    415: e2('Content-Type does not start with application/json (`UNSUPPORTED_MEDIA_TYPE`).'),
  },
  unauthenticated: {
    description:
      'No credential, an unknown one, or another scheme (`UNAUTHENTICATED`); ' +
      '`X-API-Key` missing on `/laporan` (`MISSING_API_KEY`).',
    schema: E2Body,
    headers: {
      'WWW-Authenticate': { description: 'Always `Bearer realm="api"`.', schema: Type.String() },
    },
  } satisfies ResponseSpec,
  preconditionFailed: e2(
    '`If-Match` names no tag of the resource as it is now (`PRECONDITION_FAILED`): nothing ' +
      'changed.',
  ),
  forbidden: e2('The role may not call this endpoint, or the document is not yours (`FORBIDDEN`).'),
  emailTaken: e2('The email is already registered, in any letter case (`EMAIL_TELAH_DIPAKAI`).'),
  alreadyPaid: e2('Already paid (`SUDAH_DIBAYAR`); `details.status` is `LUNAS`.'),
  throttled: {
    ...e2(
      'Too many unknown, revoked or expired credentials from this client address within 60 ' +
        'seconds (`RATE_LIMIT_EXCEEDED`): every request with a credential is refused until the ' +
        'window has passed, a valid one included.',
    ),
    headers: {
      'Retry-After': {
        description: 'Whole seconds until the window has passed.',
        schema: Type.String(),
      },
    },
  } satisfies ResponseSpec,
  lastAdmin: e2(
    'The last admin credential that has not expired cannot be revoked (`LAST_ADMIN`): create ' +
      'another first.',
  ),
  /** The 410 of products version 1, with the headers every v1 answer carries. */
  versionRetired: (sunset: Date, headers: Record<string, HeaderSpec>): ResponseSpec => ({
    ...e2(`Version 1 is retired (\`VERSION_RETIRED\`), from ${sunset.toUTCString()} on.`),
    headers,
  }),
  /** The 429 of `/laporan`: `Retry-After`, then the RateLimit fields its 200 carries too. */
  rateLimited: (rateLimitHeaders: Record<string, HeaderSpec>): ResponseSpec => ({
    ...e2(
      'The key has no token left, or too many failed credentials came from this client ' +
        'address of late (`RATE_LIMIT_EXCEEDED`).',
    ),
    headers: {
      'Retry-After': {
        description: 'Whole seconds until a token is back: ceil((1 - tokens) / refill).',
        schema: Type.String(),
      },
      ...rateLimitHeaders,
    },
  }),
  /** A create's (or payment's) `Idempotency-Key` refusals: 400, 409, 422. */
  idempotency: idempotencyFailures(supportingErrors, e2Answer),
  /** A route that reads a store (credentials included): 500 when it fails, 503 while away. */
  store: storeFailures(supportingErrors, e2Answer),
}

/** The 405 of every surface D path, in E2, with `Allow`. */
export const notServed = otherMethods(
  e2('A method this path does not serve (`METHOD_NOT_ALLOWED`).'),
  (reply) => supportingErrors.send(reply, methodNotAllowed()),
)
