import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { orThrow } from '../../http/errors.js'
import { locationHeader, type ParameterSpec, type RouteSpec } from '../../http/route-spec.js'
import { commentNotFound, invalidBody, taskNotFound } from './errors.js'
import { bodyErrors, errorResponse, internal, notFound } from './responses.js'
import { checkKomentar, checkTugas, checkTugasPatch } from './rules.js'
import { Komentar, KomentarBaru, Tugas, TugasBaru, TugasPatch } from './schemas.js'
import type { TugasStore } from './store.js'

export interface TugasRouteOptions {
  store: TugasStore
  /** Path prefix the routes are served under (`''` or `/v1`); Location headers keep it. */
  base: string
  /** `GET /tugas` at this base: Part 1's list, or a versioned form (list-routes.ts). */
  list: RouteSpec
}

const idParameter = (name: string, description: string): ParameterSpec => ({
  name,
  in: 'path',
  description: `${description} Only digits match the route; anything else is 404 endpoint not found.`,
  schema: Type.Integer({ minimum: 0 }),
  required: true,
  match: '^[0-9]+$',
})

/** Digit strings past the safe-integer range name no task; they are still well-formed ids. */
function taskId(request: FastifyRequest): { id: number; raw: string } {
  const raw = (request.params as { id: string }).id
  return { id: Number(raw), raw }
}

/** What the store found for task `raw`, or the 404 that names the id as it was sent. */
function orTaskNotFound<T>(found: T | undefined, raw: string): T {
  return orThrow(found, () => taskNotFound(raw))
}

export function tugasRoutes({ store, base, list }: TugasRouteOptions): RouteSpec[] {
  const listPath = `${base}/tugas`

  function created(reply: FastifyReply, path: string) {
    return reply.code(201).header('location', path)
  }

  return [
    list,
    {
      method: 'POST',
      path: '/tugas',
      operationId: 'createTugas',
      summary: 'Create a task.',
      body: { schema: TugasBaru, description: 'The new task.' },
      responses: {
        201: {
          description: 'Created.',
          schema: Tugas,
          headers: locationHeader('Path of the new task, `/tugas/<id>`.'),
        },
        ...bodyErrors,
        500: internal,
      },
      async handler(request, reply) {
        const checked = checkTugas(request.body)
        if (!checked.ok) throw invalidBody(checked.violations)
        const task = await store.create(checked.value)
        return created(reply, `${listPath}/${task.id}`).send(task)
      },
    },
    {
      method: 'GET',
      path: '/tugas/{id}',
      operationId: 'getTugas',
      summary: 'Read one task.',
      parameters: [idParameter('id', 'Task id.')],
      responses: { 200: { description: 'The task.', schema: Tugas }, 404: notFound, 500: internal },
      async handler(request) {
        const { id, raw } = taskId(request)
        return orTaskNotFound(await store.get(id), raw)
      },
    },
    {
      method: 'PUT',
      path: '/tugas/{id}',
      operationId: 'replaceTugas',
      summary: 'Replace a task; `status` left out is reset to `belum`.',
      parameters: [idParameter('id', 'Task id.')],
      body: { schema: TugasBaru, description: 'The full representation.' },
      responses: {
        200: { description: 'The replaced task.', schema: Tugas },
        ...bodyErrors,
        404: notFound,
        500: internal,
      },
      async handler(request) {
        // Order: malformed JSON (the body reader), then rules, then existence.
        const checked = checkTugas(request.body)
        if (!checked.ok) throw invalidBody(checked.violations)
        const { id, raw } = taskId(request)
        return orTaskNotFound(await store.replace(id, checked.value), raw)
      },
    },
    {
      method: 'PATCH',
      path: '/tugas/{id}',
      operationId: 'updateTugas',
      summary: 'Change some fields of a task; `{}` changes nothing.',
      parameters: [idParameter('id', 'Task id.')],
      body: { schema: TugasPatch, description: 'Any subset of `title` and `status`.' },
      responses: {
        200: { description: 'The task after the change.', schema: Tugas },
        ...bodyErrors,
        404: notFound,
        500: internal,
      },
      async handler(request) {
        const checked = checkTugasPatch(request.body)
        if (!checked.ok) throw invalidBody(checked.violations)
        const { id, raw } = taskId(request)
        return orTaskNotFound(await store.update(id, checked.value), raw)
      },
    },
    {
      method: 'DELETE',
      path: '/tugas/{id}',
      operationId: 'deleteTugas',
      summary: 'Delete a task and its comments.',
      parameters: [idParameter('id', 'Task id.')],
      responses: { 204: { description: 'Deleted; empty body.' }, 404: notFound, 500: internal },
      async handler(request, reply) {
        const { id, raw } = taskId(request)
        if (!(await store.delete(id))) throw taskNotFound(raw)
        return reply.code(204).send()
      },
    },
    {
      method: 'GET',
      path: '/tugas/{id}/komentar',
      operationId: 'listKomentar',
      summary: "List a task's comments (an empty array when it has none).",
      parameters: [idParameter('id', 'Task id.')],
      responses: {
        200: { description: 'The comments, oldest first.', schema: Type.Array(Komentar) },
        404: notFound,
        500: internal,
      },
      async handler(request) {
        const { id, raw } = taskId(request)
        return orTaskNotFound(await store.comments(id), raw)
      },
    },
    {
      method: 'POST',
      path: '/tugas/{id}/komentar',
      operationId: 'createKomentar',
      summary: 'Comment on a task.',
      parameters: [idParameter('id', 'Task id.')],
      body: { schema: KomentarBaru, description: 'The comment.' },
      responses: {
        201: {
          description: 'Created.',
          schema: Komentar,
          headers: locationHeader('Path of the new comment, `/tugas/<id>/komentar/<kid>`.'),
        },
        ...bodyErrors,
        404: notFound,
        500: internal,
      },
      async handler(request, reply) {
        const checked = checkKomentar(request.body)
        if (!checked.ok) throw invalidBody(checked.violations)
        const { id, raw } = taskId(request)
        const komentar = orTaskNotFound(await store.addComment(id, checked.value.isi), raw)
        return created(reply, `${listPath}/${id}/komentar/${komentar.id}`).send(komentar)
      },
    },
    {
      method: 'GET',
      path: '/tugas/{id}/komentar/{kid}',
      operationId: 'getKomentar',
      summary: 'Read one comment of a task.',
      parameters: [idParameter('id', 'Task id.'), idParameter('kid', 'Comment id.')],
      responses: {
        200: { description: 'The comment.', schema: Komentar },
        404: errorResponse('Task or comment not found (`TIDAK_ADA`).'),
        500: internal,
      },
      async handler(request) {
        const { id, raw } = taskId(request)
        const kid = (request.params as { kid: string }).kid
        const komentar = await store.comment(id, Number(kid))
        if (komentar !== undefined) return komentar
        orTaskNotFound(await store.get(id), raw)
        throw commentNotFound(kid)
      },
    },
  ]
}
