// PostgreSQL behind PgBouncer in transaction pooling mode (docs/operating.md#behind-a-connection-pooler):
// what start-up finds there, and, in the pooler pass (`npm run test:pooler`), that the tests'
// databases really are reached through it, so that the pass's other files prove what they say.
// DATABASE_POOLER, when set, is taken at its word instead of what start-up finds.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { type Config, defaults } from '../src/config.js'
import { createInfrastructure } from '../src/infrastructure.js'
import { demoSeed } from '../src/seed.js'
import { Database } from '../src/store/postgres/database.js'
import {
  type Pgbouncer,
  skipWithoutPgbouncer,
  startPgbouncer,
  THROUGH_POOLER,
} from './support/pgbouncer.js'
import {
  ADMIN_URL,
  freshDirectSchema,
  migratedSchema,
  skipWithoutPostgres,
} from './support/postgres.js'

const skipPostgres = await skipWithoutPostgres()
const skip = skipPostgres || skipWithoutPgbouncer()

/** The statements prepared by name on the one connection of `database` (pool size 1). */
async function namedStatements(database: Database): Promise<number> {
  // In one transaction, so that through a transaction pooler both statements meet the same
  // server connection: the one a named statement was prepared on.
  return database.transaction(async (client) => {
    await client.query('SELECT $1::int AS n', [1])
    // Without values: sent unnamed, so it does not count itself.
    const { rows } = await client.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_prepared_statements',
    )
    return rows[0]?.n ?? -1
  })
}

describe('DATABASE_POOLER=transaction on a direct connection', { skip: skipPostgres }, () => {
  test('taken at its word: statements unnamed, and start-up says so', async () => {
    const { url } = await freshDirectSchema()
    for (const [pooler, expected] of [
      [undefined, false],
      ['transaction', true],
    ] as const) {
      const database = new Database({ url, poolSize: 1, statementTimeoutMs: 5000, pooler })
      try {
        assert.deepEqual(await database.start(), { pooler: expected }, `pooler ${pooler}`)
        const named = await namedStatements(database)
        assert.ok(expected ? named === 0 : named > 0, `pooler ${pooler}: ${named} named`)
      } finally {
        await database.close()
      }
    }
    const config = { ...defaults, logLevel: 'silent' as const, databaseUrl: url }
    const infrastructure = await infrastructureWithin({ ...config, databasePooler: 'transaction' })
    try {
      // As behind a pooler: the timeout warned about, and no LISTEN on DATABASE_URL.
      const [timeout, listener, ...more] = infrastructure.warnings
      assert.match(timeout ?? '', /^DATABASE_URL: a connection pooler, which does not pass/)
      assert.match(listener ?? '', /^DATABASE_URL: a connection pooler and no DATABASE_DIRECT_URL/)
      assert.deepEqual(more, [])
    } finally {
      await infrastructure.close()
    }
  })
})

/**
 * createInfrastructure with the demo seed, tried again when no connection could be had in the
 * service's 2 s: a machine busy with other test processes can take longer to accept one (as
 * migrateWithin in test/support/postgres.ts).
 */
async function infrastructureWithin(config: Config) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await createInfrastructure(config, demoSeed)
    } catch (error) {
      if (attempt === 3 || !/connection timeout/.test((error as Error).message)) throw error
    }
  }
}

describe('PostgreSQL through PgBouncer in transaction pooling mode', { skip }, () => {
  let pgbouncer: Pgbouncer
  let url: string

  before(async () => {
    pgbouncer = await startPgbouncer(ADMIN_URL)
    const { database, schema } = await freshDirectSchema()
    url = await pgbouncer.urlFor(database, schema)
  })
  after(() => pgbouncer.stop())

  /**
   * Starts the stores on `at` twice, one after the other, writing a task each time; the change
   * feed listens on `direct` when given.
   */
  async function startTwice(at: string, direct?: string) {
    const config = {
      ...defaults,
      logLevel: 'silent' as const,
      databaseUrl: at,
      databaseDirectUrl: direct,
    }
    for (const title of ['pertama', 'kedua']) {
      const infrastructure = await infrastructureWithin(config)
      try {
        const [timeout, listener, ...more] = infrastructure.warnings
        assert.match(
          timeout ?? '',
          /^DATABASE_URL: a connection pooler, which does not pass statement_timeout on/,
        )
        if (direct === undefined) {
          assert.match(
            listener ?? '',
            /^DATABASE_URL: a connection pooler and no DATABASE_DIRECT_URL/,
          )
        } else {
          assert.equal(listener, undefined)
        }
        assert.deepEqual(more, [])
        // The change feed hears the writes either way: told through LISTEN, or reading.
        let heard = 0
        const stop = infrastructure.stores.events.subscribe((events) => {
          heard += events.length
        })
        await Promise.all(
          Array.from({ length: 20 }, () =>
            infrastructure.stores.tugas.create({ title, status: 'belum' }),
          ),
        )
        for (let waited = 0; heard < 20; waited += 10) {
          assert.ok(waited < 5000, `the feed heard ${heard} of 20 events`)
          await new Promise((resolve) => setTimeout(resolve, 10))
        }
        stop()
      } finally {
        await infrastructure.close()
      }
    }
    const infrastructure = await infrastructureWithin(config)
    try {
      const tasks = await infrastructure.stores.tugas.all()
      assert.equal(tasks.length, demoSeed.tugas.length + 40)
    } finally {
      await infrastructure.close()
    }
  }

  test('start-up and a restart go on without the statement timeout it refuses, and say so', () =>
    startTwice(url))

  test('with DATABASE_DIRECT_URL the change feed listens there, and says nothing', async () => {
    const { database, schema, url: direct } = await freshDirectSchema()
    await startTwice(await pgbouncer.urlFor(database, schema), direct)
  })

  test('a pooler that drops the statement timeout silently is found all the same', async () => {
    const dropping = await startPgbouncer(ADMIN_URL, {
      ignoreStartupParameters: ['statement_timeout'],
    })
    try {
      const { database, schema } = await freshDirectSchema()
      await startTwice(await dropping.urlFor(database, schema))
    } finally {
      await dropping.stop()
    }
  })

  test('20 statements at once on a new pool all succeed while it finds that out', async () => {
    const database = new Database({ url, poolSize: 10, statementTimeoutMs: 5000 })
    try {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          database.query<{ n: number }>('SELECT $1::int AS n', [i]),
        ),
      )
      assert.deepEqual(
        answers.map(({ rows }) => rows[0]?.n),
        Array.from({ length: 20 }, (_, i) => i),
      )
      assert.deepEqual(await database.start(), { pooler: true })
    } finally {
      await database.close()
    }
  })

  test('DATABASE_POOLER=none through it: taken at its word, statements named', async () => {
    const database = new Database({ url, poolSize: 1, statementTimeoutMs: 5000, pooler: 'none' })
    try {
      assert.deepEqual(await database.start(), { pooler: false })
      assert.ok((await namedStatements(database)) > 0)
    } finally {
      await database.close()
    }
  })

  test('on a direct connection the server takes the statement timeout', async () => {
    const database = new Database({
      url: (await freshDirectSchema()).url,
      poolSize: 1,
      statementTimeoutMs: 1234,
    })
    try {
      assert.deepEqual(await database.start(), { pooler: false })
      const { rows } = await database.query<{ t: string }>('SELECT current_setting($1) AS t', [
        'statement_timeout',
      ])
      assert.equal(rows[0]?.t, '1234ms')
    } finally {
      await database.close()
    }
  })

  test('in the pooler pass, the databases the tests lease are reached through PgBouncer', {
    skip: !THROUGH_POOLER && 'not the pooler pass',
  }, async () => {
    const lease = await migratedSchema()
    try {
      const database = new Database({ url: lease.url, poolSize: 1, statementTimeoutMs: 5000 })
      try {
        const { rows } = await database.query<{ port: number }>(
          'SELECT inet_server_port() AS port',
          [],
        )
        // The server is where the admin URL points; the lease's URL is the pooler's port.
        assert.equal(String(rows[0]?.port), new URL(ADMIN_URL).port || '5432')
        assert.notEqual(new URL(lease.url).port, new URL(ADMIN_URL).port || '5432')
        assert.deepEqual(await database.start(), { pooler: true })
      } finally {
        await database.close()
      }
    } finally {
      await lease.release()
    }
  })
})
