// Fastify references for the hot path, so the service's ratios to the bare node:http server
// can be read against what Fastify itself reaches on the same machine in the same run:
// - REFERENCE=bare: one GET and one POST route, no logger, no hooks (Fastify's own floor);
// - REFERENCE=contract: the same routes with only what every answer of the contract needs per
//   request (contract-minimum.mjs: the logger, at warn here, the request id, nosniff, the ETag);
// - REFERENCE=store: `contract` keeping its tasks in the service's own memory stores
//   (dist/stores.js: `npm run build` first): the ordered indexes the lists need and the event
//   each create publishes, what a create must do on the memory store.
// - REFERENCE=beside: `contract` in a process that has also built the whole service (its
//   stores, background work and app, as `npm start` builds them, from the same settings), which
//   never answers a request: what holding the service costs the same requests.
// None has the service's rules, CORS, metrics, rate limits or idempotency: what the service
// costs beyond `contract` (or `store`) is its own.
import Fastify from 'fastify'
import { addContractHooks, contractOptions, sendTagged } from './contract-minimum.mjs'

/** The seed the service starts from: SEED_FILE, or the demo data without it (as main.ts). */
async function serviceSeed(seedFile) {
  const { demoSeed, readSeedFile } = await import('../dist/seed.js')
  return seedFile === undefined ? demoSeed : await readSeedFile(seedFile)
}

/** In `beside`, the service built as main.ts builds it, but never listening. */
async function buildServiceBeside() {
  const { loadConfig } = await import('../dist/config.js')
  const { createInfrastructure } = await import('../dist/infrastructure.js')
  const { buildApp } = await import('../dist/app.js')
  const config = loadConfig()
  const infrastructure = await createInfrastructure(config, await serviceSeed(config.seedFile))
  const service = await buildApp({ config, infrastructure, logger: { level: 'warn' } })
  await service.ready()
  return service
}
const besideService = process.env.REFERENCE === 'beside' ? await buildServiceBeside() : undefined

const store = process.env.REFERENCE === 'store'
const contract = store || besideService !== undefined || process.env.REFERENCE === 'contract'
const app = Fastify(contract ? contractOptions('warn') : { logger: false })
if (contract) addContractHooks(app)

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
/** In `store`, the service's task store holding SEED_FILE (the demo data without it). */
const memory = store ? await serviceTaskStore(process.env.SEED_FILE) : undefined

/** Loaded only for `store`, so that `bare` and `contract` load nothing of the service. */
async function serviceTaskStore(seedFile) {
  const { seededMemoryStores } = await import('../dist/stores.js')
  return (await seededMemoryStores(await serviceSeed(seedFile))).tugas
}

/** The task as its GET sends it: serialized by the route's schema, with its ETag in `contract`. */
const answer = (reply, task) => (contract ? sendTagged(reply, Task, task) : task)

app.get('/tugas/:id', { schema: { response: { 200: Task } } }, async (request, reply) => {
  const id = Number(request.params.id)
  const task = memory ? await memory.get(id) : tasks.get(id)
  if (task === undefined) return reply.code(404).send({ error: 'not found' })
  return answer(reply, task)
})

app.post(
  '/tugas',
  { schema: { body: NewTask, response: { 201: Task } } },
  async (request, reply) => {
    const task = memory
      ? await memory.create({ status: 'belum', ...request.body })
      : { id: tasks.size + 1, status: 'belum', ...request.body }
    if (!memory) tasks.set(task.id, task)
    reply.code(201).header('location', `/tugas/${task.id}`)
    return answer(reply, task)
  },
)

const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' })
// The line run.ts reads the address from (the contract logger, at warn, prints none).
process.stdout.write(`${JSON.stringify({ msg: `Server listening at ${address}` })}\n`)

process.once('SIGTERM', () => {
  Promise.all([app.close(), besideService?.close()]).then(() => process.exit(0))
})
