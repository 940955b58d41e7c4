// Two Fastify references for the hot path, so the service's ratios to the bare node:http server
// can be read against what Fastify itself reaches on the same machine in the same run:
// - REFERENCE=bare: one GET and one POST route, no logger, no hooks (Fastify's own floor);
// - REFERENCE=contract: the same routes with only what every answer of the contract needs per
//   request: a logger (Fastify then times each request and calls the log controller when it
//   ends, which the request log and the metrics of the service need), an X-Request-Id (the
//   client's or a fresh UUID) in an onRequest hook, and the strong ETag (SHA-256 of the body).
// Neither has a store, rules, CORS, metrics, rate limits or idempotency: what the service costs
// beyond `contract` is its own.
import { hash, randomUUID } from 'node:crypto'
import Fastify from 'fastify'

const contract = process.env.REFERENCE === 'contract'
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

const app = Fastify(
  contract
    ? {
        logger: { level: 'warn' },
        requestIdHeader: false,
        genReqId(request) {
          const sent = request.headers['x-request-id']
          return typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID()
        },
      }
    : { logger: false },
)
if (contract) {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    done()
  })
}

const Task = {
  type: 'object',
  properties: { id: { type: 'integer' }, title: { type: 'string' }, status: { type: 'string' } },
}
const NewTask = {
  type: 'object',
  required: ['title'],
  properties: { title: { type: 'string' }, status: { type: 'string' } },
}
const tasks = new Map([[1, { id: 1, title: 'Belajar REST', status: 'belum' }]])

/** The task as its GET sends it: serialized by the route's schema, with its ETag in `contract`. */
function answer(reply, task) {
  if (!contract) return task
  const text = reply.compileSerializationSchema(Task)(task)
  const tag = `"${hash('sha256', text, 'base64url').slice(0, 22)}"`
  return reply.header('etag', tag).type('application/json; charset=utf-8').send(text)
}

app.get('/tugas/:id', { schema: { response: { 200: Task } } }, async (request, reply) => {
  const task = tasks.get(Number(request.params.id))
  if (task === undefined) return reply.code(404).send({ error: 'not found' })
  return answer(reply, task)
})

app.post(
  '/tugas',
  { schema: { body: NewTask, response: { 201: Task } } },
  async (request, reply) => {
    const task = { id: tasks.size + 1, status: 'belum', ...request.body }
    tasks.set(task.id, task)
    reply.code(201).header('location', `/tugas/${task.id}`)
    return answer(reply, task)
  },
)

const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' })
// The line run.ts reads the address from (the contract logger, at warn, prints none).
process.stdout.write(`${JSON.stringify({ msg: `Server listening at ${address}` })}\n`)

process.once('SIGTERM', () => {
  app.close().then(() => process.exit(0))
})
