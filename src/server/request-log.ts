import { type FastifyReply, type FastifyRequest, LogController } from 'fastify'
import { apiVersionOf } from '../http/api-version.js'
import type { Metrics } from '../metrics/index.js'
import type { VersionCounts } from '../metrics/version-counts.js'

/**
 * One JSON log line per request, written when the response is done, carrying the request id
 * (`reqId`). Fastify's separate "incoming request" and "route not found" lines are dropped.
 * Headers are never logged: they may hold credentials. A request answered by a versioned
 * endpoint also carries `apiVersion` and `apiVersionCount`, the number of requests that version
 * has answered (`counts`: this process's, or every process's through Redis); that line is
 * written once the count is known. Every request is also counted in `metrics` here, the one
 * place that sees each request once, framework errors included.
 */
export class RequestLog extends LogController {
  constructor(
    private readonly counts: VersionCounts,
    private readonly metrics: Metrics,
  ) {
    super()
  }

  override incomingRequest(): void {}

  override routeNotFound(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    this.metrics.requestCompleted(request, reply)
    const line: Record<string, unknown> = {
      method: request.method,
      // As sent: the router may have read it with undecodable segments made literal.
      url: request.originalUrl,
      statusCode: reply.statusCode,
      responseTimeMs: Math.round(reply.elapsedTime * 1000) / 1000,
    }
    const write = () => {
      if (error) reply.log.error({ ...line, err: error }, 'request errored')
      else reply.log.info(line, 'request completed')
    }
    const apiVersion = apiVersionOf(request)
    if (apiVersion === undefined) {
      write()
      return
    }
    line.apiVersion = apiVersion.name
    this.metrics.apiVersionAnswered(apiVersion)
    void this.counts.add(apiVersion.name).then((count) => {
      if (count !== undefined) line.apiVersionCount = count
      write()
    })
  }
}
