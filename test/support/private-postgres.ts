// A PostgreSQL cluster of the test's own, for tests that crash the database: `initdb` into a
// temporary folder, a server on a free loopback port, stopped with `-m immediate` (every
// backend killed, shared memory and the WAL not yet written lost, as in a crash) and started
// again, which recovers from the WAL. The machine's server is never touched, so the other test
// files running beside it are not disturbed. Debian's server binaries (`pg_config --bindir`);
// as root, they run as the `postgres` user, as the server refuses to run as root.
import { execFile, execFileSync } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { freePort } from './ports.js'
import { skipFor } from './services.js'

const run = promisify(execFile)
const DEBIAN = '/usr/lib/postgresql'

/** PG_BINDIR, else what `pg_config` says, else Debian's newest server under /usr/lib/postgresql. */
function binaries(): string | undefined {
  const fromEnv = process.env.PG_BINDIR
  if (fromEnv !== undefined) return fromEnv
  try {
    return execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim()
  } catch {
    const versions = existsSync(DEBIAN) ? readdirSync(DEBIAN).filter((v) => /^\d+$/.test(v)) : []
    const newest = versions.sort((a, b) => Number(b) - Number(a))[0]
    return newest === undefined ? undefined : join(DEBIAN, newest, 'bin')
  }
}

const BINDIR = binaries()

/** Why a private cluster cannot be made here, or undefined when it can. */
function problem(): string | undefined {
  if (BINDIR === undefined || !existsSync(join(BINDIR, 'initdb'))) {
    return "PostgreSQL's server binaries (initdb, pg_ctl) are not found"
  }
  return undefined
}

/** The `skip` option for a suite that needs a private cluster (see skipFor). */
export function skipWithoutPrivatePostgres(): false | string {
  return skipFor(problem(), 'PG_BINDIR (Debian: apt-get install postgresql)')
}

export interface PrivatePostgres {
  /** A URL of the `postgres` database as user postgres. */
  url: string
  /** Kills the server as a crash does (`pg_ctl stop -m immediate`), then starts it again. */
  crash(): Promise<void>
  /** Kills it as a crash does and leaves it down. */
  kill(): Promise<void>
  /** Starts it again after `kill`; resolves once it accepts connections. */
  start(): Promise<void>
  /** Stops it and removes its files. */
  remove(): Promise<void>
}

/**
 * A new cluster, running; `remove` it when done. `fsync` is off: a crash of the
 * server (not of the machine) keeps what it handed to the kernel, so every crash these tests
 * make is still a crash for what PostgreSQL had not written (asynchronous commits' WAL).
 */
export async function privatePostgres(): Promise<PrivatePostgres> {
  const bindir = BINDIR as string
  const dir = mkdtempSync(join(tmpdir(), 'tugas-pg-'))
  const data = join(dir, 'data')
  const asRoot = process.getuid?.() === 0
  if (asRoot) {
    chmodSync(dir, 0o700)
    chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })), 0)
  }
  const as = (command: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', join(bindir, command), ...args])
      : run(join(bindir, command), args)
  await as('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8'])
  const port = await freePort()
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    '-c fsync=off',
    '-c full_page_writes=off',
    '-c max_connections=200',
  ].join(' ')
  const start = async () => {
    await as('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start'])
  }
  const kill = async () => {
    await as('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'])
  }
  await start()
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    kill,
    async crash() {
      await kill()
      await start()
    },
    async remove() {
      await kill().catch(() => {})
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
