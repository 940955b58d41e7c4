// Every error surface D returns, and how its routes document them: what every E2 surface at the
// root shares (http/e2/errors.ts, re-exported here for D's routes), and D's own.
import { Type } from 'typebox'
import { e2Answer, e2Errors, e2Failures, e2Response, tooMany } from '../../http/e2/errors.js'
import { ApiError } from '../../http/errors.js'
import { idempotencyFailures } from '../../http/idempotency.js'
import type { HeaderSpec, ResponseSpec } from '../../http/route-spec.js'

export { e2Errors, idParameter, notFound, notServed, pathId } from '../../http/e2/errors.js'

/** 412: the resource's current representation has none of the tags `If-Match` names. */
export const preconditionFailed = (what: string, raw: string) =>
  new ApiError(
    412,
    'PRECONDITION_FAILED',
    `${what} ${raw} does not match If-Match: it has changed since that ETag`,
  )

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

export const rateLimited = (seconds: number) => tooMany('requests for this API key', seconds)

/** The documented failures of surface D routes, all in the E2 shape. */
export const failures = {
  ...e2Failures,
  preconditionFailed: e2Response(
    '`If-Match` names no tag of the resource as it is now (`PRECONDITION_FAILED`): nothing ' +
      'changed.',
  ),
  emailTaken: e2Response(
    'The email is already registered, in any letter case (`EMAIL_TELAH_DIPAKAI`).',
  ),
  alreadyPaid: e2Response('Already paid (`SUDAH_DIBAYAR`); `details.status` is `LUNAS`.'),
  /** The 410 of products version 1, with the headers every v1 answer carries. */
  versionRetired: (sunset: Date, headers: Record<string, HeaderSpec>): ResponseSpec => ({
    ...e2Response(`Version 1 is retired (\`VERSION_RETIRED\`), from ${sunset.toUTCString()} on.`),
    headers,
  }),
  /** The 429 of `/laporan`: `Retry-After`, then the RateLimit fields its 200 carries too. */
  rateLimited: (rateLimitHeaders: Record<string, HeaderSpec>): ResponseSpec => ({
    ...e2Response(
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
  idempotency: idempotencyFailures(e2Errors, e2Answer),
}
