import pg from 'pg'
import { ServiceUnavailableError } from '../unavailable.js'
import { isUnavailable } from './errors.js'

export interface DatabaseOptions {
  url: string
  poolSize: number
  statementTimeoutMs: number
  /**
   * What `url` reaches, as the operator says (DATABASE_POOLER): a transaction-pooling proxy,
   * or not. Undefined: found at the first connection (see `#detect`).
   */
  pooler?: 'transaction' | 'none' | undefined
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

/** What a statement may ask beyond its text and values. */
export interface QueryOptions {
  /**
   * How long to wait for its answer, instead of the statement timeout plus 1 s: for work that
   * is not a request's (counting every task anew), run in a transaction that lifts the
   * server's timeout too (`SET LOCAL statement_timeout = 0`).
   */
  waitMs?: number
  /**
   * Called once what the statement wrote is committed: at once outside a transaction, after
   * `COMMIT` inside one (never when it rolls back). The change feed's sequencer is woken so.
   */
  afterCommit?: () => void
}

/** Something that runs a statement: the pool, or one client inside a transaction. */
export interface Queryable {
  query<R extends pg.QueryResultRow>(
    text: string,
    values?: unknown[],
    options?: QueryOptions,
  ): Promise<pg.QueryResult<R>>
  /**
   * Runs `work` in one transaction: committed when it resolves, rolled back when it throws.
   * Inside a transaction already, `work` runs in that one (it commits or rolls back with it).
   */
  transaction<T>(work: (client: Queryable) => Promise<T>): Promise<T>
  /**
   * Whether the latest statement to finish reached the database: false from one that found it
   * away until the next that does not. Undefined where it is not followed (a transaction).
   */
  readonly answering?: boolean
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
  /**
   * Whether statements go as named prepared statements: once the first connection shows the
   * server is PostgreSQL itself, not a pooler (see `#detect`); until then, and behind one, not.
   * With `pooler` given, as it says from the start.
   */
  #named = false
  #detecting: Promise<void> | undefined
  #answering = true

  constructor(options: DatabaseOptions) {
    this.#options = options
    this.#pool = this.#newPool()
    if (options.pooler !== undefined) {
      // Told, not guessed: nothing to find out at the first connection.
      this.#named = options.pooler === 'none'
      this.#detecting = Promise.resolve()
    }
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
      const result = await this.#reaching(() => run(pool))
      this.#detecting ??= this.#detect()
      return result
    } catch (error) {
      if (!refusedParameter(error, 'statement_timeout')) throw error
      if (this.#pool === pool) {
        this.#serverTimeout = false
        this.#pool = this.#newPool()
        // Ended with the database: statements waiting for one of its connections fail here
        // as this one did, and go on to the new pool.
        this.#retired.push(pool)
      }
      return this.#reaching(() => run(this.#pool))
    }
  }

  /** `run`, noting whether it reached the database (`answering`). */
  async #reaching<T>(run: () => Promise<T>): Promise<T> {
    try {
      const result = await unavailableAs(run)
      this.#answering = true
      return result
    } catch (error) {
      if (error instanceof ServiceUnavailableError) this.#answering = false
      throw error
    }
  }

  get answering(): boolean {
    return this.#answering
  }

  /**
   * Whether the connections reach PostgreSQL itself: then the `statement_timeout` they were
   * opened with is in force. A transaction-pooling proxy refuses it (PgBouncer) or drops it
   * (it cannot pass one client's settings to a server connection others share), and there a
   * named prepared statement, which lives on one server connection, would meet a connection
   * that never prepared it (docs/operating.md#behind-a-connection-pooler).
   */
  async #detect(): Promise<void> {
    if (!this.#serverTimeout) return
    try {
      const { rows } = await this.#pool.query<{ ours: boolean }>(
        `SELECT current_setting('statement_timeout')::interval = $1 * interval '1 ms' AS ours`,
        [this.#options.statementTimeoutMs],
      )
      this.#named = rows[0]?.ours === true
    } catch {
      // Asked again with the next statement.
      this.#detecting = undefined
    }
  }

  /**
   * Opens a first connection and finds what the server is, unless `pooler` says. `pooler`: the
   * connections go through a transaction-pooling proxy, so the service's statement timeout is
   * not in force and statements are not named.
   */
  async start(): Promise<{ pooler: boolean }> {
    await this.#onPool((pool) => pool.query('SELECT 1'))
    await this.#detecting
    return { pooler: !this.#named }
  }

  get pool(): pg.Pool {
    return this.#pool
  }

  /** The pool's connections now (metrics): open, open and idle, and statements waiting. */
  poolStats(): PoolStats {
    const pool = this.#pool
    return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }
  }

  async query<R extends pg.QueryResultRow>(
    text: string,
    values?: unknown[],
    options?: QueryOptions,
  ) {
    const result = await this.#onPool((pool) =>
      pool.query<R>(prepared(text, values, this.#named, options)),
    )
    options?.afterCommit?.()
    return result
  }

  /**
   * Runs `work` in one transaction on one connection: committed when it resolves, rolled back
   * when it throws. Left idle longer than a statement may run (its process stopped, or blocked
   * writing its log), the transaction is ended by the server, so the locks it holds (the
   * sequencer's, a row's) never hold other processes up for longer (docs/operating.md).
   */
  async transaction<T>(work: (client: Queryable) => Promise<T>): Promise<T> {
    const client = await this.#onPool((pool) => pool.connect())
    // The connection dying between two statements of the transaction: the next statement
    // fails (503); without a listener the client's error event would end the process.
    client.on('error', ignore)
    const committed: (() => void)[] = []
    const inTransaction: Queryable = {
      query: (text, values, options) => {
        if (options?.afterCommit) committed.push(options.afterCommit)
        return this.#reaching(() => client.query(prepared(text, values, this.#named, options)))
      },
      transaction: (nested) => nested(inTransaction),
    }
    let broken: Error | undefined
    try {
      await inTransaction.query(
        `BEGIN; SET LOCAL idle_in_transaction_session_timeout = ${this.#options.statementTimeoutMs}`,
      )
      const result = await work(inTransaction)
      await inTransaction.query('COMMIT')
      for (const call of committed) call()
      return result
    } catch (error) {
      broken = error as Error
      await client.query('ROLLBACK').catch(() => {})
      throw error
    } finally {
      client.off('error', ignore)
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

  readonly #background = new Map<string, Database>()

  /**
   * A connection of its own for one kind of work no request waits for (folding the task
   * list's counted buckets, numbering events), so that it never holds one of the pool's while
   * requests queue for them, nor waits behind the other kind. Opened when first used; closed
   * with this one.
   */
  background(work: 'fold' | 'events'): Database {
    let database = this.#background.get(work)
    if (database === undefined) {
      database = new Database({ ...this.#options, poolSize: 1 })
      this.#background.set(work, database)
    }
    return database
  }

  async close(): Promise<void> {
    await Promise.all([
      ...[this.#pool, ...this.#retired].map((pool) => pool.end()),
      ...[...this.#background.values()].map((database) => database.close()),
    ])
  }
}

const ignore = () => {}

/** The name of each statement text, given the first time it is run named. */
const statementNames = new Map<string, string>()

/**
 * A statement with values, as a named prepared statement where `named`: each connection then
 * parses and plans the text once and only binds values after, which spares the database most
 * of its work per request (docs/operating.md#behind-a-connection-pooler). Every such
 * text in the stores is a fixed string, so the names stay few. Unnamed, it is parsed and
 * planned each time, as behind a pooler it must be. A text without values (`BEGIN`, the
 * schema's several commands at once) goes by the simple protocol, which takes several commands.
 */
function prepared(
  text: string,
  values: unknown[] | undefined,
  named: boolean,
  options?: QueryOptions,
): pg.QueryConfig {
  // The driver's own option, per statement; not in its types.
  const waiting = options?.waitMs === undefined ? {} : { query_timeout: options.waitMs }
  if (values === undefined) return { text, ...waiting }
  if (!named) return { text, values, ...waiting }
  let name = statementNames.get(text)
  if (name === undefined) {
    name = `tugas_${statementNames.size + 1}`
    statementNames.set(text, name)
  }
  return { name, text, values, ...waiting }
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
