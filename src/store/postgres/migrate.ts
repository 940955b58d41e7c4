import { fileURLToPath } from 'node:url'
import Postgrator from 'postgrator'
import type { Database, Queryable } from './database.js'

/** The versioned SQL migrations, shipped with the package beside `src/` and `dist/`. */
const MIGRATIONS = fileURLToPath(new URL('../../../migrations/*.sql', import.meta.url))

/**
 * One key for every start-up step that must not run twice at once (migrations, the seed), so
 * that several processes starting together take turns: pg_advisory_xact_lock(key).
 */
export const START_UP_LOCK = 7_265_738_401

/**
 * How long a start-up step may wait for the lock and then take, in place of a request's
 * statement timeout: processes starting together on a loaded machine wait their turns for
 * longer than a request may (docs/operating.md#running-several-processes).
 */
export const START_UP_WAIT_MS = 120_000

/**
 * Runs `work` in one transaction under the start-up lock, each of its statements bounded by
 * START_UP_WAIT_MS on the server and in the driver.
 */
export function underStartUpLock<T>(
  database: Database,
  work: (client: Queryable) => Promise<T>,
): Promise<T> {
  return database.transaction(async (client) => {
    const waitMs = START_UP_WAIT_MS + 1000
    const patient: Queryable = {
      query: (text, values, options) => client.query(text, values, { waitMs, ...options }),
      transaction: (nested) => nested(patient),
    }
    await patient.query(`SET LOCAL statement_timeout = ${START_UP_WAIT_MS}`)
    await patient.query('SELECT pg_advisory_xact_lock($1)', [START_UP_LOCK])
    return work(patient)
  })
}

/**
 * Brings the schema to the newest version, in one transaction under the start-up lock: a
 * process that starts while another migrates waits, then finds nothing left to do, and a
 * failed migration leaves the schema as it was. Returns the versions applied. `target`, a
 * version such as '006', stops there (for the tests of a migration's data).
 */
export async function migrate(database: Database, target?: string): Promise<number[]> {
  return underStartUpLock(database, async (client) => {
    const { rows } = await client.query<{ db: string; schema: string }>(
      'SELECT current_database() AS db, current_schema() AS schema',
    )
    const { db, schema } = rows[0] as { db: string; schema: string }
    const postgrator = new Postgrator({
      migrationPattern: MIGRATIONS,
      driver: 'pg',
      database: db,
      // Look for the version table in this schema only (a database may hold several).
      currentSchema: schema,
      schemaTable: 'schemaversion',
      execQuery: (query) => client.query(query),
    })
    const applied = await postgrator.migrate(target)
    return applied.map((migration) => migration.version)
  })
}
