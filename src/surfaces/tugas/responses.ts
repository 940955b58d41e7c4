// The documented responses of surface A's routes: every failure is an E1 body.
import type { ResponseSpec } from '../../http/route-spec.js'
import { ErrorBody } from './schemas.js'

export const errorResponse = (description: string): ResponseSpec => ({
  description,
  schema: ErrorBody,
})
export const notFound = errorResponse('Task not found (`TIDAK_ADA`), or no such endpoint.')
const malformed = errorResponse('Body is not valid JSON (`JSON_TIDAK_VALID`).')
export const invalid = errorResponse(
  'Body or query fails the rules (`VALIDASI_GAGAL`); `detail` lists every violation.',
)
const tooLarge = errorResponse('Body over 1 MiB (`BODY_TERLALU_BESAR`).')
const mediaType = errorResponse('Body not sent as JSON (`MEDIA_TIDAK_DUKUNG`).')
export const internal = errorResponse('Unexpected failure (`KESALAHAN_INTERNAL`), generic message.')
export const bodyErrors = { 400: malformed, 413: tooLarge, 415: mediaType, 422: invalid }
