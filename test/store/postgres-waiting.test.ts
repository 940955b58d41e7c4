// How long a statement is waited for: the statement timeout, which the server enforces, plus
// 1 s; or longer where a statement asks for it (`waitMs`: the counted buckets' rebuild, which
// counts every task) in a transaction that lifts the server's timeout. And start-up, which waits
// its turn for the start-up lock past a request's timeout (docs/operating.md#running-several-processes).
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import { defaults } from '../../src/config.js'
import { createInfrastructure } from '../../src/infrastructure.js'
import { demoSeed } from '../../src/seed.js'
import { Database } from '../../src/store/postgres/database.js'
import { START_UP_LOCK } from '../../src/store/postgres/migrate.js'
import { ServiceUnavailableError } from '../../src/store/unavailable.js'
import { freshDatabaseUrl, skipWithoutPostgres } from '../support/postgres.js'

const skip = await skipWithoutPostgres()

describe('waiting for a statement', { skip }, () => {
  test('past the timeout plus 1 s a statement is given up on, unless it asked to be waited for', async () => {
    const database = new Database({
      url: await freshDatabaseUrl(),
      poolSize: 2,
      // Long enough that BEGIN and SET LOCAL are never the statements cancelled on a slow machine.
      statementTimeoutMs: 250,
    })
    after(() => database.close())
    const sleep = 'SELECT pg_sleep(2)'
    const lifted = (options?: { waitMs: number }) =>
      database.transaction(async (client) => {
        await client.query('SET LOCAL statement_timeout = 0')
        return client.query(sleep, undefined, options)
      })
    // The server cancels it at 250 ms.
    await assert.rejects(database.query(sleep), ServiceUnavailableError)
    // With the server's timeout lifted, the driver still gives up at 250 ms + 1 s.
    await assert.rejects(lifted(), ServiceUnavailableError)
    // Asked for, it is waited for.
    assert.equal((await lifted({ waitMs: 10_000 })).rowCount, 1)
  })

  test('start-up waits past the statement timeout for a migration in another process', async () => {
    const url = await freshDatabaseUrl()
    const other = new Database({ url, poolSize: 1, statementTimeoutMs: 5000 })
    after(() => other.close())
    // Another process holds the start-up lock for 1.5 s, six times the timeout below.
    let locked = () => {}
    const taken = new Promise<void>((resolve) => {
      locked = resolve
    })
    let releasedAt = 0
    const holding = other.transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [START_UP_LOCK])
      locked()
      await new Promise((resolve) => setTimeout(resolve, 1500))
      releasedAt = performance.now()
    })
    await taken
    const config = { ...defaults, databaseUrl: url, databaseStatementTimeoutMs: 250 }
    const started = await createInfrastructure(config, demoSeed)
    const startedAt = performance.now()
    after(() => started.close())
    await holding
    assert.ok(startedAt >= releasedAt, 'started once the other let go of the lock')
    assert.equal(started.seed, 'loaded')
  })
})

describe('a transaction whose process stalls', { skip }, () => {
  test('is ended by the server once idle past the statement timeout: its locks go to the next, it gets 503', async () => {
    const url = await freshDatabaseUrl()
    const stalling = new Database({ url, poolSize: 1, statementTimeoutMs: 300 })
    const next = new Database({ url, poolSize: 1, statementTimeoutMs: 3000 })
    after(() => Promise.all([stalling.close(), next.close()]))
    const lock = 'SELECT pg_advisory_xact_lock(7265738401)'
    let locked = () => {}
    const taken = new Promise<void>((resolve) => {
      locked = resolve
    })
    let wokeAt = 0
    // Its connection idle inside the transaction, as when the process is stopped between two
    // statements, for ten times the timeout.
    const stalled = stalling.transaction(async (client) => {
      await client.query(lock)
      locked()
      await new Promise((resolve) => setTimeout(resolve, 3000))
      wokeAt = performance.now()
      await client.query('SELECT 1')
    })
    await taken
    await next.transaction((client) => client.query(lock))
    const gotAt = performance.now()
    await assert.rejects(stalled, ServiceUnavailableError)
    assert.ok(gotAt < wokeAt, 'the lock was taken while the stalled process still slept')
  })
})
