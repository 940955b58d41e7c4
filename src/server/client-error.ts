import { randomUUID } from 'node:crypto'
import { type ServerResponse, STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyBaseLogger } from 'fastify'
import { RAW_SECURITY_HEADERS } from '../http/security-headers.js'

/** What the HTTP parser, or a time limit, refused before any route could see the request. */
export type ClientErrorStatus = 400 | 408 | 431

/** The status Node's own answer would carry for a parser or time-limit error. */
export function clientErrorStatus(code: string | undefined): ClientErrorStatus {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408
  if (code === 'HPE_HEADER_OVERFLOW') return 431
  return 400
}

/**
 * The `clientError` listener: a request the HTTP parser rejects (a malformed request line,
 * a raw non-ASCII byte, a header over the size limit) or that a time limit cuts off is
 * answered with `body(status)`, a JSON error in the service's generic shape, when the
 * connection can still carry an answer (nothing of a response was written yet); the connection
 * is then closed, since nothing after the bad bytes can be trusted. Fastify's own default
 * would send its `{ statusCode, error, message }` body. Each one gets a request id and a log
 * line, as a routed request does.
 */
export function answerClientErrors(
  log: () => FastifyBaseLogger,
  body: (statusCode: ClientErrorStatus) => string,
) {
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    // A reset connection has nobody left to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return
    const statusCode = clientErrorStatus(error.code)
    const reqId = randomUUID()
    log().info({ reqId, statusCode, reason: error.code ?? error.message }, 'request refused')
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage
    if (!socket.writable || inFlight?.headersSent) {
      socket.destroy()
      return
    }
    const text = body(statusCode)
    const head = [
      `HTTP/1.1 ${statusCode} ${STATUS_CODES[statusCode]}`,
      'content-type: application/json; charset=utf-8',
      `content-length: ${Buffer.byteLength(text)}`,
      `x-request-id: ${reqId}`,
      // Whether the refused request carried a credential is not known: never kept.
      ...RAW_SECURITY_HEADERS,
      'connection: close',
    ]
    socket.end(`${head.join('\r\n')}\r\n\r\n${text}`, () => socket.destroy())
  }
}
