import { Type } from 'typebox'
import { ApiError, type ErrorShape, type FrameworkFailure } from '../../http/errors.js'
import { otherMethods } from '../../http/method-not-allowed.js'
import type { PathId } from '../../http/path-id.js'
import { exactTexts, type ResponseSpec, type Text } from '../../http/route-spec.js'
import { e3, e3Error, e3Failures, frameworkText, sharedE3 } from './e3.js'
import { JUDUL_MAX } from './schemas.js'

// Surface B answers in three forms: E3 JSON `{ error }` for its own rules, plain text (E4) for
// the body reader's rejections, and an empty body for unknown paths and methods. The form
// travels in the error's code.
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
      default:
        return sharedE3(failure.kind)
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

/** A rejection by the body reader: plain text, before any handler logic. */
export function bodyRejected(statusCode: number, text: string): ApiError {
  return new ApiError(statusCode, PLAIN_TEXT, text)
}

/** Ids are unsigned integers: digits only; past the largest id they name no task (404). */
export const compactId: PathId = {
  form: /^[0-9]+$/,
  schema: Type.Integer({ minimum: 0 }),
  invalid: (raw) => e3Error(400, `Id "${raw}" bukan angka yang valid`),
}

export const judulKosong = () => e3Error(400, 'judul tidak boleh kosong')
export const judulTerlaluPanjang = () => e3Error(400, 'judul tidak boleh lebih dari 140 karakter')
export const tidakDitemukan = (raw: string) =>
  e3Error(404, `Tugas dengan id ${raw} tidak ditemukan`)

/** The JSON types the body reader decodes fields into. */
export type FieldType = 'string' | 'boolean'

// The body reader's 422s: a body that parsed but does not decode into the route's fields.
const DECODE = 'Failed to deserialize the JSON body into the target type'
export const notAnObject = () => bodyRejected(422, `${DECODE}: expected a JSON object`)
export const fieldMissing = (name: string) =>
  bodyRejected(422, `${DECODE}: missing field \`${name}\``)
export const fieldMistyped = (name: string, type: FieldType) =>
  bodyRejected(422, `${DECODE}: field \`${name}\` must be a ${type}`)

/** Every 422 text the body reader may give for `fields`. */
function decodeFailures(fields: Record<string, FieldType>): string[] {
  return [
    notAnObject().message,
    ...Object.entries(fields).flatMap(([name, type]) => [
      fieldMissing(name).message,
      fieldMistyped(name, type).message,
    ]),
  ]
}

/** The E3 messages that vary: the id as sent (percent-decoded), and a missing task's id. */
const idInvalid: Text = { template: (raw) => compactId.invalid(raw).message, part: /[\s\S]*/ }
const JUDUL: Text[] = [judulKosong().message, judulTerlaluPanjang().message]
const judulRule = `\`judul\` empty after trimming, or over ${JUDUL_MAX} characters`

/** The documented failures of surface B's routes, each message exact (or its template). */
export const failures = {
  invalidId: e3('The id is not an unsigned integer; the message echoes it.', [idInvalid]),
  notFound: e3('No task has this id.', [
    { template: (raw) => tidakDitemukan(raw).message, part: /[0-9]+/ },
  ]),
  /** A create's 400 in JSON: `judul`. */
  judul: e3(`JSON: ${judulRule}.`, JUDUL),
  /** A replace's 400 in JSON: the id, or `judul`. */
  idOrJudul: e3(
    `JSON: the id is not an unsigned integer (the message echoes it), or ${judulRule}.`,
    [idInvalid, ...JUDUL],
  ),
  ...e3Failures(compactErrors),
}

/**
 * The body reader's plain-text answers (E4, docs/http.md#error-shapes), before any handler logic:
 * 415 without a JSON Content-Type, 413 over the body limit, 400 for JSON that does not parse, 422
 * for a body that does not decode into `fields`; with the route's own JSON 400 (`rules`).
 */
export function bodyReaderFailures(
  fields: Record<string, FieldType>,
  rules: ResponseSpec,
  bodyLimit: number,
): Record<400 | 413 | 415 | 422, ResponseSpec> {
  const plain = (failure: FrameworkFailure) => exactTexts([frameworkText(compactErrors, failure)])
  return {
    400: {
      ...rules,
      description: `${rules.description} Plain text: the body is not valid JSON (an empty body too).`,
      text: plain({ kind: 'malformed-json' }),
    },
    413: {
      description: `Plain text: the body is over ${bodyLimit} bytes.`,
      text: plain({ kind: 'body-too-large', limit: bodyLimit }),
    },
    415: {
      description:
        'Plain text: no JSON Content-Type (`application/json` or a `+json` type), also when no ' +
        'body is sent.',
      text: plain({ kind: 'unsupported-media-type' }),
    },
    422: {
      description:
        'Plain text: the body is not a JSON object, or a field is missing or of the wrong JSON type.',
      text: exactTexts(decodeFailures(fields)),
    },
  }
}

/** What an unknown path under `/api` answers (docs/decisions.md#unknown-paths-and-methods). */
export const UNKNOWN_PATH: ResponseSpec = {
  description: 'No such path under `/api` (surface B): 404, empty body, whatever the request.',
}

/** The 405 of every surface B path: an empty body, with `Allow`. */
export const notServed = otherMethods(
  { description: 'A method this path does not serve: empty body.' },
  (reply) => reply.send(),
)
