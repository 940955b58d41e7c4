// Credentials managed at run time across instances (decisions.md 10: within one second): two
// apps on one PostgreSQL database, as two processes or machines would be. A credential issued
// on one works on the other; revoked or expired there, it is refused here within a second
// (each instance trusts a credential it found for at most that long).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import { testApp } from './support/helpers.js'
import { freshDatabaseUrl, skipWithoutPostgres } from './support/postgres.js'
import { ADMIN } from './support/supporting.js'

const skip = await skipWithoutPostgres()

describe('credentials on two instances of one database', { skip }, () => {
  const apps: FastifyInstance[] = []
  let databaseUrl: string
  before(async () => {
    databaseUrl = await freshDatabaseUrl()
    for (let i = 0; i < 2; i++) {
      apps.push(await testApp({ config: { databaseUrl }, closedBy: 'caller' }))
    }
  })
  after(async () => {
    for (const app of apps) await app.close()
  })

  const on = (i: number) => apps[i] as FastifyInstance
  const issue = async (body: Record<string, unknown>) => {
    const response = await on(0).inject({
      method: 'POST',
      url: '/kredensial',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    })
    assert.equal(response.statusCode, 201, response.body)
    return response.json().data as { id: number; secret: string }
  }
  const profile = (i: number, secret: string) =>
    on(i).inject({ url: '/profil', headers: { authorization: `Bearer ${secret}` } })

  test('issued on one, accepted by the other; revoked there, refused here within a second', async (t) => {
    const { id, secret } = await issue({ nama: 'dua-proses', peran: 'user' })
    assert.equal((await profile(1, secret)).statusCode, 200)
    assert.equal((await profile(0, secret)).statusCode, 200)
    const revoked = await on(0).inject({
      method: 'DELETE',
      url: `/kredensial/${id}`,
      headers: { authorization: `Bearer ${ADMIN}` },
    })
    assert.equal(revoked.statusCode, 204)
    // The other instance trusts what it found for up to a second: refused within it.
    const started = performance.now()
    let status = 200
    while (status === 200 && performance.now() - started < 3000) {
      status = (await profile(1, secret)).statusCode
      if (status === 200) await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const took = performance.now() - started
    t.diagnostic(`revoked on one instance, refused by the other after ${Math.round(took)} ms`)
    assert.equal(status, 401)
    assert.ok(took <= 1000, `refused after ${Math.round(took)} ms`)
    // The instance that revoked it refuses it at once.
    assert.equal((await profile(0, secret)).statusCode, 401)
  })

  test('a credential found is trusted for up to a second without reading the table again', async () => {
    const { id, secret } = await issue({ nama: 'tersimpan', peran: 'user' })
    assert.equal((await profile(1, secret)).statusCode, 200)
    // Revoked behind the service's back: the instance that found it a moment ago still trusts
    // it, so it did not read the table; within the second it reads it and refuses.
    const db = new pg.Client({ connectionString: databaseUrl })
    await db.connect()
    try {
      await db.query('UPDATE credentials SET revoked_at = now() WHERE id = $1', [id])
    } finally {
      await db.end()
    }
    assert.equal((await profile(1, secret)).statusCode, 200)
    await new Promise((resolve) => setTimeout(resolve, 1000))
    assert.equal((await profile(1, secret)).statusCode, 401)
  })

  test('expired: refused by both from its kedaluwarsa on', async () => {
    const kedaluwarsa = new Date(Date.now() + 1000).toISOString()
    const { secret } = await issue({ nama: 'kedaluwarsa', peran: 'user', kedaluwarsa })
    assert.equal((await profile(1, secret)).statusCode, 200)
    await new Promise((resolve) => setTimeout(resolve, Date.parse(kedaluwarsa) - Date.now() + 50))
    assert.equal((await profile(0, secret)).statusCode, 401)
    assert.equal((await profile(1, secret)).statusCode, 401)
  })
})
