import { type FastifyReply, type FastifyRequest, LogController } from 'fastify'
import { apiVersionOf } from './api-version.js'

/**
 * One JSON log line per request, written when the response is done, carrying the request id
 * (`reqId`). Fastify's separate "incoming request" and "route not found" lines are dropped.
 * Headers are never logged: they may hold credentials. A request answered by a versioned
 * endpoint also carries `apiVersion` and `apiVersionCount`, the number of requests that version
 * has answered since the process started.
 */
export class RequestLog extends LogController {
  readonly #versionCounts = new Map<string, number>()

  override incomingRequest(): void {}

  override routeNotFound(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line: Record<string, unknown> = {
      method: request.method,
      // As sent: the router may have read it with undecodable segments made literal.
      url: request.originalUrl,
      statusCode: reply.statusCode,
      responseTimeMs: Math.round(reply.elapsedTime * 1000) / 1000,
    }
    const apiVersion = apiVersionOf(request)
    if (apiVersion !== undefined) {
      const count = (this.#versionCounts.get(apiVersion) ?? 0) + 1
      this.#versionCounts.set(apiVersion, count)
      line.apiVersion = apiVersion
      line.apiVersionCount = count
    }
    if (error) reply.log.error({ ...line, err: error }, 'request errored')
    else reply.log.info(line, 'request completed')
  }
}
