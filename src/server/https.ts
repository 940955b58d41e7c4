import type { Server } from 'node:http'
import {
  constants,
  type Http2SecureServer,
  type Http2ServerRequest,
  type ServerHttp2Session,
} from 'node:http2'
import type { Socket } from 'node:net'
import Fastify, {
  type FastifyHttp2SecureOptions,
  type FastifyHttpOptions,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type onRequestHookHandler,
  type onSendHookHandler,
} from 'fastify'
import type { TlsFiles } from './tls.js'

/** Node's time limits of an HTTP/1 server, as the server's own properties. */
export interface Http1Limits {
  requestTimeout: number
  headersTimeout: number
  keepAliveTimeout: number
  connectionsCheckingInterval: number
}

/**
 * The app served over HTTPS: HTTP/2 offered by ALPN, HTTP/1.1 kept for clients that do not
 * offer it. HTTP/1.1 connections keep every one of `limits`. HTTP/2 has no head limit of its
 * own; its sessions close after the keep-alive limit of idleness, and its requests get the
 * whole-request limit, answered 408 with `timedOutBody` as over HTTP/1.1.
 */
export function httpsFastify(
  options: FastifyHttpOptions<Server>,
  tls: TlsFiles,
  limits: Http1Limits,
  timedOutBody: string,
): FastifyInstance {
  const secure = {
    ...options,
    http2: true,
    https: { allowHTTP1: true, cert: tls.cert, key: tls.key },
    // Fastify closes an HTTP/2 session idle this long (no frame either way), as Node closes an
    // idle keep-alive connection; a request in flight is still answered (GOAWAY, then close).
    http2SessionTimeout: limits.keepAliveTimeout,
  }
  // Every module is written against Fastify's default (HTTP/1) types. Under HTTP/2 Fastify
  // hands them Node's compatibility request and response, which have the same API for all
  // they use (headers, status, body, `finish`), so the instance keeps the default type.
  const app = Fastify(
    secure as unknown as FastifyHttp2SecureOptions<Http2SecureServer>,
  ) as unknown as FastifyInstance
  // Node's HTTP/2 server serves the HTTP/1.1 fallback with fixed limits of its own (5 minutes
  // for a request, none for an idle connection) and answers a request without Host, and
  // Fastify sets its HTTP/1 options on HTTP/1 servers only. Set before listen: the checking
  // interval is read when the server starts listening, the rest on each use.
  Object.assign(app.server, limits, { requireHostHeader: true })
  app.addHook('onRequest', http2RequestDeadline(limits.requestTimeout, timedOutBody))
  app.addHook('onSend', withoutConnectionHeader)
  return app
}

/**
 * REQUEST_TIMEOUT_MS for HTTP/2, where Node counts no request time: a body that trickles in
 * keeps its session active, so the session's idle limit never ends it. A request whose body has
 * not fully arrived `ms` after its head is answered 408 with `body`, as over HTTP/1.1, and its
 * stream is then reset, so nothing more is read from it. A request whose head ends it (a GET)
 * needs no deadline.
 */
function http2RequestDeadline(ms: number, body: string): onRequestHookHandler {
  return (request, reply, done) => {
    if (request.raw.httpVersionMajor === 2) {
      const { stream } = request.raw as unknown as Http2ServerRequest
      if (!stream.endAfterHeaders) {
        const timer = setTimeout(expire, ms, request, reply, body).unref()
        stream.once('close', () => clearTimeout(timer))
      }
    }
    done()
  }
}

function expire(request: FastifyRequest, reply: FastifyReply, body: string): void {
  const { stream } = request.raw as unknown as Http2ServerRequest
  // The client ended the stream in time: whatever still runs is the service's own work.
  if (stream.closed || stream.destroyed || stream.state.remoteClose) return
  // The body reader, if one is waiting, is let go without an end or an error: otherwise it
  // would answer the request again with what it read so far.
  request.raw.destroy()
  if (!reply.sent) {
    reply.code(408).type('application/json; charset=utf-8').send(body)
  }
  // Reset once the answer is written, never before: a reset cuts what is still queued, and
  // an ended stream (end() called) may still hold the body in its queue.
  const reset = () => stream.close(constants.NGHTTP2_NO_ERROR)
  if (stream.writableFinished) reset()
  else stream.once('finish', reset)
}

/**
 * HTTP/2 has no Connection header (RFC 9113, 8.2.2). Fastify adds `connection: close` to the
 * answer to a body it could not read; Node drops it from an HTTP/2 answer, but with a warning on
 * stderr. Dropped here first.
 */
const withoutConnectionHeader: onSendHookHandler = (request, reply, payload, done) => {
  if (request.raw.httpVersionMajor === 2) reply.removeHeader('connection')
  done(null, payload)
}

/**
 * What the closing sweep calls, on any server: closes the HTTP/1.1 connections that wait idle
 * for a next request, and those that have sent nothing at all yet, and asks each HTTP/2
 * session to close (GOAWAY: no new stream, the open ones still answered). Before Node 24,
 * closing an HTTP/2 server leaves its sessions open, so an idle one would hold close() for its
 * whole idle limit.
 */
export function idleCloser(server: Server): () => void {
  const sessions = new Set<ServerHttp2Session>()
  server.on('session', (session: ServerHttp2Session) => {
    sessions.add(session)
    session.once('close', () => sessions.delete(session))
  })
  // A connection that has sent no byte (a browser's preconnect, a spare an HTTP client opened)
  // carries no request, yet Node counts it neither idle nor busy: it would hold close() until
  // the headers timeout. Over TLS the handshake's bytes count, so only plain ones are seen so.
  const connections = new Set<Socket>()
  server.on('connection', (socket: Socket) => {
    connections.add(socket)
    socket.once('close', () => connections.delete(socket))
  })
  return () => {
    // An HTTP/2 server has it (for its HTTP/1.1 connections) only in recent Node versions.
    if (typeof server.closeIdleConnections === 'function') server.closeIdleConnections()
    for (const session of sessions) session.close()
    for (const socket of connections) if (socket.bytesRead === 0) socket.destroy()
  }
}
