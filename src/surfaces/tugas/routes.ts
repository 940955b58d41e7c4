import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import {
  conditionalRead,
  conditionalWrite,
  deleted,
  preconditionHeld,
  taggedItem,
  withETag,
} from '../../http/conditional.js'
import { orThrow } from '../../http/errors.js'
import { idempotent } from '../../http/idempotency.js'
import { atId, idOf, type PathId } from '../../http/path-id.js'
import {
  created,
  locationHeader,
  type ParameterSpec,
  type RouteSpec,
} from '../../http/route-spec.js'
import {
  bodyErrors,
  commentNotFound,
  invalidBody,
  keyErrors,
  notFound,
  notFoundEndpoint,
  storeErrors,
  taskChanged,
  taskNotFound,
  taskOrCommentNotFound,
  versionMismatch,
} from './errors.js'
import { checkKomentar, checkTugas, checkTugasPatch } from './rules.js'
import { Komentar, KomentarBaru, Tugas, TugasBaru, TugasPatch } from './schemas.js'
import type { TugasStore } from './store.js'

export interface TugasRouteOptions {
  store: TugasStore
  /** Path prefix the routes are served under (`''` or `/v1`); Location headers keep it. */
  base: string
  /** `GET /tugas` at this base: docs/tugas.md#the-list, or a versioned form (list-routes.ts). */
  list: RouteSpec
}

/**
 * Ids are digits; any other segment matches no route (the generic 404). Digits past the largest
 * id are well-formed and name no task.
 */
const tugasId: PathId = {
  form: /^[0-9]+$/,
  schema: Type.Integer({ minimum: 0 }),
  invalid: notFoundEndpoint,
}

const idParameter = (name: string, description: string): ParameterSpec => ({
  name,
  in: 'path',
  description: `${description} Only digits match the route; anything else is 404 endpoint not found.`,
  schema: tugasId.schema,
  required: true,
  match: tugasId.form.source,
  example: 1,
})

/** The task id of a request: only digits reach these routes (`match`). */
const taskId = (request: FastifyRequest) => idOf(request, tugasId)

/** What the store found for task `raw`, or the 404 that names the id as it was sent. */
function orTaskNotFound<T>(found: T | undefined, raw: string): T {
  return orThrow(found, () => taskNotFound(raw))
}

/** Tasks and comments as their GETs send them, with the ETag of that representation. */
const taggedTask = taggedItem<Tugas>({ schema: Tugas })
const taggedComment = taggedItem<Komentar>({ schema: Komentar })

export function tugasRoutes({ store, base, list }: TugasRouteOptions): RouteSpec[] {
  const listPath = `${base}/tugas`

  return [
    list,
    idempotent(
      {
        method: 'POST',
        path: '/tugas',
        operationId: 'createTugas',
        summary: 'Create a task.',
        description:
          '`title` is trimmed, then must be 3 to 80 characters; `status` is `belum` (the default) ' +
          'or `selesai`. Checks in order: the body reader (415, 413, 400), then every rule that ' +
          'is broken, reported together (422).',
        body: {
          schema: TugasBaru,
          description: 'The new task.',
          example: { title: 'Menyiapkan presentasi', status: 'belum' },
        },
        responses: {
          201: withETag({
            description: 'Created.',
            schema: Tugas,
            headers: locationHeader('Path of the new task, `/tugas/<id>`.'),
          }),
          ...bodyErrors,
          ...storeErrors,
        },
        async handler(request, reply) {
          const checked = checkTugas(request.body)
          if (!checked.ok) throw invalidBody(checked.violations)
          const task = await store.create(checked.value)
          return taggedTask.send(created(reply, `${listPath}/${task.id}`), task)
        },
      },
      keyErrors,
    ),
    conditionalRead({
      method: 'GET',
      path: '/tugas/{id}',
      operationId: 'getTugas',
      summary: 'Read one task.',
      description: 'The task with this id; an id no task has is 404 (`TIDAK_ADA`).',
      parameters: [idParameter('id', 'Task id.')],
      responses: {
        200: { description: 'The task.', schema: Tugas },
        404: notFound,
        ...storeErrors,
      },
      async handler(request, reply) {
        const { id, raw } = taskId(request)
        const task = orTaskNotFound(await atId(id, (known) => store.get(known)), raw)
        return taggedTask.read(request, reply, task)
      },
    }),
    conditionalWrite(
      {
        method: 'PUT',
        path: '/tugas/{id}',
        operationId: 'replaceTugas',
        summary: 'Replace a task; `status` left out is reset to `belum`.',
        description:
          'The body follows the create rules. Checks in order: the body reader (415, 413, 400), ' +
          'the rules (422), existence (404), then `If-Match` (412).',
        parameters: [idParameter('id', 'Task id.')],
        body: {
          schema: TugasBaru,
          description: 'The full representation.',
          example: { title: 'Belajar REST lanjutan', status: 'selesai' },
        },
        responses: {
          200: { description: 'The replaced task.', schema: Tugas },
          ...bodyErrors,
          404: notFound,
          ...storeErrors,
        },
        async handler(request, reply) {
          // Order: malformed JSON (the body reader), then rules, existence, the precondition.
          const checked = checkTugas(request.body)
          if (!checked.ok) throw invalidBody(checked.violations)
          const { id, raw } = taskId(request)
          const ifMatch = taggedTask.ifMatch(request, reply)
          const replaced = await atId(id, (known) => store.replace(known, checked.value, ifMatch))
          const task = preconditionHeld(orTaskNotFound(replaced, raw), () => taskChanged(raw))
          return taggedTask.send(reply, task)
        },
      },
      versionMismatch,
    ),
    conditionalWrite(
      {
        method: 'PATCH',
        path: '/tugas/{id}',
        operationId: 'updateTugas',
        summary: 'Change some fields of a task; `{}` changes nothing.',
        description:
          'Each field sent follows the create rules; fields left out keep their value. Checks in ' +
          'order: the body reader (415, 413, 400), the rules (422), existence (404), then ' +
          '`If-Match` (412).',
        parameters: [idParameter('id', 'Task id.')],
        body: {
          schema: TugasPatch,
          description: 'Any subset of `title` and `status`.',
          example: { status: 'selesai' },
        },
        responses: {
          200: { description: 'The task after the change.', schema: Tugas },
          ...bodyErrors,
          404: notFound,
          ...storeErrors,
        },
        async handler(request, reply) {
          const checked = checkTugasPatch(request.body)
          if (!checked.ok) throw invalidBody(checked.violations)
          const { id, raw } = taskId(request)
          const ifMatch = taggedTask.ifMatch(request, reply)
          const updated = await atId(id, (known) => store.update(known, checked.value, ifMatch))
          const task = preconditionHeld(orTaskNotFound(updated, raw), () => taskChanged(raw))
          return taggedTask.send(reply, task)
        },
      },
      versionMismatch,
    ),
    conditionalWrite(
      {
        method: 'DELETE',
        path: '/tugas/{id}',
        operationId: 'deleteTugas',
        summary: 'Delete a task and its comments.',
        description:
          'Answers 204 with an empty body; an unknown task is 404, also on a repeat. Checks in ' +
          'order: existence (404), then `If-Match` (412).',
        parameters: [idParameter('id', 'Task id.')],
        responses: { 204: { description: 'Deleted; empty body.' }, 404: notFound, ...storeErrors },
        async handler(request, reply) {
          const { id, raw } = taskId(request)
          const ifMatch = taggedTask.ifMatch(request, reply)
          deleted(await atId(id, (known) => store.delete(known, ifMatch)), {
            notFound: () => taskNotFound(raw),
            failed: () => taskChanged(raw),
          })
          return reply.code(204).send()
        },
      },
      versionMismatch,
    ),
    {
      method: 'GET',
      path: '/tugas/{id}/komentar',
      operationId: 'listKomentar',
      summary: "List a task's comments (an empty array when it has none).",
      description: 'Every comment of the task, oldest first; an unknown task is 404.',
      parameters: [idParameter('id', 'Task id.')],
      responses: {
        200: { description: 'The comments, oldest first.', schema: Type.Array(Komentar) },
        404: notFound,
        ...storeErrors,
      },
      async handler(request) {
        const { id, raw } = taskId(request)
        return orTaskNotFound(await atId(id, (known) => store.comments(known)), raw)
      },
    },
    idempotent(
      {
        method: 'POST',
        path: '/tugas/{id}/komentar',
        operationId: 'createKomentar',
        summary: 'Comment on a task.',
        description:
          '`isi` is trimmed, then must be 1 to 500 characters. Checks in order: the body reader ' +
          '(415, 413, 400), the rules (422), then existence of the task (404).',
        parameters: [idParameter('id', 'Task id.')],
        body: {
          schema: KomentarBaru,
          description: 'The comment.',
          example: { isi: 'Bab 3 tentang header' },
        },
        responses: {
          201: withETag({
            description: 'Created.',
            schema: Komentar,
            headers: locationHeader('Path of the new comment, `/tugas/<id>/komentar/<kid>`.'),
          }),
          ...bodyErrors,
          404: notFound,
          ...storeErrors,
        },
        async handler(request, reply) {
          const checked = checkKomentar(request.body)
          if (!checked.ok) throw invalidBody(checked.violations)
          const { id, raw } = taskId(request)
          const added = await atId(id, (known) => store.addComment(known, checked.value.isi))
          const komentar = orTaskNotFound(added, raw)
          const path = `${listPath}/${komentar.tugasId}/komentar/${komentar.id}`
          return taggedComment.send(created(reply, path), komentar)
        },
      },
      keyErrors,
    ),
    conditionalRead({
      method: 'GET',
      path: '/tugas/{id}/komentar/{kid}',
      operationId: 'getKomentar',
      summary: 'Read one comment of a task.',
      description:
        'The comment with id `kid` of the task `id`; 404 when the task, or that comment of it, ' +
        'does not exist (the message says which).',
      parameters: [idParameter('id', 'Task id.'), idParameter('kid', 'Comment id.')],
      responses: {
        200: { description: 'The comment.', schema: Komentar },
        404: taskOrCommentNotFound,
        ...storeErrors,
      },
      async handler(request, reply) {
        const { id, raw } = taskId(request)
        const kid = idOf(request, tugasId, 'kid')
        const komentar = await atId(id, (task) =>
          atId(kid.id, (known) => store.comment(task, known)),
        )
        if (komentar !== undefined) return taggedComment.read(request, reply, komentar)
        orTaskNotFound(await atId(id, (known) => store.get(known)), raw)
        throw commentNotFound(kid.raw)
      },
    }),
  ]
}
