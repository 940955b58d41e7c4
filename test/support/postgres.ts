// PostgreSQL for tests: the server this machine runs (TEST_DATABASE_URL, by default the
// `postgres` database on 127.0.0.1:5432 as user postgres). Each test file gets a database of
// its own, and each app or store under test a schema in it that no other open app or store
// uses, migrated and empty (a schema is emptied and handed on when its app closes), so no test
// sees another's data. Where PostgreSQL cannot be reached the PostgreSQL tests are skipped, loudly; with
// TUGAS_REQUIRE_SERVICES=1 (.ci/run sets it) they fail instead.
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { Database } from '../../src/store/postgres/database.js'
import { migrate } from '../../src/store/postgres/migrate.js'
import { ServiceUnavailableError } from '../../src/store/unavailable.js'
import { processPgbouncer, THROUGH_POOLER } from './pgbouncer.js'
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
      void adminPool?.end().catch(() => {})
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
 * A fresh, empty schema of this file's database: its name and a URL that works in it (through
 * PgBouncer in the pooler pass, unless `direct`).
 */
async function newSchema(direct = false): Promise<{ schema: string; url: string }> {
  const base = await fileDatabaseUrl()
  const schema = `app_${++schemas}`
  const admin = new pg.Client({ connectionString: base })
  await admin.connect()
  await admin.query(`CREATE SCHEMA ${schema}`)
  await admin.end()
  return { schema, url: await schemaUrl(base, schema, direct) }
}

/**
 * A URL of the database `base` names whose connections start in `schema`: its search path in
 * the connection's options, or, through PgBouncer (which passes no options), a database name
 * of the pooler's own for that schema.
 */
async function schemaUrl(base: string, schema: string, direct = false): Promise<string> {
  const url = new URL(base)
  if (THROUGH_POOLER && !direct) {
    return (await processPgbouncer(ADMIN_URL)).urlFor(url.pathname.slice(1), schema)
  }
  url.searchParams.set('options', `-c search_path=${schema}`)
  return url.toString()
}

/**
 * A DATABASE_URL whose tables live in a fresh, empty schema of this file's database: every
 * connection made from it starts with that schema as its search path. For tests of what the
 * service does with a database it has never seen (migrating it, several processes starting on
 * it); an app or stores that only need an empty migrated schema take `migratedSchema()`.
 */
export async function freshDatabaseUrl(): Promise<string> {
  return (await newSchema()).url
}

/**
 * A fresh, empty schema: its DATABASE_URL as freshDatabaseUrl gives it, and the same schema on
 * a direct connection in every pass (a DATABASE_DIRECT_URL, for LISTEN).
 */
export async function freshSchemaUrls(): Promise<{ url: string; directUrl: string }> {
  const { schema } = await newSchema(true)
  const base = await fileDatabaseUrl()
  return { url: await schemaUrl(base, schema), directUrl: await schemaUrl(base, schema, true) }
}

/** A fresh, empty schema as freshDatabaseUrl gives it, on a direct connection in every pass. */
export async function freshDirectSchema(): Promise<{
  database: string
  schema: string
  url: string
}> {
  const { schema, url } = await newSchema(true)
  return { database: new URL(url).pathname.slice(1), schema, url }
}

/** A migrated schema for one app or one set of stores, given back once they are closed. */
export interface SchemaLease {
  /** A DATABASE_URL whose search path is the schema. */
  url: string
  /** The same on a direct connection in every pass: a DATABASE_DIRECT_URL (LISTEN). */
  directUrl: string
  /** Empties the schema for the next lease; call once its connections are closed. Never throws. */
  release(): Promise<void>
}

/** What a freshly migrated schema holds, to bring a used one back to it. */
interface Pristine {
  /** The schema's definition (tables, columns, constraints, indexes, triggers, functions). */
  shape: string
  /** Every table, each after the tables whose rows it references (the order to empty them). */
  tables: string[]
  /** The rows the migrations left (schemaversion, tugas_count), as JSON, by table. */
  rows: Map<string, string>
  /** Each sequence (the identity columns') and its start. */
  sequences: { name: string; start: string }[]
}

/** One line per object of the schema; equal for two schemas made by the same migrations. */
const SHAPE = `
  SELECT string_agg(line, E'\\n' ORDER BY line) AS shape FROM (
    SELECT concat_ws(' ', 'rel', c.relname, c.relkind) FROM pg_class c
      WHERE c.relnamespace = $1::regnamespace
    UNION ALL SELECT concat_ws(' ', 'col', c.relname, a.attname,
        format_type(a.atttypid, a.atttypmod), a.attnotnull, a.attidentity,
        pg_get_expr(d.adbin, d.adrelid))
      FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
      LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      WHERE c.relnamespace = $1::regnamespace AND a.attnum > 0 AND NOT a.attisdropped
    UNION ALL SELECT concat_ws(' ', 'con', c.relname, k.conname, pg_get_constraintdef(k.oid))
      FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
      WHERE k.connamespace = $1::regnamespace
    UNION ALL SELECT concat_ws(' ', 'idx', pg_get_indexdef(i.indexrelid)) FROM pg_index i
      JOIN pg_class c ON c.oid = i.indrelid WHERE c.relnamespace = $1::regnamespace
    UNION ALL SELECT concat_ws(' ', 'trg', c.relname, pg_get_triggerdef(t.oid), t.tgenabled)
      FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
      WHERE c.relnamespace = $1::regnamespace AND NOT t.tgisinternal
    UNION ALL SELECT concat_ws(' ', 'fn', p.proname, md5(p.prosrc)) FROM pg_proc p
      WHERE p.pronamespace = $1::regnamespace
    UNION ALL SELECT concat_ws(' ', 'seq', s.relname, q.seqstart, q.seqincrement, q.seqmax,
        q.seqmin, q.seqcycle)
      FROM pg_sequence q JOIN pg_class s ON s.oid = q.seqrelid
      WHERE s.relnamespace = $1::regnamespace
  ) lines (line)`

/** Schemas migrated and emptied, ready for the next lease. */
const spares: string[] = []
let pristine: Promise<Pristine> | undefined
let adminPool: pg.Pool | undefined

/** Connections to this file's database for readying schemas; they never hold the process up. */
async function admin(): Promise<pg.Pool> {
  const base = await fileDatabaseUrl()
  if (adminPool === undefined) {
    const pool = new pg.Pool({ connectionString: base, max: 2, allowExitOnIdle: true })
    // The file's database is dropped, connections and all, when the process ends.
    pool.on('error', () => {})
    adminPool = pool
  }
  return adminPool
}

/**
 * The shape of `schema`, read with it as the search path (so that no definition names it, and
 * two schemas of the same migrations read the same). An index's definition names its table's
 * schema whatever the search path: that name is taken out (before, no schema but the first
 * ever matched the first's shape, so none was used twice).
 */
async function shapeOf(client: pg.PoolClient, schema: string): Promise<string> {
  await client.query(`SET LOCAL search_path TO ${pg.escapeIdentifier(schema)}`)
  const { rows } = await client.query<{ shape: string }>(SHAPE, [schema])
  return (rows[0]?.shape ?? '').replaceAll(` ON ${schema}.`, ' ON ')
}

/** Runs `work` in a transaction on one connection of `pool`. */
async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>) {
  const client = await pool.connect()
  try {
    await client.query('BEGIN')
    const result = await work(client)
    await client.query('COMMIT')
    return result
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    throw error
  } finally {
    client.release()
  }
}

/** What the freshly migrated `schema` holds. */
async function pristineOf(schema: string): Promise<Pristine> {
  const pool = await admin()
  const { rows: tableRows } = await pool.query<{ name: string }>(
    `SELECT relname AS name FROM pg_class WHERE relnamespace = $1::regnamespace
       AND relkind IN ('r', 'p') ORDER BY relname`,
    [schema],
  )
  const { rows: references } = await pool.query<{ child: string; parent: string }>(
    `SELECT c.relname AS child, p.relname AS parent FROM pg_constraint k
       JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
       WHERE k.contype = 'f' AND k.connamespace = $1::regnamespace AND c.oid <> p.oid`,
    [schema],
  )
  // Children first: a table is emptied once no table left to empty references it.
  let left = tableRows.map((row) => row.name)
  const tables: string[] = []
  while (left.length > 0) {
    const next = left.filter(
      (table) => !references.some((r) => r.parent === table && left.includes(r.child)),
    )
    if (next.length === 0) throw new Error(`a cycle of foreign keys among ${left.join(', ')}`)
    tables.push(...next)
    left = left.filter((table) => !next.includes(table))
  }
  const rows = new Map<string, string>()
  for (const table of tables) {
    const { rows: held } = await pool.query<{ rows: unknown[] | null }>(
      `SELECT json_agg(t) AS rows FROM ${schema}.${pg.escapeIdentifier(table)} t`,
    )
    const content = held[0]?.rows
    if (content) rows.set(table, JSON.stringify(content))
  }
  const { rows: sequences } = await pool.query<{ name: string; start: string }>(
    `SELECT s.relname AS name, q.seqstart::text AS start FROM pg_sequence q
       JOIN pg_class s ON s.oid = q.seqrelid WHERE s.relnamespace = $1::regnamespace`,
    [schema],
  )
  const shape = await inTransaction(pool, (client) => shapeOf(client, schema))
  return { shape, tables, rows, sequences }
}

/**
 * Migrates the schema at `url`, trying again when the connection could not be had in time: a
 * machine busy with the other test processes (the pooler pass, where PgBouncer opens a server
 * connection before it lets a client in) can take longer than the service's 2 s to connect.
 */
async function migrateWithin(url: string): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    const database = new Database({ url, poolSize: 1, statementTimeoutMs: 10_000 })
    try {
      await migrate(database)
      return
    } catch (error) {
      if (!(error instanceof ServiceUnavailableError) || attempt === 3) throw error
    } finally {
      await database.close()
    }
  }
}

/**
 * A migrated schema of this file's database, with no data but what the migrations left, for
 * one app or one set of stores: a schema given back by an earlier lease and emptied, or a new
 * one migrated now. A file so migrates as many schemas as it has apps open at once, not one
 * per app (the migration is most of the time it takes to build an app on PostgreSQL).
 */
export async function migratedSchema(): Promise<SchemaLease> {
  let schema = spares.pop()
  let url: string
  if (schema === undefined) {
    const made = await newSchema()
    schema = made.schema
    url = made.url
    await migrateWithin(url)
    pristine ??= pristineOf(schema)
    await pristine
  } else {
    url = await schemaUrl(await fileDatabaseUrl(), schema)
  }
  let released = false
  const leased = schema
  return {
    url,
    directUrl: await schemaUrl(await fileDatabaseUrl(), schema, true),
    async release() {
      if (released) return
      released = true
      if (await emptied(leased)) spares.push(leased)
    },
  }
}

/**
 * Brings a schema whose connections are closed back to what its migrations left: every row
 * deleted and the migrations' rows put back, every identity restarted. False, and the schema
 * is never used again, when that cannot be done (a lock still held, or its tables changed).
 */
async function emptied(schema: string): Promise<boolean> {
  try {
    const { shape, tables, rows, sequences } = await (pristine as Promise<Pristine>)
    const table = (name: string) => `${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(name)}`
    const statements = [
      "SET LOCAL lock_timeout = '5s'",
      // No trigger fires: every table is set back as it is, the counts and pending rows the
      // task list's triggers would write included.
      "SET LOCAL session_replication_role = 'replica'",
      ...tables.map((name) => `DELETE FROM ${table(name)}`),
      ...[...rows].map(
        ([name, json]) =>
          `INSERT INTO ${table(name)} OVERRIDING SYSTEM VALUE
             SELECT * FROM json_populate_recordset(NULL::${table(name)}, ${pg.escapeLiteral(json)})`,
      ),
      ...sequences.map(
        ({ name, start }) => `SELECT setval(${pg.escapeLiteral(table(name))}, ${start}, false)`,
      ),
    ]
    return await inTransaction(await admin(), async (client) => {
      // The search path is the schema's too: its trigger functions name its tables unqualified.
      if ((await shapeOf(client, schema)) !== shape) return false
      await client.query(statements.join(';\n'))
      return true
    })
  } catch {
    return false
  }
}

/**
 * A migrated, empty database in a schema of its own (see migratedSchema); closed by the
 * caller, which gives the schema back.
 */
export async function freshDatabase(): Promise<Database> {
  const lease = await migratedSchema()
  const database = new Database({ url: lease.url, poolSize: 10, statementTimeoutMs: 5000 })
  const close = database.close.bind(database)
  database.close = async () => {
    await close()
    await lease.release()
  }
  return database
}
