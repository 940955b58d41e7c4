// Idempotency-Key on PostgreSQL with the real process (decisions.md 8): keys are kept in the
// database, so a retry after the process was killed (SIGKILL, no chance to close) and started
// again gets the first answer, and a retry through another process on the same database does
// too. Runs dist/: `npm run build` first (`npm test` does).
import assert from 'node:assert/strict'
import type { ChildProcess } from 'node:child_process'
import { describe, test } from 'node:test'
import { freshDatabaseUrl, skipWithoutPostgres } from './support/postgres.js'
import { type Answer, exitOf, listening, npmStart, send } from './support/processes.js'

/** `npm start` on `databaseUrl`: the process and its address. */
async function start(databaseUrl: string): Promise<{ child: ChildProcess; base: string }> {
  const child = npmStart({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'info' })
  return { child, base: await listening(child, []) }
}

/** Kills the process group without a chance to close, and waits for it to be gone. */
async function kill(child: ChildProcess): Promise<void> {
  const exited = exitOf(child)
  if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
  await exited
}

const keyed = (key: string) => ({ 'idempotency-key': key })

function assertSameAnswer(actual: Answer, first: Answer, what: string): void {
  assert.equal(actual.status, first.status, `${what}: status`)
  assert.equal(actual.body, first.body, `${what}: body`)
  for (const name of ['location', 'etag', 'content-type']) {
    assert.equal(actual.headers[name], first.headers[name], `${what}: ${name}`)
  }
}

describe('Idempotency-Key on PostgreSQL (the real process)', {
  skip: await skipWithoutPostgres(),
}, () => {
  test('a retry after SIGKILL and a restart gets the first answer and creates nothing', async () => {
    const databaseUrl = await freshDatabaseUrl()
    const first = await start(databaseUrl)
    const body = { title: 'Tahan banting' }
    const created = await send(first.base, 'POST', '/tugas', { body, headers: keyed('k-tugas') })
    assert.equal(created.status, 201, created.body)
    const order = await send(first.base, 'POST', '/pesanan', {
      body: { email: 'a@contoh.id', jumlah: 2 },
      headers: keyed('k-pesanan'),
    })
    assert.equal(order.status, 201, order.body)
    const paid = await send(first.base, 'POST', '/pesanan/1/bayar', { headers: keyed('k-bayar') })
    assert.equal(paid.status, 200, paid.body)
    await kill(first.child)

    const second = await start(databaseUrl)
    assertSameAnswer(
      await send(second.base, 'POST', '/tugas', { body, headers: keyed('k-tugas') }),
      created,
      'POST /tugas after the restart',
    )
    assertSameAnswer(
      await send(second.base, 'POST', '/pesanan', {
        body: { email: 'a@contoh.id', jumlah: 2 },
        headers: keyed('k-pesanan'),
      }),
      order,
      'POST /pesanan after the restart',
    )
    // Paying again with the key is the first 200, not the 409 of an order already paid.
    assertSameAnswer(
      await send(second.base, 'POST', '/pesanan/1/bayar', { headers: keyed('k-bayar') }),
      paid,
      'POST /pesanan/1/bayar after the restart',
    )
    const tasks = JSON.parse((await send(second.base, 'GET', '/tugas')).body) as unknown[]
    assert.equal(tasks.length, 6, 'the five demo tasks and the one created')
    const reused = await send(second.base, 'POST', '/tugas', {
      body: { title: 'Lain lagi' },
      headers: keyed('k-tugas'),
    })
    assert.equal(reused.status, 422)
    assert.equal(JSON.parse(reused.body).error.kode, 'VALIDASI_GAGAL')
    await kill(second.child)
  })

  test('two processes on one database: a key taken by one is replayed by the other', async () => {
    const databaseUrl = await freshDatabaseUrl()
    const one = await start(databaseUrl)
    const two = await start(databaseUrl)
    const body = { judul: 'Dua proses' }
    const created = await send(one.base, 'POST', '/api/tugas', { body, headers: keyed('k') })
    assert.equal(created.status, 201, created.body)
    assertSameAnswer(
      await send(two.base, 'POST', '/api/tugas', { body, headers: keyed('k') }),
      created,
      'through the other process',
    )
    // A burst through both processes at once: one todo, every answer the first or 409.
    const burst = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        send(i % 2 ? one.base : two.base, 'POST', '/todos', {
          body: { title: 'Serbuan' },
          headers: keyed('serbuan'),
        }),
      ),
    )
    const firsts = burst.filter((answer) => answer.status === 201)
    assert.ok(firsts.length >= 1, burst.map((answer) => answer.status).join(','))
    for (const answer of burst) {
      if (answer.status === 409) {
        assert.deepEqual(JSON.parse(answer.body), {
          error: 'permintaan dengan Idempotency-Key ini sedang diproses',
        })
      } else assertSameAnswer(answer, firsts[0] as Answer, 'an answer of the burst')
    }
    const todos = JSON.parse((await send(two.base, 'GET', '/todos')).body) as unknown[]
    assert.equal(todos.length, 1)
    await Promise.all([kill(one.child), kill(two.child)])
  })
})
