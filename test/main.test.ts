// The run contract (decisions.md section 1), tested on the real process: `npm start`.
import assert from 'node:assert/strict'
import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { exitOf, listening, logged, npmStart } from './support/processes.js'

describe('npm start', () => {
  test('listens on PORT=0, answers over a socket, logs one line a request, stops on SIGTERM', async () => {
    const child = npmStart({ LOG_LEVEL: 'info' })
    const exited = exitOf(child)
    try {
      const lines: Record<string, unknown>[] = []
      const base = await listening(child, lines)

      const response = await fetch(`${base}/tugas/1`, { headers: { 'x-request-id': 'trace-42' } })
      assert.equal(response.status, 200)
      assert.equal(response.headers.get('x-request-id'), 'trace-42')
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/)
      assert.deepEqual(await response.json(), { id: 1, title: 'Belajar REST', status: 'selesai' })

      const created = await fetch(`${base}/tugas`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Lewat soket' }),
      })
      assert.equal(created.status, 201)
      assert.equal(created.headers.get('location'), '/tugas/6')
      const generated = created.headers.get('x-request-id')
      assert.ok(generated && generated.length > 0)

      await new Promise((resolve) => setTimeout(resolve, 100))
      const requestLines = lines.filter((line) => line.msg === 'request completed')
      assert.deepEqual(
        requestLines.map((line) => [line.reqId, line.method, line.url, line.statusCode]),
        [
          ['trace-42', 'GET', '/tugas/1', 200],
          [generated, 'POST', '/tugas', 201],
        ],
      )
    } finally {
      child.kill('SIGTERM')
    }
    assert.equal((await exited).code, 0)
  })

  const SECOND_SIGNAL = 'already shutting down; a third signal forces the exit'

  /**
   * Sends the head and half the body of a create, then `stop()`, then the rest: the answer the
   * request got, and the log lines. With `second`, the rest is held until the service has seen
   * a second signal of that kind while the request is in flight: npm's forwarded copy, or, when
   * the kernel merged it with the first (two deliveries of one signal before the process runs
   * count once), one more sent to the service's own pid.
   */
  async function createWhileStopping(
    child: ChildProcess,
    stop: () => void,
    second?: NodeJS.Signals,
  ) {
    const lines: Record<string, unknown>[] = []
    const { port } = new URL(await listening(child, lines))
    const socket = connect(Number(port), '127.0.0.1')
    await once(socket, 'connect')
    const body = JSON.stringify({ title: 'Selesai saat berhenti' })
    const half = Math.floor(body.length / 2)
    socket.write(
      `POST /tugas HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, half)}`,
    )
    await new Promise((resolve) => setTimeout(resolve, 200))
    stop()
    await new Promise((resolve) => setTimeout(resolve, 400))
    if (second !== undefined && !(await logged(lines, SECOND_SIGNAL, 2000))) {
      const pid = lines.find((line) => typeof line.pid === 'number')?.pid as number
      process.kill(pid, second)
      await logged(lines, SECOND_SIGNAL, 5000)
    }
    let answer = ''
    socket.on('data', (chunk: Buffer) => {
      answer += chunk
    })
    socket.end(body.slice(half))
    await once(socket, 'close')
    return { answer, lines }
  }

  test('SIGTERM lets a request in flight finish before the process exits 0', async () => {
    const child = npmStart({ LOG_LEVEL: 'info' })
    const exited = exitOf(child)
    const { answer } = await createWhileStopping(child, () => child.kill('SIGTERM'))
    assert.match(answer, /^HTTP\/1\.1 201 Created\r\n/)
    assert.match(answer, /\r\nlocation: \/tugas\/6\r\n/i)
    assert.equal((await exited).code, 0)
  })

  // Ctrl-C in a terminal, or systemd's stop, signals the whole process group: the service gets
  // the signal directly and once more forwarded by npm.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    test(`${signal} to the whole process group of npm start: the request in flight is answered, exit 0`, async () => {
      const child = npmStart({ LOG_LEVEL: 'info' })
      const exited = exitOf(child)
      // That second signal, while a request is in flight, is what must not kill the process.
      const { answer, lines } = await createWhileStopping(
        child,
        () => process.kill(-(child.pid as number), signal),
        signal,
      )
      assert.match(answer, /^HTTP\/1\.1 201 Created\r\n/)
      assert.match(answer, /\r\nlocation: \/tugas\/6\r\n/i)
      assert.equal((await exited).code, 0)
      const stops = lines.filter((line) => line.signal === signal).map((line) => line.msg)
      assert.deepEqual(stops, [
        'shutting down: no new connections, finishing requests in flight',
        SECOND_SIGNAL,
      ])
    })
  }

  test('a third signal forces the exit with code 1, logged', async () => {
    const child = npmStart({ LOG_LEVEL: 'info' })
    const exited = exitOf(child)
    const lines: Record<string, unknown>[] = []
    const { port } = new URL(await listening(child, lines))
    // A request that never completes keeps the graceful close waiting.
    const socket = connect(Number(port), '127.0.0.1')
    await once(socket, 'connect')
    socket.write(
      'POST /tugas HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{',
    )
    socket.on('error', () => {})
    await new Promise((resolve) => setTimeout(resolve, 200))
    // Three signals to the service itself, apart, so none merges with another.
    const pid = lines.find((line) => typeof line.pid === 'number')?.pid as number
    for (let i = 0; i < 3; i++) {
      process.kill(pid, 'SIGINT')
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    assert.notEqual((await exited).code, 0)
    socket.destroy()
    assert.ok(lines.some((line) => line.msg === 'forced exit: requests in flight are dropped'))
  })

  test('a bad setting stops start-up with a one-line message and a non-zero exit', async () => {
    const { code, stderr } = await exitOf(npmStart({ TUGAS_BATAS_DEFAULT: '500' }))
    assert.notEqual(code, 0)
    assert.equal(stderr, 'tugas: TUGAS_BATAS_DEFAULT="500" must be a whole number from 1 to 100\n')
  })

  test('a bad seed file stops start-up with a one-line message naming the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tugas-start-'))
    const file = join(dir, 'seed.json')
    await writeFile(file, '{"tugas": [{"title": "ok!", "done": true}]}')
    const { code, stderr } = await exitOf(npmStart({ SEED_FILE: file }))
    assert.notEqual(code, 0)
    assert.equal(
      stderr,
      `tugas: SEED_FILE ${file}: tugas[0] has unknown key "done" (allowed: title, status)\n`,
    )
  })
})
