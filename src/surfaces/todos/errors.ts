import { ApiError, type ErrorShape } from '../../http/errors.js'
import type { PathId } from '../../http/path-id.js'
import { idempotencyE3, LAYANAN_TIDAK_TERSEDIA, VERSI_TIDAK_COCOK } from '../compact/errors.js'

const E3 = 'E3'
const rejected = (statusCode: number, message: string) => new ApiError(statusCode, E3, message)

/** Surface C's shape E3: `{ error: <message> }`, with the exact texts of Part 2. */
export const todosErrors: ErrorShape = {
  fromFramework(failure) {
    switch (failure.kind) {
      case 'malformed-json':
        return bodyBukanJson()
      case 'body-too-large':
        return rejected(413, `body melebihi batas ${failure.limit} byte`)
      case 'unsupported-media-type':
        return rejected(415, 'Content-Type tidak didukung')
      case 'not-found':
        return rejected(404, 'tidak ditemukan')
      case 'client-error':
        return rejected(failure.statusCode, 'permintaan tidak valid')
      case 'unavailable':
        return rejected(503, LAYANAN_TIDAK_TERSEDIA)
      case 'internal':
        return rejected(500, 'terjadi kesalahan internal')
      default:
        return new ApiError(...idempotencyE3(failure.kind))
    }
  },
  send(reply, error) {
    return reply.code(error.statusCode).send({ error: error.message })
  },
}

export const bodyBukanJson = () => rejected(400, 'body bukan JSON yang valid')
export const titleWajibDiisi = () => rejected(400, 'title wajib diisi')
export const versiTidakCocok = () => rejected(412, VERSI_TIDAK_COCOK)
export const tugasTidakDitemukan = () => rejected(404, 'tugas tidak ditemukan')

/** Ids are integers: an optional sign and digits; one no store holds names no todo (404). */
export const todoId: PathId = {
  form: /^[+-]?[0-9]+$/,
  invalid: () => rejected(400, 'id harus angka'),
}

/** The 405 of `/todos` and `/todos/<id>`: plain text (E4). */
export const METHOD_NOT_ALLOWED = 'Method Not Allowed'
