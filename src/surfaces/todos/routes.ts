import type { FastifyReply } from 'fastify'
import { type TSchema, Type } from 'typebox'
import type { TodosVariant } from '../../config.js'
import { withETag } from '../../http/conditional.js'
import { E2FieldsBody, e2Shape, sentBody } from '../../http/e2.js'
import { e3, e3Answer, frameworkText, itemRoutes, storeFailures } from '../../http/e3.js'
import type { ApiError } from '../../http/errors.js'
import { idempotencyFailures, idempotent } from '../../http/idempotency.js'
import { requireJsonContentType } from '../../http/json-body.js'
import { otherMethods } from '../../http/method-not-allowed.js'
import {
  exactTexts,
  locationHeader,
  type ResponseSpec,
  type RouteSpec,
} from '../../http/route-spec.js'
import {
  bodyBukanJson,
  METHOD_NOT_ALLOWED,
  titleWajibDiisi,
  todoId,
  todosErrors,
  tugasTidakDitemukan,
  versiTidakCocok,
} from './errors.js'
import { checkPriorityTodo, PRIORITY_MAX, PRIORITY_MIN, readTodo } from './rules.js'
import { PRIORITY_BODY_LIMIT, PriorityTodoCreated, Todo } from './schemas.js'
import type { TodoStore } from './store.js'

/** Surface C's group in the document. */
export const TODOS_TAG = {
  name: 'C: todos',
  description:
    'Surface C (`/todos`): its own todos `{ id, title, done, created_at }`. Errors are E3 ' +
    '`{ "error": <message> }` (the priority variant\'s `POST /todos`: E2 with `fields`); a ' +
    'method a path does not serve is 405 in plain text.',
}

/** The priority variant's `POST /todos` speaks E2 with the map `fields`, bodies up to 1024 bytes. */
export const priorityErrors = e2Shape('fields', PRIORITY_BODY_LIMIT)

export interface TodosRouteOptions {
  store: TodoStore
  variant: TodosVariant
  /** The service's body limit, named by the 413 message. */
  bodyLimit: number
}

/**
 * Surface C's routes by the context that reads their bodies: `basic` reads any body as JSON,
 * whatever its Content-Type (the basic variant's texts have no word for a wrong one);
 * `priority` is the priority variant's `POST /todos` (empty in the basic variant), whose five
 * ordered steps answer in E2 and whose body reader stops after 1024 bytes.
 */
export interface TodosRouteTable {
  basic: RouteSpec[]
  priority: RouteSpec[]
}

const TodoFields = Type.Object({
  title: Type.String({ description: 'Required, not null; trimmed, then not empty.' }),
  done: Type.Optional(Type.Boolean({ description: 'False when left out (on PUT too).' })),
})

/** A todo's E2 failure in the priority variant. */
const e2 = (description: string): ResponseSpec => ({ description, schema: E2FieldsBody })
/** The E2 answer of one error of the priority variant, under a description. */
const e2Answer = (description: string, { code }: ApiError) => e2(`${description} (\`${code}\`).`)

const plainMethodNotAllowed = (reply: FastifyReply) =>
  reply.type('text/plain; charset=utf-8').send(METHOD_NOT_ALLOWED)

/** Surface C's routes in the running variant, at their full paths under `/todos`. */
export function todosRouteTable({ store, variant, bodyLimit }: TodosRouteOptions): TodosRouteTable {
  const failures = storeFailures(todosErrors)
  const idMessage = todoId.invalid('').message
  const notFound = e3('No todo has this id.', [tugasTidakDitemukan().message])
  const { read, remove, idFirst, tagged, guarded, write } = itemRoutes<Todo>({
    path: '/todos/{id}',
    what: 'todo',
    name: 'Todo',
    schema: Todo,
    pathId: todoId,
    idDescription:
      'Todo id: an integer, an optional sign and digits. Any other segment is 400; an integer ' +
      'no todo can have (`0`, `-1`, past 9007199254740991) is 404.',
    responses: { 400: e3('The id is not an integer.', [idMessage]), 404: notFound, ...failures },
    notFound: tugasTidakDitemukan,
    preconditionFailed: versiTidakCocok,
    find: (id) => store.get(id),
    remove: (id, precondition) => store.delete(id, precondition),
  })
  const bodyTexts = [bodyBukanJson().message, titleWajibDiisi().message]
  const badBody =
    'the body is missing, not valid JSON, not an object, or a field has the wrong JSON type ' +
    '(`body bukan JSON yang valid`); `title` is missing, null or blank (`title wajib diisi`).'
  const tooLarge = e3(`The body is over ${bodyLimit} bytes.`, [
    frameworkText(todosErrors, { kind: 'body-too-large', limit: bodyLimit }),
  ])
  const created = (schema: TSchema): ResponseSpec => ({
    description: 'Created.',
    schema,
    headers: locationHeader('Path of the new todo, `/todos/<id>`.'),
  })

  const basicCreate: RouteSpec = {
    method: 'POST',
    path: '/todos',
    operationId: 'createTodo',
    summary: 'Create a todo (basic variant).',
    description:
      'The body is read as JSON whatever its Content-Type; a `null` body reads like `{}`. ' +
      '`created_at` is set by the service and never changes.',
    body: {
      schema: TodoFields,
      description: '`title` required, `done` optional.',
      example: { title: 'Beli susu' },
    },
    responses: {
      // The basic variant's 201 is the todo as its GET sends it: with that ETag.
      201: withETag(created(Todo)),
      400: e3(`Refused: ${badBody}`, bodyTexts),
      413: tooLarge,
      ...failures,
    },
    async handler(request, reply) {
      const todo = await store.create(readTodo(request.body))
      return tagged.send(reply.code(201).header('location', `/todos/${todo.id}`), todo)
    },
  }

  const priorityCreate: RouteSpec = {
    method: 'POST',
    path: '/todos',
    operationId: 'createPriorityTodo',
    summary: 'Create a todo with a priority (priority variant).',
    description:
      'Five ordered steps: (1) the Content-Type must start with `application/json`, whether ' +
      `or not a body is sent (415); (2, 3) the body is read up to ${PRIORITY_BODY_LIMIT} bytes ` +
      '(413, refused as soon as the limit is passed, and the connection is closed) and decoded ' +
      '(400 `INVALID_JSON`); (4) every field is checked, every violation reported together ' +
      '(400 `VALIDATION_ERROR`, `fields` in alphabetical order); (5) 201. The todo is stored ' +
      'with `done` false and `created_at`.',
    body: {
      schema: Type.Object({
        title: Type.String({ description: 'At least 3 bytes of UTF-8 after trimming.' }),
        priority: Type.Integer({ minimum: PRIORITY_MIN, maximum: PRIORITY_MAX }),
        due_date: Type.Optional(
          Type.String({
            format: 'date',
            description: '`YYYY-MM-DD`, a real calendar date; `null` counts as left out.',
          }),
        ),
      }),
      description: '`title` and `priority` required, `due_date` optional.',
      example: { title: 'Rapat', priority: 2, due_date: '2026-12-01' },
    },
    onRequest: [requireJsonContentType(priorityErrors)],
    responses: {
      201: created(PriorityTodoCreated),
      400: e2(
        'The body is missing or not valid JSON (`INVALID_JSON`), or fields break the rules ' +
          '(`VALIDATION_ERROR`, every violation in `fields`).',
      ),
      413: e2(`The body is over ${PRIORITY_BODY_LIMIT} bytes (\`BODY_TOO_LARGE\`).`),
      415: e2('The Content-Type does not start with application/json (`UNSUPPORTED_MEDIA_TYPE`).'),
      ...storeFailures(priorityErrors, (description, { code }) =>
        e2(`${description} (\`${code}\`).`),
      ),
    },
    async handler(request, reply) {
      const todo = await store.create({ ...checkPriorityTodo(sentBody(request)), done: false })
      return reply.code(201).header('location', `/todos/${todo.id}`).send(todo)
    },
  }

  const basic: RouteSpec[] = [
    {
      method: 'GET',
      path: '/todos',
      operationId: 'listTodos',
      summary: 'List the todos.',
      description:
        'Every todo in id order. Those made by the priority variant also show `priority` and ' +
        '`due_date` (when set).',
      responses: { 200: { description: 'Every todo.', schema: Type.Array(Todo) }, ...failures },
      handler: async () => store.list(),
    },
    ...(variant === 'basic'
      ? [idempotent(basicCreate, idempotencyFailures(todosErrors, e3Answer))]
      : []),
    read,
    guarded({
      method: 'PUT',
      path: '/todos/{id}',
      operationId: 'replaceTodo',
      summary: 'Set `title` and `done` of a todo.',
      description:
        'Checks in order: the id, the body (read as JSON whatever its Content-Type), `title`, ' +
        'existence (404), then `If-Match` (412). `done` left out is false; `created_at` never ' +
        'changes.',
      ...idFirst,
      body: {
        schema: TodoFields,
        description: '`title` required, `done` optional.',
        example: { title: 'Beli susu', done: true },
      },
      responses: {
        200: { description: 'The todo after the change.', schema: Todo },
        400: e3(`Refused: the id is not an integer (\`${idMessage}\`); or ${badBody}`, [
          idMessage,
          ...bodyTexts,
        ]),
        404: notFound,
        413: tooLarge,
        ...failures,
      },
      async handler(request, reply) {
        const fields = readTodo(request.body)
        return write(request, reply, (id, ifMatch) => store.replace(id, fields, ifMatch))
      },
    }),
    remove,
  ]

  const notServed = otherMethods(
    {
      description: 'A method this path does not serve: plain text `Method Not Allowed`.',
      text: exactTexts([METHOD_NOT_ALLOWED]),
    },
    plainMethodNotAllowed,
  )
  const ofSurface = (route: RouteSpec): RouteSpec => ({
    ...route,
    tags: [TODOS_TAG.name],
    otherMethods: notServed,
  })
  return {
    basic: basic.map(ofSurface),
    priority:
      variant === 'priority'
        ? [ofSurface(idempotent(priorityCreate, idempotencyFailures(priorityErrors, e2Answer)))]
        : [],
  }
}
