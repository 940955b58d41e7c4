// WORKERS=2 under `npm start` (decisions.md 7): two processes serve one port, on one database
// and one Redis, and a client cannot tell them from one process. Each request here goes on a
// connection of its own, so the primary hands the requests to both workers; the log lines say
// which worker (pid) served which request.
import assert from 'node:assert/strict'
import type { ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { connect } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { setTimeout as pause } from 'node:timers/promises'
import { skipWithoutPostgres } from './support/postgres.js'
import {
  exitOf,
  inRounds,
  listening,
  logged,
  npmStart,
  send,
  startTwoWorkers,
} from './support/processes.js'
import { REDIS_URL, skipWithoutRedis } from './support/redis.js'

type Line = Record<string, unknown>

const skip = (await skipWithoutPostgres()) || (await skipWithoutRedis())

describe('WORKERS=2 under npm start', { skip }, () => {
  const lines: Line[] = []
  let child: ChildProcess
  let exited: ReturnType<typeof exitOf>
  let base: string
  let primary: number

  before(async () => {
    child = await startTwoWorkers()
    exited = exitOf(child)
    base = await listening(child, lines)
    primary = lines.find((line) => String(line.msg).startsWith('Server listening'))?.pid as number
  })

  after(() => {
    child.kill('SIGKILL')
  })

  /** The pids of the workers that served the requests with these ids, once they are logged. */
  async function servedBy(ids: string[]): Promise<Set<number>> {
    const done = () => lines.filter((line) => ids.includes(String(line.reqId)))
    for (let i = 0; i < 100 && done().length < ids.length; i++) await pause(20)
    assert.equal(done().length, ids.length, 'a log line for every request')
    return new Set(done().map((line) => line.pid as number))
  }

  test('one listening line, written by the primary once both workers listen', () => {
    const listeningLines = lines.filter((line) => String(line.msg).startsWith('Server listening'))
    assert.equal(listeningLines.length, 1)
    assert.equal(listeningLines[0]?.workers, 2)
  })

  /** Sends a request with a fresh X-Request-Id: its answer and the pid of its worker. */
  async function traced(method: string, path: string, body?: unknown) {
    const id = `w-${randomBytes(6).toString('hex')}`
    const answer = await send(base, method, path, { id, ...(body !== undefined && { body }) })
    const [pid] = await servedBy([id])
    return { ...answer, pid: pid as number }
  }

  /** GET `path` until a worker other than `writer` answers. */
  async function readOnOther(writer: number, path: string) {
    const reads = await inRounds(
      () => traced('GET', path),
      (answers) => answers.some((read) => read.pid !== writer),
    )
    return (
      reads.find((read) => read.pid !== writer) ??
      assert.fail(`no other worker than ${writer} answered GET ${path}`)
    )
  }

  test('a task created by one worker is read, replaced and deleted by the other', async () => {
    const created = await traced('POST', '/tugas', { title: 'Lewat dua pekerja' })
    assert.equal(created.status, 201)
    assert.notEqual(created.pid, primary, 'the primary serves nothing')
    const task = JSON.parse(created.body) as { id: number }
    assert.equal(created.headers.location, `/tugas/${task.id}`)
    const read = await readOnOther(created.pid, `/tugas/${task.id}`)
    assert.deepEqual(JSON.parse(read.body), {
      id: task.id,
      title: 'Lewat dua pekerja',
      status: 'belum',
    })
    const replacement = { title: 'Diganti', status: 'selesai' }
    const replaced = await traced('PUT', `/tugas/${task.id}`, replacement)
    assert.equal(replaced.status, 200)
    const reread = await readOnOther(replaced.pid, `/tugas/${task.id}`)
    assert.deepEqual(JSON.parse(reread.body), { id: task.id, ...replacement })
    const deleted = await traced('DELETE', `/tugas/${task.id}`)
    assert.equal(deleted.status, 204)
    assert.equal((await readOnOther(deleted.pid, `/tugas/${task.id}`)).status, 404)
  })

  test('a burst on one /laporan key through the one port admits exactly the capacity', async () => {
    // The demo admin key; the buckets are under this run's own Redis prefix.
    const keyed = await Promise.all(
      Array.from({ length: 10 }, () =>
        send(base, 'GET', '/laporan', { headers: { 'x-api-key': 'demo-admin-token' } }),
      ),
    )
    const statuses = keyed.map((answer) => answer.status)
    assert.equal(statuses.filter((status) => status === 200).length, 3)
    assert.equal(statuses.filter((status) => status === 429).length, 7)
  })

  test('20 concurrent payments of one order: exactly one 200', async () => {
    const created = await send(base, 'POST', '/pesanan', {
      body: { email: 'budi@contoh.id', jumlah: 2 },
    })
    assert.equal(created.status, 201)
    const { data } = JSON.parse(created.body) as { data: { id: number } }
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        send(base, 'POST', `/pesanan/${data.id}/bayar`, { body: {} }),
      ),
    )
    const statuses = answers.map((answer) => answer.status)
    assert.equal(statuses.filter((status) => status === 200).length, 1)
    assert.equal(statuses.filter((status) => status === 409).length, 19)
  })

  test('20 concurrent creates of one email: exactly one 201', async () => {
    const email = `sama-${randomBytes(4).toString('hex')}@contoh.id`
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        send(base, 'POST', '/users', { body: { name: 'Sama', email, password: 'rahasia123' } }),
      ),
    )
    const statuses = answers.map((answer) => answer.status)
    assert.equal(statuses.filter((status) => status === 201).length, 1)
    assert.equal(statuses.filter((status) => status === 409).length, 19)
  })

  test('per-version counts in the log lines are one sum over both workers', async () => {
    // Until both workers have answered, and at least ten requests in all.
    const ids: string[] = []
    const served = await inRounds(
      async () => {
        const id = `v-${randomBytes(6).toString('hex')}`
        ids.push(id)
        await send(base, 'GET', '/v2/tugas', { id })
        return (await servedBy([id])).values().next().value as number
      },
      (pids) => pids.length >= 10 && new Set(pids).size === 2,
    )
    assert.equal(served.length, ids.length)
    assert.equal((await servedBy(ids)).size, 2)
    const counts = lines
      .filter((line) => ids.includes(String(line.reqId)))
      .map((line) => line.apiVersionCount as number)
      .sort((a, b) => a - b)
    assert.deepEqual(
      counts,
      ids.map((_, i) => i + 1),
    )
  })

  test('SIGKILL of a worker under load: every acknowledged write is kept, the service answers on', async () => {
    const acknowledged: { id: number; title: string }[] = []
    let running = true
    const load = Array.from({ length: 4 }, async (_, loop) => {
      for (let i = 0; running; i++) {
        const title = `Beban ${loop}-${i}`
        try {
          const answer = await send(base, 'POST', '/tugas', { body: { title } })
          if (answer.status === 201) acknowledged.push({ id: JSON.parse(answer.body).id, title })
        } catch {
          // A request on the killed worker's connection: never acknowledged.
        }
      }
    })
    await pause(700)
    const workerPids = [
      ...new Set(lines.filter((line) => line.reqId !== undefined).map((line) => line.pid)),
    ].filter((pid) => pid !== primary) as number[]
    const victim = workerPids[0] as number
    const beforeKill = acknowledged.length
    try {
      process.kill(victim, 'SIGKILL')
      assert.ok(await logged(lines, 'worker died; starting a replacement', 5000), 'death logged')
      assert.ok(await logged(lines, 'replacement worker listening', 15_000), 'replaced')
      await pause(500)
    } finally {
      running = false
      await Promise.all(load)
    }
    assert.ok(beforeKill > 0, 'writes were acknowledged before the kill')
    assert.ok(acknowledged.length > beforeKill + 10, 'and after it')
    const died = lines.find((line) => line.msg === 'worker died; starting a replacement')
    assert.equal(died?.worker, victim)
    assert.equal(died?.signal, 'SIGKILL')
    for (const { id, title } of acknowledged) {
      const read = await send(base, 'GET', `/tugas/${id}`)
      assert.equal(read.status, 200, `task ${id} acknowledged, then lost`)
      assert.equal(JSON.parse(read.body).title, title)
    }
  })

  test('SIGTERM: a request in flight is answered, every worker drains, exit 0', async () => {
    const workers = [
      ...new Set(lines.filter((line) => line.reqId !== undefined).map((line) => line.pid)),
    ].filter((pid) => pid !== primary) as number[]
    // Half a create, then SIGTERM, then the rest: the worker holding it finishes it. The client
    // does not half-close (Node's server aborts a request whose client does).
    const { port } = new URL(base)
    const socket = connect(Number(port), '127.0.0.1')
    await once(socket, 'connect')
    const body = JSON.stringify({ title: 'Selesai saat berhenti' })
    const half = Math.floor(body.length / 2)
    socket.write(
      `POST /tugas HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, half)}`,
    )
    await pause(200)
    child.kill('SIGTERM')
    await pause(400)
    let answer = ''
    socket.on('data', (chunk: Buffer) => {
      answer += chunk
    })
    socket.write(body.slice(half))
    await once(socket, 'close')
    assert.match(answer, /^HTTP\/1\.1 201 Created\r\n/)
    assert.equal((await exited).code, 0)
    assert.ok(
      lines.some(
        (line) => line.msg === 'shutting down: every worker finishes its requests in flight',
      ),
    )
    for (const pid of [primary, ...workers]) {
      assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, `process ${pid} is gone`)
    }
  })
})

describe('WORKERS=2 start-up refusals', () => {
  test('a database that cannot be reached: one line (from the first worker), exit 1', {
    skip,
  }, async () => {
    const { code, stderr } = await exitOf(
      npmStart({
        WORKERS: '2',
        DATABASE_URL: 'postgres://postgres:s3cret@127.0.0.1:1/tugas',
        REDIS_URL,
      }),
    )
    assert.equal(code, 1)
    assert.equal(
      stderr,
      'tugas: DATABASE_URL: cannot use the database at 127.0.0.1:1 (connect ECONNREFUSED 127.0.0.1:1)\n',
    )
  })

  test('without DATABASE_URL and REDIS_URL: one line, exit 1', async () => {
    const { code, stderr } = await exitOf(npmStart({ WORKERS: '2' }))
    assert.equal(code, 1)
    assert.equal(
      stderr,
      'tugas: WORKERS=2 needs both DATABASE_URL and REDIS_URL: every process must share the data and the /laporan buckets\n',
    )
  })
})
