// A client that writes bytes as they are onto a socket, for what fetch and inject cannot send:
// malformed request lines, raw bytes in a path, bodies that trickle in, URLs no client encodes.
import { once } from 'node:events'
import { connect, type Socket } from 'node:net'
import { connect as connectTls } from 'node:tls'
import type { FastifyInstance } from 'fastify'

export interface RawAnswer {
  status: number
  headers: Record<string, string>
  body: string
  /** Milliseconds from the first byte written to the server closing the connection. */
  closedAfterMs: number
}

/** Listens on a free loopback port; the app is closed by the caller. */
export async function listenOnLoopback(app: FastifyInstance): Promise<number> {
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

/**
 * Writes `parts` to a new connection, `gapMs` apart, and reads until the server closes it
 * (within `limitMs`, or the test fails). One answer per connection: requests that the server
 * would keep alive should say `Connection: close`. With `ca`, the connection is TLS trusting
 * that certificate, and offers HTTP/1.1 only.
 */
export async function exchange(
  port: number,
  parts: (string | Buffer)[],
  { gapMs = 0, limitMs = 5000, ca }: { gapMs?: number; limitMs?: number; ca?: Buffer } = {},
): Promise<RawAnswer> {
  const socket =
    ca === undefined
      ? connect(port, '127.0.0.1')
      : connectTls({ port, host: '127.0.0.1', ca, ALPNProtocols: ['http/1.1'] })
  await once(socket, ca === undefined ? 'connect' : 'secureConnect')
  const started = Date.now()
  const chunks: Buffer[] = []
  socket.on('data', (chunk: Buffer) => chunks.push(chunk))
  socket.on('error', () => {})
  const closed = once(socket, 'close')
  let late = false
  const deadline = setTimeout(() => {
    late = true
    socket.destroy()
  }, limitMs)
  void writeSlowly(socket, parts, gapMs)
  await closed
  clearTimeout(deadline)
  const closedAfterMs = Date.now() - started
  if (late) throw new Error(`the server did not close the connection within ${limitMs} ms`)
  return { ...parse(Buffer.concat(chunks).toString('latin1')), closedAfterMs }
}

async function writeSlowly(socket: Socket, parts: (string | Buffer)[], gapMs: number) {
  for (const [i, part] of parts.entries()) {
    if (i > 0 && gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs))
    if (socket.destroyed) return
    socket.write(part)
  }
}

/** One HTTP/1.1 response, its body as bytes decoded as UTF-8 (by Content-Length, or all). */
function parse(text: string): Omit<RawAnswer, 'closedAfterMs'> {
  const end = text.indexOf('\r\n\r\n')
  if (end < 0) throw new Error(`no complete response head: ${JSON.stringify(text.slice(0, 200))}`)
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n')
  const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1])
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim()
  }
  let raw = text.slice(end + 4)
  const length = headers['content-length']
  if (length !== undefined) raw = raw.slice(0, Number(length))
  return { status, headers, body: Buffer.from(raw, 'latin1').toString('utf8') }
}

/** A complete request head (and body) that asks the server to close after answering. */
export function request(method: string, target: string, headers: Record<string, string> = {}) {
  const lines = Object.entries({ host: 'x', connection: 'close', ...headers }).map(
    ([name, value]) => `${name}: ${value}`,
  )
  return `${method} ${target} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`
}
