// The ceiling for a store that asks PostgreSQL: a bare Fastify route per request kind, each one
// statement through the same driver and pool size as the service (DATABASE_URL,
// DATABASE_POOL_SIZE). GET /tugas/<id> is one primary-key SELECT; POST /tugas one INSERT ...
// RETURNING (with the title's sort key, as the service writes it). With REFERENCE_PREPARED=1
// both are named prepared statements, as the service runs them; otherwise each is parsed and
// planned anew per request. With REFERENCE_EVENTS=1 the INSERT also stores the task's event, in
// the same statement the service's store sends (dist/store/postgres/outbox.js: `npm run build`
// first), but nothing numbers it: the ceiling for a create that must store its event. With
// REFERENCE_CONTRACT=1 each answer also carries what every answer of the contract needs
// (contract-minimum.mjs), with its log line at LOG_LEVEL (info unless set).
import Fastify from 'fastify'
import pg from 'pg'
import { publishing } from '../dist/store/postgres/outbox.js'
import { addContractHooks, contractOptions, sendTagged } from './contract-minimum.mjs'

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
})
pg.types.setTypeParser(20, Number)
const prepared = process.env.REFERENCE_PREPARED === '1'
const contract = process.env.REFERENCE_CONTRACT === '1'
const app = Fastify(contract ? contractOptions(process.env.LOG_LEVEL ?? 'info') : {})
if (contract) addContractHooks(app)

const Task = {
  type: 'object',
  properties: { id: { type: 'integer' }, title: { type: 'string' }, status: { type: 'string' } },
}
/** A task's answer: as it is, or serialized with its ETag under the contract. */
const answer = (reply, task) => (contract ? sendTagged(reply, Task, task) : reply.send(task))

/** One statement, named when the reference runs prepared statements. */
function statement(name, text, values) {
  return prepared ? { name, text, values } : { text, values }
}

app.get('/tugas/:id', async (request, reply) => {
  const { rows } = await pool.query(
    statement('get', 'SELECT id, title, status FROM tugas WHERE id = $1', [
      Number(request.params.id),
    ]),
  )
  return rows[0] === undefined ? reply.code(404).send({}) : answer(reply, rows[0])
})

const INSERT = 'INSERT INTO tugas (title, title_key, status) VALUES ($1, $2, $3)'
const CREATE =
  process.env.REFERENCE_EVENTS === '1'
    ? publishing(INSERT, 'id, title, status', { type: 'tugas.created' })
    : `${INSERT} RETURNING id, title, status`

app.post('/tugas', async (request, reply) => {
  const { title } = request.body
  const { rows } = await pool.query(
    statement('create', CREATE, [title, Buffer.from(title, 'utf16le').swap16(), 'belum']),
  )
  const [task] = rows
  if (contract) reply.header('location', `/tugas/${task.id}`)
  return answer(reply.code(201), task)
})

await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) })
process.stdout.write(
  `${JSON.stringify({ msg: `Server listening at http://127.0.0.1:${app.server.address().port}` })}\n`,
)
process.once('SIGTERM', () =>
  app
    .close()
    .then(() => pool.end())
    .then(() => process.exit(0)),
)
