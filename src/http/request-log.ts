import { type FastifyReply, type FastifyRequest, LogController } from 'fastify'

/**
 * One JSON log line per request, written when the response is done, carrying the request id
 * (`reqId`). Fastify's separate "incoming request" and "route not found" lines are dropped.
 * Headers are never logged: they may hold credentials.
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override routeNotFound(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = {
      method: request.method,
      url: request.url,
      statusCode: reply.statusCode,
      responseTimeMs: Math.round(reply.elapsedTime * 1000) / 1000,
    }
    if (error) reply.log.error({ ...line, err: error }, 'request errored')
    else reply.log.info(line, 'request completed')
  }
}
