// HTTPS (decisions.md 7, TLS_CERT_FILE and TLS_KEY_FILE): the listener offers HTTP/2 by ALPN and
// keeps HTTP/1.1, and both answer as plain HTTP does. Over real TLS connections, with
// certificates made at run time by openssl.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import {
  type ClientHttp2Session,
  connect as connectHttp2,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
} from 'node:http2'
import { Agent, request as httpsRequest } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { promisify } from 'node:util'
import type { FastifyInstance } from 'fastify'
import { loadTls } from '../src/server/tls.js'
import { testApp } from './support/helpers.js'
import { exitOf, listening, npmStart } from './support/processes.js'
import { exchange, listenOnLoopback, request } from './support/raw-http.js'

const dir = await mkdtemp(join(tmpdir(), 'tugas-tls-'))
after(() => rm(dir, { recursive: true, force: true }))

/** A self-signed certificate for localhost and 127.0.0.1, and its key: two PEM files. */
async function selfSigned(name: string): Promise<{ certFile: string; keyFile: string }> {
  const certFile = join(dir, `${name}-cert.pem`)
  const keyFile = join(dir, `${name}-key.pem`)
  await promisify(execFile)('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=localhost',
    '-addext',
    'subjectAltName=DNS:localhost,IP:127.0.0.1',
    '-keyout',
    keyFile,
    '-out',
    certFile,
  ])
  return { certFile, keyFile }
}

const files = await selfSigned('service')
const tls = await loadTls(files)
/** Clients trust the service's certificate, and nothing else. */
const ca = tls.cert

interface Answer {
  status: number
  headers: IncomingHttpHeaders
  body: string
}

interface Call {
  method?: string
  path: string
  headers?: OutgoingHttpHeaders
  body?: string
}

/** One exchange over a new HTTP/1.1 connection with TLS (the client offers no HTTP/2). */
async function overHttp1(port: number, call: Call, agent?: Agent): Promise<Answer> {
  const req = httpsRequest({
    host: '127.0.0.1',
    port,
    ca,
    method: call.method ?? 'GET',
    path: call.path,
    headers: call.headers,
    ...(agent && { agent }),
  })
  req.end(call.body)
  const [res] = await once(req, 'response')
  assert.equal(res.socket.alpnProtocol, false, 'no protocol negotiated: HTTP/1.1')
  res.setEncoding('utf8')
  let body = ''
  for await (const chunk of res) body += chunk
  return { status: res.statusCode, headers: res.headers, body }
}

const sessions: ClientHttp2Session[] = []
after(() => {
  for (const session of sessions) session.destroy()
})

/** An HTTP/2 session with the service; closed when the test file ends, if not before. */
async function http2Session(port: number): Promise<ClientHttp2Session> {
  const session = connectHttp2(`https://127.0.0.1:${port}`, { ca })
  session.on('error', () => {})
  sessions.push(session)
  await once(session, 'connect')
  return session
}

/** One exchange on a new stream of `session`. */
async function overHttp2(session: ClientHttp2Session, call: Call): Promise<Answer> {
  const stream = session.request({
    ':method': call.method ?? 'GET',
    ':path': call.path,
    ...call.headers,
  })
  stream.end(call.body)
  const [headers] = (await once(stream, 'response')) as [IncomingHttpHeaders]
  stream.setEncoding('utf8')
  let body = ''
  for await (const chunk of stream) body += chunk
  return { status: Number(headers[':status']), headers, body }
}

/** Node's warnings about what HTTP/2 does not support (a Connection header) while this runs. */
const unsupported: string[] = []
process.on('warning', (warning) => {
  if (warning.name === 'UnsupportedWarning') unsupported.push(warning.message)
})

const json = { 'content-type': 'application/json' }
const TASK_1 = '{"id":1,"title":"Belajar REST","status":"selesai"}'

describe('one listener, HTTP/2 and HTTP/1.1 over TLS', { timeout: 20_000 }, () => {
  let app: FastifyInstance
  let port: number
  let session: ClientHttp2Session

  before(async () => {
    app = await testApp({ tls, closedBy: 'caller' })
    port = await listenOnLoopback(app)
    session = await http2Session(port)
  })
  after(() => app.close())

  test('HTTP/1.1 with TLS: GET /tugas/1 is 200 with the task and an X-Request-Id', async () => {
    const answer = await overHttp1(port, { path: '/tugas/1', headers: { 'x-request-id': 'h1-7' } })
    assert.equal(answer.status, 200)
    assert.equal(answer.body, TASK_1)
    assert.equal(answer.headers['x-request-id'], 'h1-7')
    assert.match(answer.headers['content-type'] ?? '', /^application\/json/)
  })

  test('HTTP/2 is what ALPN picks; GET /tugas/1 is 200 with the task and an X-Request-Id', async () => {
    assert.equal(session.alpnProtocol, 'h2')
    const answer = await overHttp2(session, {
      path: '/tugas/1',
      headers: { 'x-request-id': 'h2-7' },
    })
    assert.equal(answer.status, 200)
    assert.equal(answer.body, TASK_1)
    assert.equal(answer.headers['x-request-id'], 'h2-7')
    assert.match(String(answer.headers['content-type']), /^application\/json/)
    const generated = await overHttp2(session, { path: '/tugas/1' })
    assert.match(String(generated.headers['x-request-id']), /^[0-9a-f-]{36}$/)
  })

  test('HTTP/2: GET /events streams each write as it happens, beside other requests on the session', async () => {
    const stream = session.request({ ':path': '/events?types=tugas.created' })
    stream.end()
    const [headers] = (await once(stream, 'response')) as [IncomingHttpHeaders]
    assert.equal(headers[':status'], 200)
    assert.equal(headers['content-type'], 'text/event-stream; charset=utf-8')
    stream.setEncoding('utf8')
    let received = ''
    const arrived = new Promise<void>((resolve) => {
      stream.on('data', (chunk: string) => {
        received += chunk
        if (received.includes('event: tugas.created')) resolve()
      })
    })
    const created = await overHttp2(session, {
      method: 'POST',
      path: '/tugas',
      headers: json,
      body: JSON.stringify({ title: 'Disiarkan lewat HTTP/2' }),
    })
    await arrived
    stream.close()
    const data = /^data: (.*)$/m.exec(received)?.[1] as string
    assert.deepEqual(JSON.parse(data).data, JSON.parse(created.body))
    assert.match(received, /^retry: 2000\n\n/)
  })

  test('HTTP/2: POST /tugas is 201 with Location, and the task is there', async () => {
    const created = await overHttp2(session, {
      method: 'POST',
      path: '/tugas',
      headers: json,
      body: JSON.stringify({ title: 'Lewat HTTP/2' }),
    })
    assert.equal(created.status, 201)
    const { id } = JSON.parse(created.body) as { id: number }
    assert.equal(created.headers.location, `/tugas/${id}`)
    assert.equal(JSON.parse(created.body).title, 'Lewat HTTP/2')
    const read = await overHttp2(session, { path: `/tugas/${id}` })
    assert.equal(read.status, 200)
    assert.equal(read.body, created.body)
  })

  describe('error answers are the ones plain HTTP gives, on both protocols', () => {
    const calls: Call[] = [
      { path: '/tugas/abc' },
      { path: '/tidak-ada' },
      { path: '/tugas/%ZZ' },
      // The router cannot read it: Fastify's framework-error path.
      { method: 'OPTIONS', path: '*' },
      { method: 'PATCH', path: '/tugas' },
      { path: '/api/tugas/abc' },
      { method: 'POST', path: '/tugas', headers: json, body: '{"title":' },
      { method: 'POST', path: '/tugas', headers: { 'content-type': 'text/plain' }, body: 'x' },
      { method: 'POST', path: '/tugas', headers: json, body: JSON.stringify({ title: '' }) },
      { method: 'POST', path: '/api/tugas', headers: json, body: '[1,' },
    ]
    let plain: FastifyInstance
    before(async () => {
      plain = await testApp({ closedBy: 'caller' })
    })
    after(() => plain.close())

    for (const call of calls) {
      test(`${call.method ?? 'GET'} ${call.path} ${call.body ?? ''}`, async () => {
        const expected = await plain.inject({
          method: call.method ?? 'GET',
          url: call.path,
          headers: call.headers as Record<string, string>,
          ...(call.body !== undefined && { payload: call.body }),
        })
        assert.ok(expected.statusCode >= 400)
        if (expected.statusCode === 405) assert.ok(expected.headers.allow)
        for (const answer of [await overHttp2(session, call), await overHttp1(port, call)]) {
          assert.equal(answer.status, expected.statusCode)
          assert.equal(answer.body, expected.body)
          assert.equal(answer.headers['content-type'], expected.headers['content-type'])
          assert.equal(answer.headers.allow, expected.headers.allow)
          assert.ok(answer.headers['x-request-id'])
        }
      })
    }
  })

  test('HTTP/2 answers carry no connection header, and Node is given none to warn about', async () => {
    // Fastify asks to close the connection after a body it could not read.
    const answer = await overHttp2(session, {
      method: 'POST',
      path: '/tugas',
      headers: json,
      body: '{"title":',
    })
    assert.equal(answer.status, 400)
    assert.equal(answer.headers.connection, undefined)
    await new Promise((resolve) => setImmediate(resolve))
    // Node warns once per process, so every HTTP/2 answer of this file so far counts.
    assert.deepEqual(unsupported, [])
  })
})

describe('time limits under TLS', { timeout: 30_000 }, () => {
  const LIMITS = { requestTimeoutMs: 900, headersTimeoutMs: 450, keepAliveTimeoutMs: 300 }
  const TIMED_OUT = '{"error":{"kode":"WAKTU_HABIS","pesan":"request was not received in time"}}'
  let app: FastifyInstance
  let port: number
  const logs: Record<string, unknown>[] = []

  before(async () => {
    app = await testApp({ tls, config: LIMITS, logs, closedBy: 'caller' })
    port = await listenOnLoopback(app)
  })
  after(() => app.close())

  /** A create whose body is sent one byte every 50 ms: 4 s in full. */
  const trickled = JSON.stringify({ title: 'x'.repeat(60) })

  async function assertNothingCreated() {
    const list = (await app.inject({ url: '/tugas' })).json() as { title: string }[]
    assert.ok(list.every((task) => task.title !== 'x'.repeat(60)))
  }

  test('HTTP/1.1: a head that never ends is 408 once HEADERS_TIMEOUT_MS has passed', async () => {
    const answer = await exchange(port, ['GET /tugas HTTP/1.1\r\nHost: x\r\n'], { ca })
    assert.equal(answer.status, 408)
    assert.equal(answer.body, TIMED_OUT)
    assert.ok(answer.closedAfterMs >= LIMITS.headersTimeoutMs, `${answer.closedAfterMs} ms`)
    assert.ok(answer.closedAfterMs < LIMITS.requestTimeoutMs + 1000, `${answer.closedAfterMs} ms`)
  })

  test('HTTP/1.1: a body sent one byte at a time is 408 once REQUEST_TIMEOUT_MS has passed', async () => {
    const head = request('POST', '/tugas', { ...json, 'content-length': String(trickled.length) })
    const answer = await exchange(port, [head, ...trickled], { gapMs: 50, ca })
    assert.equal(answer.status, 408)
    assert.equal(answer.body, TIMED_OUT)
    assert.ok(answer.closedAfterMs >= LIMITS.requestTimeoutMs, `${answer.closedAfterMs} ms`)
    assert.ok(answer.closedAfterMs < 3000, `${answer.closedAfterMs} ms`)
    await assertNothingCreated()
  })

  test('HTTP/1.1: an idle keep-alive connection is closed after KEEP_ALIVE_TIMEOUT_MS', async () => {
    const answer = await exchange(port, ['GET /tugas/1 HTTP/1.1\r\nHost: x\r\n\r\n'], { ca })
    assert.equal(answer.status, 200)
    assert.ok(answer.closedAfterMs >= LIMITS.keepAliveTimeoutMs, `${answer.closedAfterMs} ms`)
    assert.ok(answer.closedAfterMs < 3000, `${answer.closedAfterMs} ms`)
  })

  test('HTTP/1.1: a request without Host is 400, as over plain HTTP', async () => {
    const answer = await exchange(port, ['GET /tugas/1 HTTP/1.1\r\n\r\n'], { ca })
    assert.equal(answer.status, 400)
  })

  test('HTTP/2: a body sent one byte at a time is 408 once REQUEST_TIMEOUT_MS has passed', async () => {
    const session = await http2Session(port)
    let sessionClosedAt: number | undefined
    session.once('close', () => {
      sessionClosedAt = Date.now()
    })
    const started = Date.now()
    const stream = session.request({ ':method': 'POST', ':path': '/tugas', ...json })
    stream.on('error', () => {})
    const closed = once(stream, 'close')
    const sending = (async () => {
      for (const byte of trickled) {
        if (stream.closed || stream.destroyed) return
        stream.write(byte)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      stream.end()
    })()
    const [headers] = (await once(stream, 'response')) as [IncomingHttpHeaders]
    const answeredAt = Date.now()
    stream.setEncoding('utf8')
    let body = ''
    stream.on('data', (chunk: string) => {
      body += chunk
    })
    await closed
    await sending
    const elapsed = Date.now() - started
    // The 408 ends the stream, not the session: it still serves. Asked at once. The session
    // may be gone all the same, closed by its idle limit (GOAWAY): the client's stream at
    // times lingers after the server's reset and sends nothing more, so the session idles
    // from the 408 on. Then it closed no sooner than that limit after the 408; a session
    // closed by the 408 itself fails here.
    const after = await overHttp2(session, { path: '/tugas/1' }).catch((error: unknown) => {
      const idle = (sessionClosedAt ?? Number.POSITIVE_INFINITY) - answeredAt
      assert.ok(
        sessionClosedAt !== undefined && idle >= LIMITS.keepAliveTimeoutMs - 50,
        `the session closed ${idle} ms after the 408: ${String(error)}`,
      )
      return { status: 200, headers: {}, body: 'closed idle, by design' }
    })
    assert.equal(headers[':status'], 408)
    assert.equal(body, TIMED_OUT)
    // One line for the request, under the id the client was given; nothing else to say.
    const id = headers['x-request-id']
    assert.deepEqual(
      logs.filter((line) => line.reqId === id).map((line) => [line.msg, line.statusCode]),
      [['request completed', 408]],
    )
    assert.deepEqual(
      logs.filter((line) => Number(line.level) >= 40),
      [],
    )
    // The stream is reset so that the client stops sending, with no error.
    assert.equal(stream.rstCode, 0)
    assert.ok(elapsed >= LIMITS.requestTimeoutMs, `${elapsed} ms`)
    assert.ok(elapsed < 3000, `${elapsed} ms`)
    await assertNothingCreated()
    assert.equal(after.status, 200)
  })

  test('HTTP/2: a request that takes less than the limit is not cut', async () => {
    const session = await http2Session(port)
    const stream = session.request({ ':method': 'POST', ':path': '/tugas', ...json })
    const body = JSON.stringify({ title: 'Tepat waktu' })
    stream.write(body.slice(0, 5))
    await new Promise((resolve) => setTimeout(resolve, LIMITS.requestTimeoutMs / 2))
    stream.end(body.slice(5))
    const [headers] = (await once(stream, 'response')) as [IncomingHttpHeaders]
    stream.resume()
    assert.equal(headers[':status'], 201)
  })

  test('HTTP/2: an idle session is closed after KEEP_ALIVE_TIMEOUT_MS', async () => {
    const session = await http2Session(port)
    const closed = once(session, 'close')
    await overHttp2(session, { path: '/tugas/1' })
    const idleFrom = Date.now()
    await closed
    const idle = Date.now() - idleFrom
    assert.ok(idle >= LIMITS.keepAliveTimeoutMs - 50, `${idle} ms`)
    assert.ok(idle < 3000, `${idle} ms`)
  })
})

describe('closing under TLS', { timeout: 20_000 }, () => {
  test('idle HTTP/2 sessions and HTTP/1.1 keep-alive connections do not hold close()', async () => {
    const app = await testApp({ tls, config: { keepAliveTimeoutMs: 60_000 }, closedBy: 'caller' })
    const port = await listenOnLoopback(app)
    const session = await http2Session(port)
    assert.equal((await overHttp2(session, { path: '/tugas/1' })).status, 200)
    const agent = new Agent({ keepAlive: true })
    after(() => agent.destroy())
    assert.equal((await overHttp1(port, { path: '/tugas/1' }, agent)).status, 200)

    const started = Date.now()
    await app.close()
    const took = Date.now() - started
    assert.ok(took < 1000, `close() took ${took} ms`)
  })

  test('an HTTP/2 request in flight when closing starts is still answered', async () => {
    const app = await testApp({ tls, closedBy: 'caller' })
    const port = await listenOnLoopback(app)
    const session = await http2Session(port)
    const stream = session.request({ ':method': 'POST', ':path': '/tugas', ...json })
    const body = JSON.stringify({ title: 'Selesai saat berhenti' })
    stream.write(body.slice(0, 5))
    await new Promise((resolve) => setTimeout(resolve, 100))
    const closing = app.close()
    await new Promise((resolve) => setTimeout(resolve, 200))
    stream.end(body.slice(5))
    const [headers] = (await once(stream, 'response')) as [IncomingHttpHeaders]
    stream.resume()
    assert.equal(headers[':status'], 201)
    await closing
  })
})

describe('loadTls', () => {
  let other: { certFile: string; keyFile: string }
  let notPem: string
  before(async () => {
    other = await selfSigned('other')
    notPem = join(dir, 'not-pem.txt')
    await writeFile(notPem, 'not a PEM file\n')
  })

  test('reads a certificate and its key', async () => {
    const loaded = await loadTls(files)
    assert.match(loaded.cert.toString(), /^-----BEGIN CERTIFICATE-----/)
    assert.match(loaded.key.toString(), /^-----BEGIN PRIVATE KEY-----/)
  })

  test('refuses a file it cannot read, naming the setting and the file', async () => {
    const missing = join(dir, 'missing.pem')
    await assert.rejects(loadTls({ ...files, certFile: missing }), {
      name: 'StartUpError',
      message: `TLS_CERT_FILE: cannot read ${missing} (ENOENT)`,
    })
    await assert.rejects(loadTls({ ...files, keyFile: dir }), {
      message: `TLS_KEY_FILE: cannot read ${dir} (EISDIR)`,
    })
  })

  test('refuses a certificate or a key that is not PEM', async () => {
    await assert.rejects(loadTls({ ...files, certFile: notPem }), {
      message: new RegExp(`^TLS_CERT_FILE: ${notPem} is not a PEM certificate \\(.+\\)$`),
    })
    await assert.rejects(loadTls({ ...files, keyFile: notPem }), {
      message: new RegExp(`^TLS_KEY_FILE: ${notPem} is not a PEM private key \\(.+\\)$`),
    })
    // A certificate is not a key, nor a key a certificate.
    await assert.rejects(loadTls({ certFile: files.keyFile, keyFile: files.certFile }), {
      message: /^TLS_CERT_FILE: .* is not a PEM certificate/,
    })
  })

  test('refuses a key that belongs to another certificate', async () => {
    await assert.rejects(loadTls({ ...files, keyFile: other.keyFile }), {
      message: `TLS_KEY_FILE: ${other.keyFile} is not the private key of the certificate in ${files.certFile}`,
    })
  })
})

describe('npm start with TLS_CERT_FILE and TLS_KEY_FILE', { timeout: 60_000 }, () => {
  const env = { TLS_CERT_FILE: files.certFile, TLS_KEY_FILE: files.keyFile }

  test('listens on https://, answers both protocols, and stops on SIGTERM at once although clients stay connected', async () => {
    const child = npmStart({ ...env, LOG_LEVEL: 'info', KEEP_ALIVE_TIMEOUT_MS: '60000' })
    const exited = exitOf(child)
    let stopped = 0
    try {
      const lines: Record<string, unknown>[] = []
      const base = await listening(child, lines)
      assert.match(base, /^https:\/\/127\.0\.0\.1:\d+$/)
      const port = Number(new URL(base).port)

      const session = await http2Session(port)
      const answer = await overHttp2(session, { path: '/tugas/1' })
      assert.equal(answer.status, 200)
      assert.equal(answer.body, TASK_1)
      const agent = new Agent({ keepAlive: true })
      after(() => agent.destroy())
      assert.equal((await overHttp1(port, { path: '/tugas/1' }, agent)).body, TASK_1)
      // Both stay open, idle, for the keep-alive timeout of a minute.
    } finally {
      stopped = Date.now()
      child.kill('SIGTERM')
    }
    const { code, stderr } = await exited
    const took = Date.now() - stopped
    assert.equal(code, 0)
    assert.equal(stderr, '')
    assert.ok(took < 2000, `exited ${took} ms after SIGTERM`)
  })

  /** The one line the service refuses to start with, and its exit code. */
  async function refusal(settings: Record<string, string>) {
    return exitOf(npmStart(settings))
  }

  test('only one of the two settings: refused', async () => {
    const line = 'tugas: TLS_CERT_FILE and TLS_KEY_FILE must be set together, or neither\n'
    assert.deepEqual(await refusal({ TLS_CERT_FILE: files.certFile }), { code: 1, stderr: line })
    assert.deepEqual(await refusal({ TLS_KEY_FILE: files.keyFile }), { code: 1, stderr: line })
  })

  test('a missing certificate file: refused, naming it', async () => {
    const missing = join(dir, 'missing.pem')
    assert.deepEqual(await refusal({ ...env, TLS_CERT_FILE: missing }), {
      code: 1,
      stderr: `tugas: TLS_CERT_FILE: cannot read ${missing} (ENOENT)\n`,
    })
  })

  test('a key file that is not PEM: refused, naming it', async () => {
    const notPem = join(dir, 'not-pem-key.txt')
    await writeFile(notPem, 'not a PEM file\n')
    const why = await loadTls({ ...files, keyFile: notPem }).catch((error: Error) => error.message)
    assert.deepEqual(await refusal({ ...env, TLS_KEY_FILE: notPem }), {
      code: 1,
      stderr: `tugas: ${why}\n`,
    })
    assert.match(String(why), new RegExp(`^TLS_KEY_FILE: ${notPem} is not a PEM private key`))
  })

  test('a key that belongs to another certificate: refused, naming both files', async () => {
    const other = await selfSigned('stranger')
    assert.deepEqual(await refusal({ ...env, TLS_KEY_FILE: other.keyFile }), {
      code: 1,
      stderr: `tugas: TLS_KEY_FILE: ${other.keyFile} is not the private key of the certificate in ${files.certFile}\n`,
    })
  })
})
