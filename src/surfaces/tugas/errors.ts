import type { ErrorShape } from '../../http/errors.js'
import { ApiError } from '../../http/errors.js'

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
        return new ApiError(failure.statusCode, 'PERMINTAAN_TIDAK_VALID', 'request is not valid')
      case 'internal':
        return new ApiError(500, 'KESALAHAN_INTERNAL', 'internal server error')
    }
  },
  send(reply, error) {
    const { statusCode, code: kode, message: pesan, details } = error
    const detail = statusCode === 422 && Array.isArray(details) ? { detail: details } : {}
    return reply.code(statusCode).send({ error: { kode, pesan, ...detail } })
  },
}

export function notFoundEndpoint(): ApiError {
  return new ApiError(404, 'TIDAK_ADA', 'endpoint not found')
}

export function taskNotFound(id: string): ApiError {
  return new ApiError(404, 'TIDAK_ADA', `task ${id} not found`)
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
