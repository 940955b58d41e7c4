import type { FastifyInstance, FastifyReply } from 'fastify'
import { Type } from 'typebox'
import type { TodosVariant } from '../../config.js'
import { e2Shape, sentBody } from '../../http/e2.js'
import { orThrow, useErrorShape } from '../../http/errors.js'
import {
  acceptJsonBodies,
  JSON_CONTENT_TYPE,
  requireJsonContentType,
  withoutBodies,
} from '../../http/json-body.js'
import { answerOtherMethods } from '../../http/method-not-allowed.js'
import { atId, checkIdFirst, idOf } from '../../http/path-id.js'
import { METHOD_NOT_ALLOWED, todoId, todosErrors, tugasTidakDitemukan } from './errors.js'
import { checkPriorityTodo, readTodo } from './rules.js'
import { PRIORITY_BODY_LIMIT, PriorityTodoCreated, Todo } from './schemas.js'
import type { TodoStore } from './store.js'

export interface TodosSurfaceOptions {
  store: TodoStore
  variant: TodosVariant
}

const plainMethodNotAllowed = (reply: FastifyReply) =>
  reply.type('text/plain; charset=utf-8').send(METHOD_NOT_ALLOWED)

/**
 * Surface C, registered under the prefix `/todos`. The basic variant reads any body as JSON,
 * whatever its Content-Type (its error texts have no word for a wrong one). Unknown paths
 * below `/todos` fall through to the service's generic 404.
 */
export async function todosSurface(
  instance: FastifyInstance,
  { store, variant }: TodosSurfaceOptions,
) {
  useErrorShape(instance, todosErrors, { notFound: false })
  const idFirst = { onRequest: checkIdFirst(todoId) }
  const one = { response: { 200: Todo } }

  withoutBodies(instance, (bodyless) => {
    bodyless.get('', { schema: { response: { 200: Type.Array(Todo) } } }, async () => store.list())
    bodyless.get('/:id', { ...idFirst, schema: one }, async (request) => {
      const { id } = idOf(request, todoId)
      return orThrow(await atId(id, (known) => store.get(known)), tugasTidakDitemukan)
    })
    bodyless.delete('/:id', idFirst, async (request, reply) => {
      const { id } = idOf(request, todoId)
      if (!(await atId(id, (known) => store.delete(known)))) throw tugasTidakDitemukan()
      return reply.code(204).send()
    })
  })

  // The basic variant's bodies: read as JSON whatever the Content-Type says.
  await instance.register(async (basic) => {
    acceptJsonBodies(basic, { anyContentType: true })
    if (variant === 'basic') {
      basic.post('', { schema: { response: { 201: Todo } } }, async (request, reply) => {
        const todo = await store.create(readTodo(request.body))
        return reply.code(201).header('location', `/todos/${todo.id}`).send(todo)
      })
    }
    basic.put('/:id', { ...idFirst, schema: one }, async (request) => {
      const { id } = idOf(request, todoId)
      const fields = readTodo(request.body)
      return orThrow(await atId(id, (known) => store.replace(known, fields)), tugasTidakDitemukan)
    })
  })
  if (variant === 'priority') await instance.register(priorityCreate, { store })

  answerOtherMethods(instance, '', ['GET', 'POST'], plainMethodNotAllowed)
  answerOtherMethods(instance, '/:id', ['GET', 'PUT', 'DELETE'], plainMethodNotAllowed)
}

/**
 * `POST /todos` of the priority variant, in a context of its own: its five ordered steps answer
 * in the E2 shape (map `fields`), and its body reader stops after 1024 bytes.
 */
async function priorityCreate(instance: FastifyInstance, { store }: { store: TodoStore }) {
  acceptJsonBodies(instance, { mediaType: JSON_CONTENT_TYPE, bodyLimit: PRIORITY_BODY_LIMIT })
  const shape = e2Shape('fields', PRIORITY_BODY_LIMIT)
  useErrorShape(instance, shape, { notFound: false })
  instance.post(
    '',
    {
      // Step 1 comes before reading anything, whether or not a body was sent.
      onRequest: requireJsonContentType(shape),
      schema: { response: { 201: PriorityTodoCreated } },
    },
    async (request, reply) => {
      const todo = await store.create({ ...checkPriorityTodo(sentBody(request)), done: false })
      return reply.code(201).header('location', `/todos/${todo.id}`).send(todo)
    },
  )
}
