import { ApiError, type ErrorShape } from '../../http/errors.js'
import type { PathId } from '../../http/path-id.js'

// Surface B answers in three forms: E3 JSON `{ error }` for its own rules, plain text (E4) for
// the body reader's rejections, and an empty body for unknown paths and methods. The form
// travels in the error's code.
const JSON_MESSAGE = 'E3'
const PLAIN_TEXT = 'E4'
const EMPTY = 'EMPTY'

export const compactErrors: ErrorShape = {
  fromFramework(failure) {
    switch (failure.kind) {
      case 'malformed-json':
        return bodyRejected(400, 'Failed to parse the request body as JSON')
      case 'body-too-large':
        return bodyRejected(413, `Request body is larger than the limit of ${failure.limit} bytes`)
      case 'unsupported-media-type':
        return bodyRejected(415, 'Expected request with `Content-Type: application/json`')
      case 'not-found':
        return new ApiError(404, EMPTY, '')
      case 'client-error':
        return bodyRejected(failure.statusCode, 'Bad request')
      case 'unavailable':
        return new ApiError(503, JSON_MESSAGE, LAYANAN_TIDAK_TERSEDIA)
      case 'internal':
        return new ApiError(500, JSON_MESSAGE, 'terjadi kesalahan internal')
      default:
        return new ApiError(...idempotencyE3(failure.kind))
    }
  },
  send(reply, error) {
    if (error.code === EMPTY) return reply.code(error.statusCode).send()
    if (error.code === PLAIN_TEXT) {
      return reply.code(error.statusCode).type('text/plain; charset=utf-8').send(error.message)
    }
    return reply.code(error.statusCode).send({ error: error.message })
  },
}

/** The E3 message of a 503 (decisions.md 7), shared by surfaces B and C. */
export const LAYANAN_TIDAK_TERSEDIA = 'layanan sedang tidak tersedia'

/** The E3 message of a 412, `If-Match` not matching (decisions.md 8), shared by B and C. */
export const VERSI_TIDAK_COCOK = 'versi tidak cocok'

/** The E3 status and message of each `Idempotency-Key` refusal (decisions.md 8), B's and C's. */
export function idempotencyE3(
  kind: 'idempotency-key-invalid' | 'idempotency-key-in-use' | 'idempotency-key-reused',
): [number, string, string] {
  switch (kind) {
    case 'idempotency-key-invalid':
      return [400, JSON_MESSAGE, 'Idempotency-Key tidak valid']
    case 'idempotency-key-reused':
      return [422, JSON_MESSAGE, 'Idempotency-Key dipakai untuk permintaan lain']
    case 'idempotency-key-in-use':
      return [409, JSON_MESSAGE, 'permintaan dengan Idempotency-Key ini sedang diproses']
  }
}

/** A rejection by the body reader: plain text, before any handler logic. */
export function bodyRejected(statusCode: number, text: string): ApiError {
  return new ApiError(statusCode, PLAIN_TEXT, text)
}

export function rejected(statusCode: number, message: string): ApiError {
  return new ApiError(statusCode, JSON_MESSAGE, message)
}

/** Ids are unsigned integers: digits only; past the largest id they name no task (404). */
export const compactId: PathId = {
  form: /^[0-9]+$/,
  invalid: (raw) => rejected(400, `Id "${raw}" bukan angka yang valid`),
}

export const judulKosong = () => rejected(400, 'judul tidak boleh kosong')
export const judulTerlaluPanjang = () => rejected(400, 'judul tidak boleh lebih dari 140 karakter')
export const versiTidakCocok = () => rejected(412, VERSI_TIDAK_COCOK)
export const tidakDitemukan = (raw: string) =>
  rejected(404, `Tugas dengan id ${raw} tidak ditemukan`)
