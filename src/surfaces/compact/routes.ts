import type { FastifyRequest, preParsingAsyncHookHandler } from 'fastify'
import { Type } from 'typebox'
import { withETag } from '../../http/conditional.js'
import { e3, e3Answer, frameworkText, itemRoutes, storeFailures } from '../../http/e3.js'
import type { FrameworkFailure } from '../../http/errors.js'
import { idempotencyFailures, idempotent } from '../../http/idempotency.js'
import { otherMethods } from '../../http/method-not-allowed.js'
import {
  exactTexts,
  locationHeader,
  type ResponseSpec,
  type RouteSpec,
  type Text,
} from '../../http/route-spec.js'
import {
  compactErrors,
  compactId,
  judulKosong,
  judulTerlaluPanjang,
  tidakDitemukan,
  versiTidakCocok,
} from './errors.js'
import {
  CREATE_FIELDS,
  checkJudul,
  decode,
  decodeFailures,
  type FieldType,
  REPLACE_FIELDS,
} from './rules.js'
import { CompactTugas, Health, JUDUL_MAX } from './schemas.js'
import type { CompactStore } from './store.js'

/** Surface B's group in the document. */
export const COMPACT_TAG = {
  name: 'B: compact tasks',
  description:
    'Surface B (`/api`): its own tasks `{ id, judul, selesai }`. Domain errors are E3 ' +
    '`{ "error": <message> }`; the body reader answers in plain text; an unknown path under ' +
    '`/api` is 404 and a method a path does not serve 405, both with an empty body.',
}

/** Where surface B lives: every path at or below it is B's (decisions.md 2). */
export const COMPACT_PREFIX = '/api'

/** What an unknown path under `/api` answers (decisions.md 2). */
export const UNKNOWN_PATH: ResponseSpec = {
  description: 'No such path under `/api` (surface B): 404, empty body, whatever the request.',
}

export interface CompactRouteOptions {
  store: CompactStore
  /** The service's body limit, named by the 413 text. */
  bodyLimit: number
}

/** The E3 messages that vary: the id as sent (percent-decoded), and a missing task's id. */
const idInvalid: Text = { template: (raw) => compactId.invalid(raw).message, part: /[\s\S]*/ }
const notFound = e3('No task has this id.', [
  { template: (raw) => tidakDitemukan(raw).message, part: /[0-9]+/ },
])
const JUDUL: Text[] = [judulKosong().message, judulTerlaluPanjang().message]
const judulRule = `\`judul\` empty after trimming, or over ${JUDUL_MAX} characters`

/**
 * The body reader's plain-text answers (Part 2, E4), before any handler logic: 415 without a
 * JSON Content-Type, 413 over the body limit, 400 for JSON that does not parse, 422 for a body
 * that does not decode into `fields`; with the route's own JSON 400 (`rules`).
 */
function bodyReader(
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

/** A route with a body answers 415 without a JSON Content-Type even when no body is sent. */
const contentTypeRequired: preParsingAsyncHookHandler = async (request: FastifyRequest) => {
  if (request.headers['content-type'] === undefined) {
    throw compactErrors.fromFramework({ kind: 'unsupported-media-type' })
  }
}

/**
 * Surface B's routes, at their full paths under `/api`. Checks run in the order of Part 1: the
 * id (`onRequest`), then the body reader (content type, JSON, field types), then `judul`, then
 * existence.
 */
export function compactRoutes({ store, bodyLimit }: CompactRouteOptions): RouteSpec[] {
  const failures = storeFailures(compactErrors)
  const { read, remove, idFirst, tagged, guarded, write } = itemRoutes<CompactTugas>({
    path: '/api/tugas/{id}',
    what: 'compact task',
    name: 'CompactTugas',
    schema: CompactTugas,
    pathId: compactId,
    idDescription:
      'Task id: an unsigned integer, digits only. Any other segment (`abc`, `-1`, `1.5`) is ' +
      '400; digits no task can have (`0`, past 9007199254740991) are 404.',
    responses: {
      400: e3('The id is not an unsigned integer; the message echoes it.', [idInvalid]),
      404: notFound,
      ...failures,
    },
    notFound: tidakDitemukan,
    preconditionFailed: versiTidakCocok,
    find: (id) => store.get(id),
    remove: (id, precondition) => store.delete(id, precondition),
  })
  const routes: Omit<RouteSpec, 'tags' | 'otherMethods'>[] = [
    {
      method: 'GET',
      path: '/api/health',
      operationId: 'getCompactHealth',
      summary: 'Liveness of the service.',
      description: 'Always 200 `{ "status": "ok" }` while the process answers.',
      responses: { 200: { description: 'The service answers.', schema: Health } },
      handler: async () => ({ status: 'ok' as const }),
    },
    {
      method: 'GET',
      path: '/api/tugas',
      operationId: 'listCompactTugas',
      summary: 'List the compact tasks.',
      description: 'Every task in id order; an empty array when there is none.',
      responses: {
        200: { description: 'Every task.', schema: Type.Array(CompactTugas) },
        ...failures,
      },
      handler: async () => store.list(),
    },
    idempotent(
      {
        method: 'POST',
        path: '/api/tugas',
        operationId: 'createCompactTugas',
        summary: 'Create a compact task; `selesai` starts false.',
        description:
          `\`judul\` is trimmed, then must be 1 to ${JUDUL_MAX} characters (Unicode code points); ` +
          'the trimmed value is stored. Unknown fields are ignored (`selesai` too).',
        body: {
          schema: Type.Object({ judul: Type.String() }),
          description: 'The task: `judul` required.',
          example: { judul: 'Belajar Rust' },
        },
        preParsing: [contentTypeRequired],
        responses: {
          201: withETag({
            description: 'Created.',
            schema: CompactTugas,
            headers: locationHeader('Path of the new task, `/api/tugas/<id>`.'),
          }),
          ...bodyReader(CREATE_FIELDS, e3(`JSON: ${judulRule}.`, JUDUL), bodyLimit),
          ...failures,
        },
        async handler(request, reply) {
          const { judul } = decode(request.body, CREATE_FIELDS)
          const task = await store.create(checkJudul(judul))
          return tagged.send(reply.code(201).header('location', `/api/tugas/${task.id}`), task)
        },
      },
      idempotencyFailures(compactErrors, e3Answer),
    ),
    read,
    guarded({
      method: 'PUT',
      path: '/api/tugas/{id}',
      operationId: 'replaceCompactTugas',
      summary: 'Replace `judul` and `selesai` of a compact task.',
      description:
        'Checks in order: the id (400), the body reader (415, 413, 400, 422 in plain text), ' +
        '`judul` (400), existence (404), then `If-Match` (412).',
      ...idFirst,
      body: {
        schema: Type.Object({ judul: Type.String(), selesai: Type.Boolean() }),
        description: 'Both fields required; `judul` follows the create rule.',
        example: { judul: 'Belajar Rust', selesai: true },
      },
      preParsing: [contentTypeRequired],
      responses: {
        200: { description: 'The task after the change.', schema: CompactTugas },
        ...bodyReader(
          REPLACE_FIELDS,
          e3(`JSON: the id is not an unsigned integer (the message echoes it), or ${judulRule}.`, [
            idInvalid,
            ...JUDUL,
          ]),
          bodyLimit,
        ),
        404: notFound,
        ...failures,
      },
      async handler(request, reply) {
        const { judul, selesai } = decode(request.body, REPLACE_FIELDS)
        const fields = { judul: checkJudul(judul), selesai }
        return write(request, reply, (id, ifMatch) => store.replace(id, fields, ifMatch))
      },
    }),
    remove,
  ]
  const notServed = otherMethods(
    { description: 'A method this path does not serve: empty body.' },
    (reply) => reply.send(),
  )
  return routes.map((route) => ({
    ...route,
    tags: [COMPACT_TAG.name],
    otherMethods: notServed,
  }))
}
