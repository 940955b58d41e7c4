// PostgreSQL for tests: the server this machine runs (TEST_DATABASE_URL, by default the
// `postgres` database on 127.0.0.1:5432 as user postgres). Each test file gets a database of
// its own, and each app or store under test a fresh schema in it, so no test sees another's
// data. Where PostgreSQL cannot be reached the PostgreSQL tests are skipped, loudly; with
// TUGAS_REQUIRE_SERVICES=1 (.ci/run sets it) they fail instead.
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { Database } from '../src/store/postgres/database.js'
import { migrate } from '../src/store/postgres/migrate.js'
import { skipFor } from './services.js'

export const ADMIN_URL =
  process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

let problem: Promise<string | undefined> | undefined

/** Why PostgreSQL cannot be used for tests, or undefined when it can. */
export function postgresProblem(): Promise<string | undefined> {
  problem ??= (async () => {
    // A server that is not there refuses at once; one that is there but busy (every test file
    // of a CI run creating its database at the same time) may take seconds to accept.
    const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 15_000 })
    try {
      await client.connect()
      await client.query('SELECT 1')
      return undefined
    } catch (error) {
      return `PostgreSQL at ${new URL(ADMIN_URL).host} cannot be reached (${(error as Error).message})`
    } finally {
      await client.end().catch(() => {})
    }
  })()
  return problem
}

/** The `skip` option for a suite that needs PostgreSQL (see skipFor). */
export async function skipWithoutPostgres(): Promise<false | string> {
  return skipFor(await postgresProblem(), 'TEST_DATABASE_URL')
}

let fileDatabase: Promise<string> | undefined

/** This test file's own database, made on first use and dropped when the process ends. */
function fileDatabaseUrl(): Promise<string> {
  fileDatabase ??= (async () => {
    const name = `tugas_test_${process.pid}_${randomBytes(4).toString('hex')}`
    const admin = new pg.Client({ connectionString: ADMIN_URL })
    await admin.connect()
    await admin.query(`CREATE DATABASE ${name}`)
    await admin.end()
    let dropped = false
    process.on('beforeExit', () => {
      if (dropped) return
      dropped = true
      const drop = new pg.Client({ connectionString: ADMIN_URL })
      void drop
        .connect()
        .then(() => drop.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
        .finally(() => drop.end())
    })
    const url = new URL(ADMIN_URL)
    url.pathname = `/${name}`
    return url.toString()
  })()
  return fileDatabase
}

let schemas = 0

/**
 * A DATABASE_URL whose tables live in a fresh, empty schema of this file's database: every
 * connection made from it starts with that schema as its search path.
 */
export async function freshDatabaseUrl(): Promise<string> {
  const base = await fileDatabaseUrl()
  const schema = `app_${++schemas}`
  const admin = new pg.Client({ connectionString: base })
  await admin.connect()
  await admin.query(`CREATE SCHEMA ${schema}`)
  await admin.end()
  const url = new URL(base)
  url.searchParams.set('options', `-c search_path=${schema}`)
  return url.toString()
}

/** A migrated, empty database in a fresh schema; closed by the caller. */
export async function freshDatabase(): Promise<Database> {
  const database = new Database({
    url: await freshDatabaseUrl(),
    poolSize: 10,
    statementTimeoutMs: 5000,
  })
  await migrate(database)
  return database
}
