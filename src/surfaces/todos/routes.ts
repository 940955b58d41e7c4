import { type TSchema, Type } from 'typebox'
import type { TodosVariant } from '../../config.js'
import { withETag } from '../../http/conditional.js'
import { sentBody } from '../../http/e2/shape.js'
import { idempotent } from '../../http/idempotency.js'
import { requireJsonContentType } from '../../http/json-content-type.js'
import {
  created,
  locationHeader,
  type ResponseSpec,
  type RouteSpec,
} from '../../http/route-spec.js'
import { itemRoutes } from '../compact/e3.js'
import {
  failures,
  notServed,
  priorityErrors,
  priorityFailures,
  todoId,
  tugasTidakDitemukan,
} from './errors.js'
import { checkPriorityTodo, readTodo } from './rules.js'
import {
  PRIORITY_BODY_LIMIT,
  PriorityTodoCreated,
  PriorityTodoFields,
  Todo,
  TodoFields,
} from './schemas.js'
import type { TodoStore } from './store.js'

/** Surface C's group in the document. */
export const TODOS_TAG = {
  name: 'C: todos',
  description:
    'Surface C (`/todos`): its own todos `{ id, title, done, created_at }`. Errors are E3 ' +
    '`{ "error": <message> }` (the priority variant\'s `POST /todos`: E2 with `fields`); a ' +
    'method a path does not serve is 405 in plain text.',
}

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

/** Surface C's routes in the running variant, at their full paths under `/todos`. */
export function todosRouteTable({ store, variant, bodyLimit }: TodosRouteOptions): TodosRouteTable {
  const { read, remove, idFirst, tagged, guarded, write } = itemRoutes<Todo>({
    path: '/todos/{id}',
    what: 'todo',
    name: 'Todo',
    schema: Todo,
    pathId: todoId,
    idDescription:
      'Todo id: an integer, an optional sign and digits. Any other segment is 400; an integer ' +
      'no todo can have (`0`, `-1`, past 9007199254740991) is 404.',
    failures,
    notFound: tugasTidakDitemukan,
    store,
  })
  const tooLarge = failures.tooLarge(bodyLimit)
  const createdAnswer = (schema: TSchema): ResponseSpec => ({
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
      201: withETag(createdAnswer(Todo)),
      400: failures.body,
      413: tooLarge,
      ...failures.store,
    },
    async handler(request, reply) {
      const todo = await store.create(readTodo(request.body))
      return tagged.send(created(reply, `/todos/${todo.id}`), todo)
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
      schema: PriorityTodoFields,
      description: '`title` and `priority` required, `due_date` optional.',
      example: { title: 'Rapat', priority: 2, due_date: '2026-12-01' },
    },
    onRequest: [requireJsonContentType(priorityErrors)],
    responses: {
      201: createdAnswer(PriorityTodoCreated),
      ...priorityFailures.body,
      ...priorityFailures.store,
    },
    async handler(request, reply) {
      const todo = await store.create({ ...checkPriorityTodo(sentBody(request)), done: false })
      return created(reply, `/todos/${todo.id}`).send(todo)
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
      responses: {
        200: { description: 'Every todo.', schema: Type.Array(Todo) },
        ...failures.store,
      },
      handler: async () => store.list(),
    },
    ...(variant === 'basic' ? [idempotent(basicCreate, failures.idempotency)] : []),
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
        400: failures.idOrBody,
        404: failures.notFound,
        413: tooLarge,
        ...failures.store,
      },
      async handler(request, reply) {
        const fields = readTodo(request.body)
        return write(request, reply, (id, ifMatch) => store.replace(id, fields, ifMatch))
      },
    }),
    remove,
  ]

  const ofSurface = (route: RouteSpec): RouteSpec => ({
    ...route,
    tags: [TODOS_TAG.name],
    otherMethods: notServed,
  })
  return {
    basic: basic.map(ofSurface),
    priority:
      variant === 'priority'
        ? [ofSurface(idempotent(priorityCreate, priorityFailures.idempotency))]
        : [],
  }
}
