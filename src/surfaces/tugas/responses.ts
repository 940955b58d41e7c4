// The documented responses of surface A's routes: every failure is an E1 body.
import { storeFailures } from '../../http/e3.js'
import { idempotencyFailures } from '../../http/idempotency.js'
import type { ResponseSpec } from '../../http/route-spec.js'
import { e1 } from './errors.js'
import { ErrorBody } from './schemas.js'

export const errorResponse = (description: string): ResponseSpec => ({
  description,
  schema: ErrorBody,
})
export const notFound = errorResponse('Task not found (`TIDAK_ADA`), or no such endpoint.')
export const changed = errorResponse(
  '`If-Match` names no tag of the task as it is now (`VERSI_TIDAK_COCOK`): nothing changed.',
)
const malformed = errorResponse('Body is not valid JSON (`JSON_TIDAK_VALID`).')
export const invalid = errorResponse(
  'Body or query fails the rules (`VALIDASI_GAGAL`); `detail` lists every violation.',
)
const tooLarge = errorResponse('Body over 1 MiB (`BODY_TERLALU_BESAR`).')
const mediaType = errorResponse('Body not sent as JSON (`MEDIA_TIDAK_DUKUNG`).')
/** Every route reads or writes the store: 500 when it fails, 503 while its service is away. */
export const storeErrors = storeFailures(e1, (description, { code }) =>
  errorResponse(`${description} (\`${code}\`).`),
)
export const bodyErrors = { 400: malformed, 413: tooLarge, 415: mediaType, 422: invalid }
/** The refusals of an `Idempotency-Key`: 422 `VALIDASI_GAGAL`, 409 `SEDANG_DIPROSES`. */
export const keyErrors = idempotencyFailures(e1, (description, { code }) =>
  errorResponse(`${description} (\`${code}\`).`),
)
