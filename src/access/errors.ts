// The refusals of the access checks (docs/supporting.md#credentials-and-roles), in E2, and how a
// credentialed route documents them.
import { Type } from 'typebox'
import { CHALLENGE, e2Response, tooMany } from '../http/e2/errors.js'
import { E2Body } from '../http/e2/shape.js'
import { ApiError } from '../http/errors.js'
import type { ResponseSpec } from '../http/route-spec.js'
import type { Identity } from './identity.js'

// Every 401 also carries `WWW-Authenticate`: the E2 shape of these surfaces adds it.
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

/** 429 for a client address that presented too many unknown credentials of late. */
export const tooManyFailures = (seconds: number) =>
  tooMany('failed credentials from this address', seconds)

/** The documented refusals of every credentialed route (`credentialed`, and the feed's). */
export const accessFailures = {
  unauthenticated: {
    description:
      'No credential, an unknown one, or another scheme (`UNAUTHENTICATED`); ' +
      '`X-API-Key` missing on `/laporan` (`MISSING_API_KEY`).',
    schema: E2Body,
    headers: {
      'WWW-Authenticate': { description: `Always \`${CHALLENGE}\`.`, schema: Type.String() },
    },
  } satisfies ResponseSpec,
  // One wording for every route, documents' ownership included (surface D's `notYours`).
  forbidden: e2Response(
    'The role may not call this endpoint, or the document is not yours (`FORBIDDEN`).',
  ),
  throttled: {
    ...e2Response(
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
}
