import type { FastifyRequest, preParsingAsyncHookHandler } from 'fastify'
import { Type } from 'typebox'
import { withETag } from '../../http/conditional.js'
import { idempotent } from '../../http/idempotency.js'
import { created, locationHeader, type RouteSpec } from '../../http/route-spec.js'
import { itemRoutes } from './e3.js'
import {
  bodyReaderFailures,
  compactErrors,
  compactId,
  failures,
  notServed,
  tidakDitemukan,
} from './errors.js'
import { CREATE_FIELDS, checkJudul, decode, REPLACE_FIELDS } from './rules.js'
import {
  CompactTugas,
  CompactTugasReplacement,
  Health,
  JUDUL_MAX,
  NewCompactTugas,
} from './schemas.js'
import type { CompactStore } from './store.js'

/** Surface B's group in the document. */
export const COMPACT_TAG = {
  name: 'B: compact tasks',
  description:
    'Surface B (`/api`): its own tasks `{ id, judul, selesai }`. Domain errors are E3 ' +
    '`{ "error": <message> }`; the body reader answers in plain text; an unknown path under ' +
    '`/api` is 404 and a method a path does not serve 405, both with an empty body.',
}

/**
 * Where surface B lives: every path at or below it is B's
 * (docs/decisions.md#unknown-paths-and-methods).
 */
export const COMPACT_PREFIX = '/api'

export interface CompactRouteOptions {
  store: CompactStore
  /** The service's body limit, named by the 413 text. */
  bodyLimit: number
}

/** A route with a body answers 415 without a JSON Content-Type even when no body is sent. */
const contentTypeRequired: preParsingAsyncHookHandler = async (request: FastifyRequest) => {
  if (request.headers['content-type'] === undefined) {
    throw compactErrors.fromFramework({ kind: 'unsupported-media-type' })
  }
}

/**
 * Surface B's routes, at their full paths under `/api`. Checks run in the order of
 * docs/compact.md#rules: the id (`onRequest`), then the body reader (content type, JSON, field
 * types), then `judul`, then existence.
 */
export function compactRoutes({ store, bodyLimit }: CompactRouteOptions): RouteSpec[] {
  const { read, remove, idFirst, tagged, guarded, write } = itemRoutes<CompactTugas>({
    path: '/api/tugas/{id}',
    what: 'compact task',
    name: 'CompactTugas',
    schema: CompactTugas,
    pathId: compactId,
    idDescription:
      'Task id: an unsigned integer, digits only. Any other segment (`abc`, `-1`, `1.5`) is ' +
      '400; digits no task can have (`0`, past 9007199254740991) are 404.',
    failures,
    notFound: tidakDitemukan,
    store,
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
        ...failures.store,
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
          schema: NewCompactTugas,
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
          ...bodyReaderFailures(CREATE_FIELDS, failures.judul, bodyLimit),
          ...failures.store,
        },
        async handler(request, reply) {
          const { judul } = decode(request.body, CREATE_FIELDS)
          const task = await store.create(checkJudul(judul))
          return tagged.send(created(reply, `/api/tugas/${task.id}`), task)
        },
      },
      failures.idempotency,
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
        schema: CompactTugasReplacement,
        description: 'Both fields required; `judul` follows the create rule.',
        example: { judul: 'Belajar Rust', selesai: true },
      },
      preParsing: [contentTypeRequired],
      responses: {
        200: { description: 'The task after the change.', schema: CompactTugas },
        ...bodyReaderFailures(REPLACE_FIELDS, failures.idOrJudul, bodyLimit),
        404: failures.notFound,
        ...failures.store,
      },
      async handler(request, reply) {
        const { judul, selesai } = decode(request.body, REPLACE_FIELDS)
        const fields = { judul: checkJudul(judul), selesai }
        return write(request, reply, (id, ifMatch) => store.replace(id, fields, ifMatch))
      },
    }),
    remove,
  ]
  return routes.map((route) => ({
    ...route,
    tags: [COMPACT_TAG.name],
    otherMethods: notServed,
  }))
}
