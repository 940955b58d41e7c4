// Every error surface C returns, and how its routes document them: E3 `{ error: <message> }` with
// the exact texts of docs/todos.md#todos_variantbasic-default; E2 with `fields` on the priority
// variant's `POST /todos`; a plain-text 405.
import type { FastifyReply } from 'fastify'
import { Type } from 'typebox'
import { E2FieldsBody, e2Shape } from '../../http/e2/shape.js'
import type { ApiError, ErrorShape } from '../../http/errors.js'
import { idempotencyFailures } from '../../http/idempotency.js'
import { otherMethods } from '../../http/method-not-allowed.js'
import type { PathId } from '../../http/path-id.js'
import { exactTexts, type ResponseSpec } from '../../http/route-spec.js'
import { storeFailures } from '../../http/store-failures.js'
import { e3, e3Error, e3Failures, frameworkText, sharedE3 } from '../compact/e3.js'
import { PRIORITY_BODY_LIMIT } from './schemas.js'

/**
 * Surface C's shape E3: `{ error: <message> }`, with the exact texts of
 * docs/todos.md#todos_variantbasic-default.
 */
export const todosErrors: ErrorShape = {
  fromFramework(failure) {
    switch (failure.kind) {
      case 'malformed-json':
        return bodyBukanJson()
      case 'body-too-large':
        return e3Error(413, `body melebihi batas ${failure.limit} byte`)
      case 'unsupported-media-type':
        return e3Error(415, 'Content-Type tidak didukung')
      case 'not-found':
        return e3Error(404, 'tidak ditemukan')
      case 'client-error':
        return e3Error(failure.statusCode, 'permintaan tidak valid')
      default:
        return sharedE3(failure.kind)
    }
  },
  send(reply, error) {
    return reply.code(error.statusCode).send({ error: error.message })
  },
}

export const bodyBukanJson = () => e3Error(400, 'body bukan JSON yang valid')
export const titleWajibDiisi = () => e3Error(400, 'title wajib diisi')
export const tugasTidakDitemukan = () => e3Error(404, 'tugas tidak ditemukan')

/** Ids are integers: an optional sign and digits; one no store holds names no todo (404). */
export const todoId: PathId = {
  form: /^[+-]?[0-9]+$/,
  schema: Type.Integer(),
  invalid: () => e3Error(400, 'id harus angka'),
}

/** The 405 of `/todos` and `/todos/<id>`: plain text (E4). */
export const METHOD_NOT_ALLOWED = 'Method Not Allowed'

/** The priority variant's `POST /todos` speaks E2 with the map `fields`, bodies up to 1024 bytes. */
export const priorityErrors = e2Shape('fields', PRIORITY_BODY_LIMIT)

const ID_MESSAGE = todoId.invalid('').message
const BODY_TEXTS = [bodyBukanJson().message, titleWajibDiisi().message]
const BAD_BODY =
  'the body is missing, not valid JSON, not an object, or a field has the wrong JSON type ' +
  '(`body bukan JSON yang valid`); `title` is missing, null or blank (`title wajib diisi`).'

/** The documented failures of the E3 routes, each message exact. */
export const failures = {
  invalidId: e3('The id is not an integer.', [ID_MESSAGE]),
  notFound: e3('No todo has this id.', [tugasTidakDitemukan().message]),
  /** The basic variant's create: its body or `title` refused. */
  body: e3(`Refused: ${BAD_BODY}`, BODY_TEXTS),
  /** PUT: the id first, then the body and `title`. */
  idOrBody: e3(`Refused: the id is not an integer (\`${ID_MESSAGE}\`); or ${BAD_BODY}`, [
    ID_MESSAGE,
    ...BODY_TEXTS,
  ]),
  /** 413 names the service's body limit, which the basic variant reads up to. */
  tooLarge: (bodyLimit: number) =>
    e3(`The body is over ${bodyLimit} bytes.`, [
      frameworkText(todosErrors, { kind: 'body-too-large', limit: bodyLimit }),
    ]),
  ...e3Failures(todosErrors),
}

/** A todo's E2 failure in the priority variant. */
const e2 = (description: string): ResponseSpec => ({ description, schema: E2FieldsBody })
/** The E2 answer of one error of the priority variant, under a description. */
const e2Answer = (description: string, { code }: ApiError) => e2(`${description} (\`${code}\`).`)

/** The documented failures of the priority variant's `POST /todos`, all E2 with `fields`. */
export const priorityFailures = {
  body: {
    400: e2(
      'The body is missing or not valid JSON (`INVALID_JSON`), or fields break the rules ' +
        '(`VALIDATION_ERROR`, every violation in `fields`).',
    ),
    413: e2(`The body is over ${PRIORITY_BODY_LIMIT} bytes (\`BODY_TOO_LARGE\`).`),
    415: e2('The Content-Type does not start with application/json (`UNSUPPORTED_MEDIA_TYPE`).'),
  },
  store: storeFailures(priorityErrors, e2Answer),
  idempotency: idempotencyFailures(priorityErrors, e2Answer),
}

const plainMethodNotAllowed = (reply: FastifyReply) =>
  reply.type('text/plain; charset=utf-8').send(METHOD_NOT_ALLOWED)

/** The 405 of every surface C path, whichever variant: plain text, with `Allow`. */
export const notServed = otherMethods(
  {
    description: 'A method this path does not serve: plain text `Method Not Allowed`.',
    text: exactTexts([METHOD_NOT_ALLOWED]),
  },
  plainMethodNotAllowed,
)
