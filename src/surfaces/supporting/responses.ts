import { Type } from 'typebox'
import { E2Body } from '../../http/e2.js'
import { storeFailures } from '../../http/e3.js'
import { idempotencyFailures } from '../../http/idempotency.js'
import type { ParameterSpec, ResponseSpec } from '../../http/route-spec.js'
import { supportingErrors } from './errors.js'

/** The documented failures of surface D routes, all in the E2 shape. */
export const e2 = (description: string): ResponseSpec => ({ description, schema: E2Body })

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
  /** A create's (or payment's) `Idempotency-Key` refusals: 400, 409, 422. */
  idempotency: idempotencyFailures(supportingErrors, (description, { code }) =>
    e2(`${description} (\`${code}\`).`),
  ),
  /** A route that reads a store (credentials included): 500 when it fails, 503 while away. */
  store: storeFailures(supportingErrors, (description, { code }) =>
    e2(`${description} (\`${code}\`).`),
  ),
}

/** A surface D `{id}`: any segment matches the route; one that is not an integer is 400. */
export const idParameter = (what: string): ParameterSpec => ({
  name: 'id',
  in: 'path',
  description: `${what} id; anything but an integer is 400 \`INVALID_ID\`.`,
  schema: Type.String(),
})
