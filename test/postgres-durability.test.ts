// Durability test: the real process (`npm start`, `node dist/main.js`) on PostgreSQL. Every write
// the service acknowledged survives the process being killed without any chance to close
// (SIGKILL to its whole process group), the seed is loaded once per database however many
// processes start on it at once, and an unreachable database refuses start-up in one line.
// Runs dist/: `npm run build` first (`npm test` does).
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { readdirSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { after, describe, test } from 'node:test'
import pg from 'pg'
import { DEMO_TASKS } from './support/helpers.js'
import { freshDatabaseUrl, skipWithoutPostgres } from './support/postgres.js'

const root = new URL('..', import.meta.url).pathname
/** The version of every migration in migrations/ (`003.do.pages.sql` is 3), in order. */
const MIGRATION_VERSIONS = readdirSync(`${root}migrations`)
  .filter((file) => /^\d+\.do\./.test(file))
  .map((file) => Number.parseInt(file, 10))
  .sort((a, b) => a - b)

const started: ChildProcess[] = []

/** Kills a process group started here, if it is still there. */
function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
  } catch {
    // Already gone.
  }
}

after(() => {
  for (const child of started) killGroup(child)
})

interface Run {
  child: ChildProcess
  /** Every JSON log line written to stdout so far. */
  lines: Record<string, unknown>[]
  /** Everything written to stderr so far. */
  stderr: () => string
  /** The exit code (or signal name) once it has exited and its output is read. */
  exited: Promise<number | string | null>
  /** The base URL from the "Server listening at" line. */
  listening: Promise<string>
}

/** A command in a process group of its own (cleanup reaches every process in it). */
function run(command: string, args: string[], env: Record<string, string>): Run {
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  started.push(child)
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk
  })
  // 'close': the process has exited and its output has been read to the end.
  const exited = once(child, 'close').then(([code, signal]) => (code ?? signal) as number | string)
  const lines: Record<string, unknown>[] = []
  const listening = new Promise<string>((resolve, reject) => {
    const reader = createInterface({ input: child.stdout as NodeJS.ReadableStream })
    let address: string | undefined
    reader.on('line', (line) => {
      let entry: Record<string, unknown>
      try {
        entry = JSON.parse(line) as Record<string, unknown>
      } catch {
        entry = { notJson: line }
      }
      lines.push(entry)
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(String(entry.msg))
      if (address === undefined && match?.[1] !== undefined) {
        address = match[1]
        resolve(address)
      }
    })
    reader.on('close', () => {
      if (address === undefined) reject(new Error(`exited before listening: ${stderr}`))
    })
  })
  // A run expected to refuse start-up never listens: that is no unhandled rejection.
  listening.catch(() => {})
  return { child, lines, stderr: () => stderr, exited, listening }
}

const npmStart = (env: Record<string, string>) => run('npm', ['start', '--silent'], env)
const nodeStart = (env: Record<string, string>) => run('node', ['dist/main.js'], env)

/** Resolves once `condition` holds; fails after `ms`. */
async function waitFor(condition: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`still not so after ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

const ADMIN = { authorization: 'Bearer demo-admin-token' }

/** One request: its status, Location and parsed body (undefined when empty). */
async function send(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  })
  const text = await response.text()
  return {
    status: response.status,
    location: response.headers.get('location'),
    body: text === '' ? undefined : (JSON.parse(text) as unknown),
  }
}

/** A write that must be acknowledged with `status`: its body. */
async function write(
  base: string,
  method: string,
  path: string,
  status: number,
  body?: unknown,
  headers?: Record<string, string>,
) {
  const answer = await send(base, method, path, body, headers)
  assert.equal(answer.status, status, `${method} ${path}: ${JSON.stringify(answer.body)}`)
  return answer.body as Record<string, unknown>
}

const seedSkipped = (lines: Record<string, unknown>[]) =>
  lines.filter((line) => line.msg === 'seed skipped: the database already holds data').length

const demoTasks = DEMO_TASKS

describe('durability on PostgreSQL (the real process)', {
  skip: await skipWithoutPostgres(),
}, () => {
  test('every acknowledged write survives SIGKILL of the process group; the seed is not loaded again', async () => {
    const databaseUrl = await freshDatabaseUrl()

    // The first life: the seed is loaded, then one write of every kind, each acknowledged.
    const first = npmStart({ DATABASE_URL: databaseUrl })
    const base = await first.listening
    assert.equal(seedSkipped(first.lines), 0, 'a never-seeded database gets the seed')

    const task = await write(base, 'POST', '/tugas', 201, { title: 'Tugas tahan lama' })
    assert.equal(task.id, 6)
    const doomed = await write(base, 'POST', '/tugas', 201, { title: 'Akan dihapus' })
    assert.equal(doomed.id, 7)
    const replaced = await write(base, 'PUT', '/tugas/6', 200, {
      title: 'Tugas tahan lama, diganti',
      status: 'selesai',
    })
    const patched = await write(base, 'PATCH', '/tugas/2', 200, { status: 'selesai' })
    await write(base, 'DELETE', '/tugas/7', 204)
    await write(base, 'DELETE', '/tugas/3', 204) // a seeded task, with seeded comment 3
    const comment = await write(base, 'POST', '/tugas/6/komentar', 201, { isi: 'Tetap ada' })
    assert.deepEqual(comment, { id: 4, tugasId: 6, isi: 'Tetap ada' })

    const compact = await write(base, 'POST', '/api/tugas', 201, { judul: 'Kompak satu' })
    await write(base, 'POST', '/api/tugas', 201, { judul: 'Kompak dua' })
    const compactReplaced = await write(base, 'PUT', `/api/tugas/${compact.id}`, 200, {
      judul: 'Kompak satu, diganti',
      selesai: true,
    })
    await write(base, 'DELETE', '/api/tugas/2', 204)

    const todo = await write(base, 'POST', '/todos', 201, { title: 'Todo satu' })
    await write(base, 'POST', '/todos', 201, { title: 'Todo dua' })
    const todoReplaced = await write(base, 'PUT', `/todos/${todo.id}`, 200, {
      title: 'Todo satu, diganti',
      done: true,
    })
    await write(base, 'DELETE', '/todos/2', 204)

    const user = await write(base, 'POST', '/users', 201, {
      name: 'Budi Tahan',
      email: 'budi.tahan@contoh.id',
      password: 'rahasia-sekali',
    })
    const paidOrder = await write(base, 'POST', '/pesanan', 201, {
      email: 'budi.tahan@contoh.id',
      jumlah: 3,
    })
    const openOrder = await write(base, 'POST', '/pesanan', 201, {
      email: 'siti@contoh.id',
      jumlah: 5,
    })
    const paid = await write(base, 'POST', '/pesanan/1/bayar', 200)
    await write(base, 'DELETE', '/dokumen/3', 204, undefined, ADMIN)
    // No graceful close: the whole group dies right after the last acknowledgement.
    killGroup(first.child)
    assert.equal(await first.exited, 'SIGKILL')

    // The second life, on the same database.
    const second = npmStart({ DATABASE_URL: databaseUrl })
    const again = await second.listening
    assert.equal(seedSkipped(second.lines), 1, 'the log says the seed was skipped, once')
    const read = async (path: string, headers?: Record<string, string>) => {
      const answer = await send(again, 'GET', path, undefined, headers)
      return { status: answer.status, body: answer.body }
    }
    const ok = (body: unknown) => ({ status: 200, body })

    // Surface A: exactly the expected tasks, the seeded ones not duplicated.
    const tasks = [
      { id: 1, title: 'Belajar REST', status: 'selesai' },
      { id: 2, title: 'Menulis dokumentasi API', status: 'selesai' },
      { id: 4, title: 'Deploy ke server', status: 'belum' },
      { id: 5, title: 'Review kode', status: 'selesai' },
      { id: 6, title: 'Tugas tahan lama, diganti', status: 'selesai' },
    ]
    assert.deepEqual(replaced, tasks[4])
    assert.deepEqual(patched, tasks[1])
    assert.deepEqual(await read('/tugas'), ok(tasks))
    assert.deepEqual(
      await read('/tugas?halaman=1&status=selesai'),
      ok({
        data: [tasks[0], tasks[1], tasks[3], tasks[4]],
        meta: { halaman: 1, batas: 10, total: 4, totalHalaman: 1 },
      }),
    )
    assert.deepEqual((await read('/tugas?halaman=1')).body, {
      data: tasks,
      meta: { halaman: 1, batas: 10, total: 5, totalHalaman: 1 },
    })
    assert.deepEqual(await read('/tugas/6'), ok(tasks[4]))
    for (const gone of [3, 7]) assert.equal((await read(`/tugas/${gone}`)).status, 404)
    assert.deepEqual(await read('/tugas/6/komentar'), ok([comment]))
    assert.deepEqual(await read('/tugas/6/komentar/4'), ok(comment))
    assert.deepEqual(
      await read('/tugas/1/komentar'),
      ok([
        { id: 1, tugasId: 1, isi: 'Mulai dari bab 1' },
        { id: 2, tugasId: 1, isi: 'Bab 2 tentang status code' },
      ]),
    )
    assert.equal((await read('/tugas/3/komentar')).status, 404)

    // Surface B.
    assert.deepEqual(compactReplaced, { id: 1, judul: 'Kompak satu, diganti', selesai: true })
    assert.deepEqual(await read('/api/tugas'), ok([compactReplaced]))
    assert.deepEqual(await read('/api/tugas/1'), ok(compactReplaced))
    assert.equal((await read('/api/tugas/2')).status, 404)

    // Surface C: created_at kept to the millisecond.
    assert.deepEqual(todoReplaced, { ...todo, title: 'Todo satu, diganti', done: true })
    assert.deepEqual(await read('/todos'), ok([todoReplaced]))
    assert.deepEqual(await read('/todos/1'), ok(todoReplaced))
    assert.equal((await read('/todos/2')).status, 404)

    // Surface D.
    assert.deepEqual(await read('/users/1'), ok(user))
    assert.deepEqual(await read('/users'), ok({ data: [user.data], meta: { page: 1, total: 1 } }))
    assert.deepEqual(paid, {
      data: { ...(paidOrder.data as object), status: 'LUNAS' },
    })
    assert.deepEqual(await read('/pesanan/1'), ok(paid))
    assert.deepEqual(await read('/pesanan/2'), ok(openOrder))
    assert.equal((openOrder.data as { status: string }).status, 'MENUNGGU')
    const payAgain = await send(again, 'POST', '/pesanan/1/bayar')
    assert.equal(payAgain.status, 409)
    assert.equal((await read('/dokumen/3', ADMIN)).status, 404)
    assert.deepEqual(
      await read('/dokumen', ADMIN),
      ok({
        data: [
          { id: 1, judul: 'Rencana', pemilik: 'budi' },
          { id: 2, judul: 'Anggaran', pemilik: 'budi' },
          { id: 4, judul: 'Kebijakan', pemilik: 'admin' },
        ],
      }),
    )
    assert.deepEqual(
      await read('/produk'),
      ok([
        { id: 1, nama: 'Buku', harga: 50000, stok: 12 },
        { id: 2, nama: 'Pensil', harga: 3000, stok: 150 },
        { id: 3, nama: 'Penghapus', harga: 2000, stok: 0 },
      ]),
    )
    // The seeded credentials are there once, and still work.
    assert.deepEqual(
      await read('/profil', { authorization: 'Bearer demo-budi-token' }),
      ok({ data: { nama: 'budi', peran: 'user' } }),
    )

    // Ids keep increasing across the restart: the next one, never one already given out.
    assert.equal((await write(again, 'POST', '/tugas', 201, { title: 'Sesudah mati' })).id, 8)
    assert.equal((await write(again, 'POST', '/tugas/8/komentar', 201, { isi: 'Baru' })).id, 5)
    assert.equal((await write(again, 'POST', '/api/tugas', 201, { judul: 'Baru' })).id, 3)
    assert.equal((await write(again, 'POST', '/todos', 201, { title: 'Baru' })).id, 3)
    const nextOrder = await write(again, 'POST', '/pesanan', 201, { email: 'a@b', jumlah: 1 })
    assert.equal((nextOrder.data as { id: number }).id, 3)
    const nextUser = await write(again, 'POST', '/users', 201, {
      name: 'Siti',
      email: 'siti.baru@contoh.id',
      password: 'rahasia-sekali',
    })
    assert.equal((nextUser.data as { id: number }).id, 2)
    // The email of the user written before the kill is still taken.
    const duplicate = await send(again, 'POST', '/users', {
      name: 'Lagi',
      email: 'BUDI.TAHAN@contoh.id',
      password: 'rahasia-sekali',
    })
    assert.equal(duplicate.status, 409)

    assert.deepEqual(await read('/health/ready'), ok({ status: 'ok', checks: { postgres: 'ok' } }))
    killGroup(second.child)
  })

  test('writes in flight when the process is killed: each acknowledged one is there, none is half there', async () => {
    const databaseUrl = await freshDatabaseUrl()
    const first = npmStart({ DATABASE_URL: databaseUrl })
    const base = await first.listening
    // Eight clients create tasks one after another until the kill, so that some are in flight
    // at that instant: sent, perhaps written, never acknowledged.
    const acknowledged: { id: number; title: string }[] = []
    const titles: string[] = []
    let killed = false
    const clients = Array.from({ length: 8 }, async (_, client) => {
      for (let n = 0; !killed; n++) {
        const title = `Serbuan ${client}-${n}`
        titles.push(title)
        try {
          const answer = await send(base, 'POST', '/tugas', { title })
          assert.equal(answer.status, 201)
          if (!killed) acknowledged.push(answer.body as { id: number; title: string })
        } catch {
          return // cut off by the kill: not acknowledged
        }
      }
    })
    await waitFor(() => acknowledged.length >= 60)
    killed = true
    killGroup(first.child)
    await Promise.all(clients)
    assert.equal(await first.exited, 'SIGKILL')

    const second = npmStart({ DATABASE_URL: databaseUrl })
    const again = await second.listening
    const { status, body } = await send(again, 'GET', '/tugas')
    assert.equal(status, 200)
    const stored = body as { id: number; title: string; status: string }[]
    assert.deepEqual(stored.slice(0, 5), demoTasks, 'the seed once, unchanged')
    const created = stored.slice(5)
    for (const task of acknowledged) {
      assert.deepEqual(
        created.find((one) => one.id === task.id),
        { ...task, status: 'belum' },
        `acknowledged task ${task.id} is there`,
      )
    }
    // Whatever else landed is a whole task of this burst, each title at most once.
    for (const task of created) assert.ok(titles.includes(task.title), task.title)
    assert.equal(new Set(created.map((task) => task.title)).size, created.length)
    const { meta } = (await send(again, 'GET', '/tugas?halaman=1')).body as {
      meta: { total: number }
    }
    assert.equal(meta.total, stored.length, 'the count agrees with the rows')
    // A new id is past every id ever handed out.
    const next = await write(again, 'POST', '/tugas', 201, { title: 'Sesudahnya' })
    const highest = Math.max(...stored.map((task) => task.id))
    assert.ok((next.id as number) > highest, `${next.id} > ${highest}`)
    killGroup(second.child)
  })

  test('several processes started at once on one empty database: all start, the seed is loaded once', async () => {
    const databaseUrl = await freshDatabaseUrl()
    const runs = Array.from({ length: 4 }, () => nodeStart({ DATABASE_URL: databaseUrl }))
    const bases = await Promise.all(runs.map((one) => one.listening))
    // One process loaded the seed; every other one says it found the data there.
    assert.deepEqual(runs.map((one) => seedSkipped(one.lines)).sort(), [0, 1, 1, 1])
    for (const [i, one] of runs.entries()) assert.equal(one.stderr(), '', `process ${i} stderr`)
    for (const base of bases) {
      assert.deepEqual((await send(base, 'GET', '/tugas')).body, demoTasks)
      assert.equal(((await send(base, 'GET', '/produk')).body as unknown[]).length, 3)
      const documents = (await send(base, 'GET', '/dokumen', undefined, ADMIN)).body
      assert.equal((documents as { data: unknown[] }).data.length, 4)
      assert.equal((await send(base, 'GET', '/health/ready')).status, 200)
    }
    // Migrations ran once, the seed was marked once.
    const client = new pg.Client({ connectionString: databaseUrl })
    await client.connect()
    try {
      // Postgrator's table holds its baseline 0 and one row per migration applied.
      const versions = await client.query('SELECT version FROM schemaversion ORDER BY version')
      assert.deepEqual(
        versions.rows.map((row) => Number(row.version)),
        [0, ...MIGRATION_VERSIONS],
      )
      assert.equal((await client.query('SELECT * FROM seeded')).rowCount, 1)
      const counts = await client.query(
        'SELECT (SELECT count(*) FROM tugas)::int AS tugas, (SELECT count(*) FROM komentar)::int AS komentar, (SELECT count(*) FROM credentials)::int AS credentials',
      )
      assert.deepEqual(counts.rows[0], { tugas: 5, komentar: 3, credentials: 3 })
    } finally {
      await client.end()
    }
    for (const one of runs) killGroup(one.child)
    // None of them had failed before it was killed.
    for (const one of runs) assert.equal(await one.exited, 'SIGKILL')
  })

  const unreachable = [
    ['without a password', 'postgres://127.0.0.1:1/tugas'],
    ['with a password', 'postgres://u:s3cret@127.0.0.1:1/db'],
  ] as const
  for (const [name, url] of unreachable) {
    test(`a database that cannot be reached refuses start-up in one line, ${name}`, async () => {
      const refused = npmStart({ DATABASE_URL: url })
      const code = await refused.exited
      assert.notEqual(code, 0)
      assert.equal(typeof code, 'number', 'an exit, not a signal')
      const stderr = refused.stderr()
      assert.match(
        stderr,
        /^tugas: DATABASE_URL: cannot use the database at 127\.0\.0\.1:1 \([^\n]+\)\n$/,
      )
      assert.ok(!stderr.includes('s3cret'), 'never the password')
      assert.ok(!JSON.stringify(refused.lines).includes('s3cret'), 'not on stdout either')
      assert.equal(refused.lines.length, 0, 'nothing on stdout')
    })
  }

  test('a database that does not exist refuses start-up in one line, without the password', async () => {
    const url = new URL(await freshDatabaseUrl())
    url.pathname = '/tugas_tidak_ada'
    url.username = 'postgres'
    url.password = 's3cret'
    const refused = npmStart({ DATABASE_URL: url.toString() })
    const code = await refused.exited
    assert.notEqual(code, 0)
    const stderr = refused.stderr()
    assert.match(
      stderr,
      /^tugas: DATABASE_URL: cannot use the database at [^\n]+:\d+ \([^\n]+\)\n$/,
    )
    assert.match(stderr, /tugas_tidak_ada/)
    assert.ok(!stderr.includes('s3cret'), 'never the password')
  })
})
