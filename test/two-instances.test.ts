// Two instances of the service on two ports, one PostgreSQL database and one Redis between
// them (decisions.md 7, "Atomicity across processes"): each is a whole app with its own pool
// and Redis connection, as a second process or machine would be. What one writes the other
// reads, and the atomic steps hold across both.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { testApp } from './support/helpers.js'
import { freshDatabaseUrl, skipWithoutPostgres } from './support/postgres.js'
import { freshPrefix, REDIS_URL, skipWithoutRedis } from './support/redis.js'

const skip = (await skipWithoutPostgres()) || (await skipWithoutRedis())

describe('two instances on one database and one Redis', { skip }, () => {
  // A credential of this run only, so no other test's bucket shares its Redis key.
  const secret = `two-instances-${randomBytes(6).toString('hex')}`
  const apps: FastifyInstance[] = []
  const bases: string[] = []

  before(async () => {
    const databaseUrl = await freshDatabaseUrl()
    for (let i = 0; i < 2; i++) {
      const app = await testApp({
        config: { databaseUrl, redisUrl: REDIS_URL },
        seed: { credentials: { [secret]: { nama: 'operator', peran: 'admin' } } },
        closedBy: 'caller',
      })
      await app.listen({ host: '127.0.0.1', port: 0 })
      apps.push(app)
      bases.push(`http://127.0.0.1:${(app.server.address() as { port: number }).port}`)
    }
  })

  after(async () => {
    for (const app of apps) await app.close()
  })

  /** `path` on instance `i % 2`. */
  const on = (i: number, path: string, init?: RequestInit) => fetch(`${bases[i % 2]}${path}`, init)
  const json = (body: unknown): RequestInit => ({
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

  test('a task created on one is read, replaced and deleted on the other', async () => {
    const created = await on(0, '/tugas', json({ title: 'Dibuat di satu', status: 'belum' }))
    assert.equal(created.status, 201)
    const task = (await created.json()) as { id: number }
    const read = await on(1, `/tugas/${task.id}`)
    assert.deepEqual(await read.json(), { id: task.id, title: 'Dibuat di satu', status: 'belum' })
    const replaced = await on(1, `/tugas/${task.id}`, {
      ...json({ title: 'Diganti di dua', status: 'selesai' }),
      method: 'PUT',
    })
    assert.equal(replaced.status, 200)
    assert.deepEqual(await (await on(0, `/tugas/${task.id}`)).json(), {
      id: task.id,
      title: 'Diganti di dua',
      status: 'selesai',
    })
    assert.equal((await on(1, `/tugas/${task.id}`, { method: 'DELETE' })).status, 204)
    assert.equal((await on(0, `/tugas/${task.id}`)).status, 404)
  })

  test('a burst on one key spread over both admits exactly the capacity', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => on(i, '/laporan', { headers: { 'x-api-key': secret } })),
    ).then((answers) => answers.map((answer) => answer.status))
    assert.equal(statuses.filter((status) => status === 200).length, 3)
    assert.equal(statuses.filter((status) => status === 429).length, 7)
  })

  test('20 concurrent payments of one order spread over both: exactly one 200', async () => {
    const created = await on(0, '/pesanan', json({ email: 'budi@contoh.id', jumlah: 2 }))
    assert.equal(created.status, 201)
    const { data } = (await created.json()) as { data: { id: number } }
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => on(i, `/pesanan/${data.id}/bayar`, json({}))),
    )
    const statuses = answers.map((answer) => answer.status)
    assert.equal(statuses.filter((status) => status === 200).length, 1)
    assert.equal(statuses.filter((status) => status === 409).length, 19)
  })

  test('20 concurrent creates of one email spread over both: exactly one 201', async () => {
    const email = `sama-${randomBytes(4).toString('hex')}@contoh.id`
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        on(i, '/users', json({ name: 'Sama', email, password: 'rahasia123' })),
      ),
    )
    const statuses = answers.map((answer) => answer.status)
    assert.equal(statuses.filter((status) => status === 201).length, 1)
    assert.equal(statuses.filter((status) => status === 409).length, 19)
  })
})

describe('per-version counts over two instances', { skip }, () => {
  test('each versioned request is counted once, in one sum over both (Redis)', async () => {
    const databaseUrl = await freshDatabaseUrl()
    const redisKeyPrefix = freshPrefix()
    const logs: Record<string, unknown>[][] = [[], []]
    const apps = await Promise.all(
      logs.map((lines) =>
        testApp({
          config: { databaseUrl, redisUrl: REDIS_URL, redisKeyPrefix, tugasVersioning: 'path' },
          logs: lines,
        }),
      ),
    )
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        apps[i % 2]?.inject({ method: 'GET', url: i % 3 === 0 ? '/v1/tugas' : '/v2/tugas' }),
      ),
    )
    assert.ok(answers.every((answer) => answer?.statusCode === 200))
    // A line is written once Redis has counted its request.
    const counted = () => logs.flat().filter((line) => line.apiVersion !== undefined)
    for (let i = 0; i < 100 && counted().length < 12; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    const countsOf = (version: string) =>
      counted()
        .filter((line) => line.apiVersion === version)
        .map((line) => line.apiVersionCount)
        .sort((a, b) => Number(a) - Number(b))
    assert.deepEqual(countsOf('tugas v1'), [1, 2, 3, 4])
    assert.deepEqual(countsOf('tugas v2'), [1, 2, 3, 4, 5, 6, 7, 8])
    assert.ok(logs.every((lines) => lines.some((line) => line.apiVersion !== undefined)))
  })
})
