import pg from 'pg'
import { ServiceUnavailableError } from '../unavailable.js'
import { isUnavailable } from './errors.js'

export interface DatabaseOptions {
  url: string
  poolSize: number
  statementTimeoutMs: number
}

// Ids and counts are bigint columns kept within the safe integers: numbers, not strings.
const INT8 = 20
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8) return (value: string) => Number(value)
    return pg.types.getTypeParser(oid, format)
  },
} as pg.CustomTypesConfig

/** A pool's connections: open (idle or in use), open and idle, and requests waiting for one. */
export interface PoolStats {
  total: number
  idle: number
  waiting: number
}

/** Something that runs a statement: the pool, or one client inside a transaction. */
export interface Queryable {
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>
  /**
   * Runs `work` in one transaction: committed when it resolves, rolled back when it throws.
   * Inside a transaction already, `work` runs in that one (it commits or rolls back with it).
   */
  transaction<T>(work: (client: Queryable) => Promise<T>): Promise<T>
}

/**
 * Statements against PostgreSQL through a pool. A statement the database cannot serve now
 * (unreachable, restarting, over its statement timeout) fails as ServiceUnavailableError, which
 * every surface answers 503; any other failure is a bug and propagates as it is.
 */
export class Database implements Queryable {
  #pool: pg.Pool

  #options: DatabaseOptions
  /** Pools given up for one without `statement_timeout` (see `#onPool`). */
  readonly #retired: pg.Pool[] = []
  /** Whether the server takes `statement_timeout` as a connection parameter (see `#onPool`). */
  #serverTimeout = true

  constructor(options: DatabaseOptions) {
    this.#options = options
    this.#pool = this.#newPool()
  }

  #newPool(): pg.Pool {
    const { url, poolSize, statementTimeoutMs } = this.#options
    const pool = new pg.Pool({
      connectionString: url,
      max: poolSize,
      types,
      // Never wait forever for a connection, nor for a statement.
      connectionTimeoutMillis: 2000,
      ...(this.#serverTimeout && { statement_timeout: statementTimeoutMs }),
      query_timeout: statementTimeoutMs + 1000,
      application_name: 'tugas',
    })
    // An idle connection that dies (the database restarts) must not kill the process; the
    // pool drops it and the next statement opens another.
    pool.on('error', () => {})
    return pool
  }

  /**
   * Runs `run` on the pool. A connection pooler that refuses `statement_timeout` as a
   * connection parameter (PgBouncer does) gets, from then on, connections without it: the
   * pooler's or the role's own timeout applies (docs/operating.md#behind-a-connection-pooler).
   * Found on the first connection, so it costs nothing afterwards.
   */
  async #onPool<T>(run: (pool: pg.Pool) => Promise<T>): Promise<T> {
    const pool = this.#pool
    try {
      return await unavailableAs(() => run(pool))
    } catch (error) {
      if (!refusedParameter(error, 'statement_timeout')) throw error
      if (this.#pool === pool) {
        this.#serverTimeout = false
        this.#pool = this.#newPool()
        // Ended with the database: statements waiting for one of its connections fail here
        // as this one did, and go on to the new pool.
        this.#retired.push(pool)
      }
      return unavailableAs(() => run(this.#pool))
    }
  }

  /** Opens a first connection; whether the server took the service's statement timeout. */
  async start(): Promise<{ statementTimeout: boolean }> {
    await this.#onPool((pool) => pool.query('SELECT 1'))
    return { statementTimeout: this.#serverTimeout }
  }

  get pool(): pg.Pool {
    return this.#pool
  }

  /** The pool's connections now (metrics): open, open and idle, and statements waiting. */
  poolStats(): PoolStats {
    const pool = this.#pool
    return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }
  }

  async query<R extends pg.QueryResultRow>(text: string, values?: unknown[]) {
    return this.#onPool((pool) => pool.query<R>(prepared(text, values)))
  }

  /**
   * Runs `work` in one transaction on one connection: committed when it resolves, rolled back
   * when it throws.
   */
  async transaction<T>(work: (client: Queryable) => Promise<T>): Promise<T> {
    const client = await this.#onPool((pool) => pool.connect())
    const inTransaction: Queryable = {
      query: (text, values) => unavailableAs(() => client.query(prepared(text, values))),
      transaction: (nested) => nested(inTransaction),
    }
    let broken: Error | undefined
    try {
      await inTransaction.query('BEGIN')
      const result = await work(inTransaction)
      await inTransaction.query('COMMIT')
      return result
    } catch (error) {
      broken = error as Error
      await client.query('ROLLBACK').catch(() => {})
      throw error
    } finally {
      // A connection that failed mid-transaction is not handed out again.
      client.release(broken instanceof ServiceUnavailableError ? broken : undefined)
    }
  }

  /** Whether the database answers now. */
  async ping(): Promise<boolean> {
    try {
      await this.query('SELECT 1')
      return true
    } catch {
      return false
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.#pool, ...this.#retired].map((pool) => pool.end()))
  }
}

/**
 * A statement with values as an unnamed prepared statement, parsed and planned each time it is
 * sent: a named one lives on one server connection, which a transaction-pooling proxy hands to
 * another client after each transaction (docs/operating.md#behind-a-connection-pooler). A text
 * without values (`BEGIN`, the schema's several commands at once) goes by the simple protocol,
 * which takes several commands.
 */
function prepared(text: string, values: unknown[] | undefined): pg.QueryConfig {
  return values === undefined ? { text } : { text, values }
}

/** Whether the server refused to open a connection with `parameter` among its settings. */
function refusedParameter(error: unknown, parameter: string): boolean {
  const cause = error instanceof ServiceUnavailableError ? error.cause : error
  const { code, message } = (cause ?? {}) as { code?: string; message?: string }
  return (
    code === '08P01' && message?.includes(`unsupported startup parameter: ${parameter}`) === true
  )
}

async function unavailableAs<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (error) {
    if (isUnavailable(error)) throw new ServiceUnavailableError('postgres', { cause: error })
    throw error
  }
}
