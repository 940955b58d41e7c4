// PgBouncer in transaction pooling mode in front of the test PostgreSQL server, for the pass
// that runs the PostgreSQL tests through it (TUGAS_TEST_POOLER=pgbouncer, `npm run
// test:pooler`). Each test process starts its own PgBouncer (Debian's `pgbouncer`) on a free
// port; every schema a test leases gets a database name of its own in it, whose server
// connections start in that schema (`connect_query`), because a pooler passes no `options`
// (search_path) from a client. Where `pgbouncer` is not installed the pass is skipped, loudly;
// with TUGAS_REQUIRE_SERVICES=1 (CI) that fails it.
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { chmod, mkdtemp, writeFile } from 'node:fs/promises'
import type { Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { freePort } from './ports.js'
import { skipFor } from './services.js'

/** Whether this process runs its PostgreSQL tests through PgBouncer. */
export const THROUGH_POOLER = process.env.TUGAS_TEST_POOLER === 'pgbouncer'

const BINARY = process.env.PGBOUNCER_BIN ?? '/usr/sbin/pgbouncer'

/** Why PgBouncer cannot be used, or undefined when it can. */
export function pgbouncerProblem(): string | undefined {
  return existsSync(BINARY) ? undefined : `PgBouncer is not installed (${BINARY})`
}

/** The `skip` option for a suite that needs PgBouncer (see skipFor). */
export function skipWithoutPgbouncer(): false | string {
  return skipFor(pgbouncerProblem(), 'PGBOUNCER_BIN (Debian: apt-get install pgbouncer)')
}

export interface Pgbouncer {
  /** A URL through the pooler to `database` of the server, its connections in `schema`. */
  urlFor(database: string, schema?: string): Promise<string>
  /** Stops it: every client connection through it is closed. */
  stop(): Promise<void>
}

/** The settings every test PgBouncer runs with: transaction pooling, trust, loopback. */
function settings(
  dir: string,
  port: number,
  user: string,
  databases: string[],
  ignored: string[],
): string {
  return [
    '[databases]',
    ...databases,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = trust',
    `admin_users = ${user}`,
    `auth_file = ${join(dir, 'users.txt')}`,
    'pool_mode = transaction',
    ...(ignored.length > 0 ? [`ignore_startup_parameters = ${ignored.join(',')}`] : []),
    'max_client_conn = 2000',
    'default_pool_size = 20',
    `logfile = ${join(dir, 'pgbouncer.log')}`,
    `pidfile = ${join(dir, 'pgbouncer.pid')}`,
    // Quick to notice a server that restarts, as the tests of faults expect.
    'server_login_retry = 1',
    '',
  ].join('\n')
}

/**
 * Starts PgBouncer in front of the server at `serverUrl` (its host, port and user), dropping
 * the connection parameters `ignoreStartupParameters` instead of refusing them. Run as
 * root (CI), it switches to the `postgres` user, as PgBouncer refuses to run as root.
 */
export async function startPgbouncer(
  serverUrl: string,
  { ignoreStartupParameters = [] }: { ignoreStartupParameters?: string[] } = {},
): Promise<Pgbouncer> {
  const server = new URL(serverUrl)
  const user = decodeURIComponent(server.username || 'postgres')
  const dir = await mkdtemp(join(tmpdir(), 'tugas-pgbouncer-'))
  await chmod(dir, 0o777)
  const port = await freePort()
  const ini = join(dir, 'pgbouncer.ini')
  const databases: string[] = []
  const write = async () => {
    await writeFile(join(dir, 'users.txt'), `"${user}" ""\n`, { mode: 0o644 })
    await writeFile(ini, settings(dir, port, user, databases, ignoreStartupParameters), {
      mode: 0o644,
    })
  }
  await write()
  const asRoot = process.getuid?.() === 0
  const child: ChildProcess = spawn(BINARY, [...(asRoot ? ['-u', 'postgres'] : []), ini], {
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8')
  })
  // It never holds the test process up; it goes when the process does.
  child.unref()
  ;(child.stderr as Socket | null)?.unref()
  const killed = () => child.kill('SIGKILL')
  process.once('exit', killed)
  const url = (name: string) => `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/${name}`
  await until(url('pgbouncer'), () => `PgBouncer did not start: ${stderr}`, 'SHOW VERSION')
  const names = new Map<string, string>()
  return {
    async urlFor(database, schema) {
      const key = `${database}/${schema ?? ''}`
      let name = names.get(key)
      if (name === undefined) {
        name = `db${names.size + 1}`
        names.set(key, name)
        const start = schema === undefined ? '' : ` connect_query='SET search_path TO ${schema}'`
        databases.push(
          `${name} = host=${server.hostname} port=${server.port || 5432} ` +
            `dbname=${database} user=${user}${start}`,
        )
        await write()
        // SIGHUP: PgBouncer reads its settings again, the new database included.
        child.kill('SIGHUP')
        await until(url(name), () => `PgBouncer did not take ${name}: ${stderr}`)
      }
      return url(name)
    },
    async stop() {
      process.removeListener('exit', killed)
      if (child.exitCode !== null) return
      const exited = new Promise((resolve) => child.once('exit', resolve))
      // Waited for: the process (unreferenced so far) holds the event loop until it exits.
      child.ref()
      child.kill('SIGINT')
      await exited
    },
  }
}

/** Waits until a connection to `url` answers `statement`, for at most 10 s. */
async function until(url: string, problem: () => string, statement = 'SELECT 1'): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const client = new pg.Client({ connectionString: url })
    try {
      await client.connect()
      await client.query(statement)
      return
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50))
    } finally {
      await client.end().catch(() => {})
    }
  }
  throw new Error(problem())
}

let shared: Promise<Pgbouncer> | undefined

/** This process's PgBouncer in front of `serverUrl`, started on first use. */
export function processPgbouncer(serverUrl: string): Promise<Pgbouncer> {
  shared ??= startPgbouncer(serverUrl)
  return shared
}
