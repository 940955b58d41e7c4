// Every error surface A returns, and how its routes document them: E1 bodies.

import type { ErrorShape } from '../../http/errors.js'
import { ApiError } from '../../http/errors.js'
import { idempotencyFailures, KEY_RULE } from '../../http/idempotency.js'
import type { ResponseSpec } from '../../http/route-spec.js'
import { storeFailures } from '../../http/store-failures.js'
import { ErrorBody } from './schemas.js'

/** Surface A's error shape E1: `{ error: { kode, pesan, detail? } }`, `detail` only on 422. */
export const e1: ErrorShape = {
  fromFramework(failure) {
    switch (failure.kind) {
      case 'malformed-json':
        return new ApiError(400, 'JSON_TIDAK_VALID', 'body is not valid JSON')
      case 'body-too-large':
        return new ApiError(
          413,
          'BODY_TERLALU_BESAR',
          `body is larger than the limit of ${failure.limit} bytes`,
        )
      case 'unsupported-media-type':
        return new ApiError(
          415,
          'MEDIA_TIDAK_DUKUNG',
          'request body must be sent with Content-Type: application/json',
        )
      case 'not-found':
        return notFoundEndpoint()
      case 'client-error':
        return clientError(failure.statusCode)
      case 'unavailable':
        return new ApiError(503, 'LAYANAN_TIDAK_TERSEDIA', 'service is temporarily unavailable')
      case 'internal':
        return new ApiError(500, 'KESALAHAN_INTERNAL', 'internal server error')
      case 'idempotency-key-invalid':
        return new ApiError(422, 'VALIDASI_GAGAL', 'Idempotency-Key is invalid', [
          `Idempotency-Key must be ${KEY_RULE}`,
        ])
      case 'idempotency-key-reused':
        return new ApiError(422, 'VALIDASI_GAGAL', 'Idempotency-Key was used for another request', [
          'Idempotency-Key was sent before with another body',
        ])
      case 'idempotency-key-in-use':
        return new ApiError(
          409,
          'SEDANG_DIPROSES',
          'a request with this Idempotency-Key is still being processed',
        )
    }
  },
  send(reply, error) {
    return reply.code(error.statusCode).send(e1Body(error))
  },
}

/** The E1 body of `error`; `detail` only on 422. */
export function e1Body({ statusCode, code: kode, message: pesan, details }: ApiError) {
  const detail = statusCode === 422 && Array.isArray(details) ? { detail: details } : {}
  return { error: { kode, pesan, ...detail } }
}

/**
 * A request refused before any route saw it: the parser's 400, a request or its headers not
 * received in time (408), headers over the size limit (431).
 */
function clientError(statusCode: number): ApiError {
  switch (statusCode) {
    case 408:
      return new ApiError(408, 'WAKTU_HABIS', 'request was not received in time')
    case 431:
      return new ApiError(431, 'HEADER_TERLALU_BESAR', 'request headers are too large')
    default:
      return new ApiError(statusCode, 'PERMINTAAN_TIDAK_VALID', 'request is not valid')
  }
}

export function notFoundEndpoint(): ApiError {
  return new ApiError(404, 'TIDAK_ADA', 'endpoint not found')
}

export function taskNotFound(id: string): ApiError {
  return new ApiError(404, 'TIDAK_ADA', `task ${id} not found`)
}

/** 412: the task's current representation has none of the tags `If-Match` names. */
export function taskChanged(id: string): ApiError {
  return new ApiError(
    412,
    'VERSI_TIDAK_COCOK',
    `task ${id} does not match If-Match: it has changed since that ETag`,
  )
}

export function invalidBody(violations: string[]): ApiError {
  return new ApiError(422, 'VALIDASI_GAGAL', 'task data is invalid', violations)
}

export function invalidQuery(violations: string[]): ApiError {
  return new ApiError(422, 'VALIDASI_GAGAL', 'query parameters are invalid', violations)
}

export function commentNotFound(id: string): ApiError {
  return new ApiError(404, 'TIDAK_ADA', `comment ${id} not found`)
}

/** `GET /tugas` in path mode: the unversioned path points to the versions. */
export function listNeedsVersion(): ApiError {
  return new ApiError(
    404,
    'TIDAK_ADA',
    'GET /tugas needs a version in this deployment: use /v1/tugas or /v2/tugas',
  )
}

/** `GET /tugas` in header mode when `Accept` names no JSON type; the message names v2's type. */
export function notAcceptable(v2MediaType: string): ApiError {
  return new ApiError(
    406,
    'FORMAT_TIDAK_DUKUNG',
    `Accept must name application/json or ${v2MediaType}`,
  )
}

// The documented responses of surface A's routes: every failure is an E1 body.
export const errorResponse = (description: string): ResponseSpec => ({
  description,
  schema: ErrorBody,
})
/** The E1 answer of one error `e1` gives, under a description. */
const e1Answer = (description: string, { code }: ApiError) =>
  errorResponse(`${description} (\`${code}\`).`)
export const notFound = errorResponse('Task not found (`TIDAK_ADA`), or no such endpoint.')
export const taskOrCommentNotFound = errorResponse('Task or comment not found (`TIDAK_ADA`).')
export const versionMismatch = errorResponse(
  '`If-Match` names no tag of the task as it is now (`VERSI_TIDAK_COCOK`): nothing changed.',
)
const malformed = errorResponse('Body is not valid JSON (`JSON_TIDAK_VALID`).')
export const invalid = errorResponse(
  'Body or query fails the rules (`VALIDASI_GAGAL`); `detail` lists every violation.',
)
const tooLarge = errorResponse('Body over 1 MiB (`BODY_TERLALU_BESAR`).')
const mediaType = errorResponse('Body not sent as JSON (`MEDIA_TIDAK_DUKUNG`).')
export const needsVersion = errorResponse(
  'Always (`TIDAK_ADA`): the message points to `/v1/tugas` and `/v2/tugas`.',
)
export const unacceptable = errorResponse('`Accept` names no JSON type (`FORMAT_TIDAK_DUKUNG`).')
/** Every route reads or writes the store: 500 when it fails, 503 while its service is away. */
export const storeErrors = storeFailures(e1, e1Answer)
export const bodyErrors = { 400: malformed, 413: tooLarge, 415: mediaType, 422: invalid }
/** The refusals of an `Idempotency-Key`: 422 `VALIDASI_GAGAL`, 409 `SEDANG_DIPROSES`. */
export const keyErrors = idempotencyFailures(e1, e1Answer)
