import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { orThrow, useErrorShape } from '../../http/errors.js'
import { acceptJsonBodies, withoutBodies } from '../../http/json-body.js'
import { answerOtherMethods } from '../../http/method-not-allowed.js'
import { atId, checkIdFirst, idOf } from '../../http/path-id.js'
import { compactErrors, compactId, tidakDitemukan } from './errors.js'
import { checkJudul, decode } from './rules.js'
import { CompactTugas, Health } from './schemas.js'
import type { CompactStore } from './store.js'

export interface CompactSurfaceOptions {
  store: CompactStore
}

/**
 * Surface B, registered under the prefix `/api`. Checks run in the order of Part 1: the id,
 * then the body reader (content type, JSON, field types), then `judul`, then existence.
 */
export async function compactSurface(instance: FastifyInstance, { store }: CompactSurfaceOptions) {
  acceptJsonBodies(instance)
  useErrorShape(instance, compactErrors)
  const idFirst = { onRequest: checkIdFirst(compactId) }
  const one = { response: { 200: CompactTugas } }
  const emptyBody = (reply: FastifyReply) => reply.send()

  // A body route answers 415 without a JSON Content-Type even when no body is sent. The id is
  // checked first (onRequest), then this (preParsing), then the body reader.
  const bodyRoute = {
    ...idFirst,
    async preParsing(request: FastifyRequest) {
      if (request.headers['content-type'] === undefined) {
        throw compactErrors.fromFramework({ kind: 'unsupported-media-type' })
      }
    },
  }

  withoutBodies(instance, (bodyless) => {
    bodyless.get('/health', { schema: { response: { 200: Health } } }, async () => ({
      status: 'ok' as const,
    }))
    bodyless.get('/tugas', { schema: { response: { 200: Type.Array(CompactTugas) } } }, async () =>
      store.list(),
    )
    bodyless.get('/tugas/:id', { ...idFirst, schema: one }, async (request) => {
      const { id, raw } = idOf(request, compactId)
      return orThrow(await atId(id, (known) => store.get(known)), () => tidakDitemukan(raw))
    })
    bodyless.delete('/tugas/:id', idFirst, async (request, reply) => {
      const { id, raw } = idOf(request, compactId)
      if (!(await atId(id, (known) => store.delete(known)))) throw tidakDitemukan(raw)
      return reply.code(204).send()
    })
  })

  instance.post(
    '/tugas',
    { preParsing: bodyRoute.preParsing, schema: { response: { 201: CompactTugas } } },
    async (request, reply) => {
      const { judul } = decode(request.body, { judul: 'string' })
      const task = await store.create(checkJudul(judul))
      return reply.code(201).header('location', `/api/tugas/${task.id}`).send(task)
    },
  )
  instance.put('/tugas/:id', { ...bodyRoute, schema: one }, async (request) => {
    const { id, raw } = idOf(request, compactId)
    const { judul, selesai } = decode(request.body, { judul: 'string', selesai: 'boolean' })
    const fields = { judul: checkJudul(judul), selesai }
    const replaced = await atId(id, (known) => store.replace(known, fields))
    return orThrow(replaced, () => tidakDitemukan(raw))
  })

  answerOtherMethods(instance, '/health', ['GET'], emptyBody)
  answerOtherMethods(instance, '/tugas', ['GET', 'POST'], emptyBody)
  answerOtherMethods(instance, '/tugas/:id', ['GET', 'PUT', 'DELETE'], emptyBody)
}
