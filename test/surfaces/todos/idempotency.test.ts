// Idempotent creates on surface C (decisions.md 8): POST /todos in both variants with an
// `Idempotency-Key`: E3 refusals in the basic variant, E2 (`fields`) in the priority variant.
import type { FastifyInstance } from 'fastify'
import { call, json } from '../../support/helpers.js'
import { describeIdempotentRoute, E3_REFUSALS, e2Refusals } from '../../support/idempotency-kit.js'

const count = async (app: FastifyInstance) => (await call(app, { url: '/todos' })).json().length

describeIdempotentRoute({
  title: 'POST /todos (TODOS_VARIANT=basic)',
  url: '/todos',
  body: (n) => `{"title":"Beli susu ${n}"}`,
  status: 201,
  count,
  refusals: E3_REFUSALS,
  writes: (stores) => ({ target: stores.todos, method: 'create' }),
})

describeIdempotentRoute({
  title: 'POST /todos (TODOS_VARIANT=priority)',
  config: { todosVariant: 'priority' },
  url: '/todos',
  body: (n) => `{"title":"Rapat ${n}","priority":2}`,
  headers: json,
  status: 201,
  count,
  refusals: e2Refusals('fields'),
  writes: (stores) => ({ target: stores.todos, method: 'create' }),
})
