// How long a statement is waited for: the statement timeout, which the server enforces, plus
// 1 s; or longer where a statement asks for it (`waitMs`: the counted buckets' rebuild, which
// counts every task) in a transaction that lifts the server's timeout.
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import { Database } from '../../src/store/postgres/database.js'
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
})
