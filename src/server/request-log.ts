import {
  type FastifyBaseLogger,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify'
import pino from 'pino'
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
    const apiVersion = apiVersionOf(request)
    if (apiVersion !== undefined) this.metrics.apiVersionAnswered(apiVersion)
    // The line is made only when the logger's level lets it out: at `warn`, nearly every request.
    const level = error ? 'error' : 'info'
    const writes = writesAt(reply.log, level)
    if (apiVersion === undefined) {
      if (writes) writeLine(reply, level, completedLine(error, request, reply))
      return
    }
    if (!writes) {
      void this.counts.add(apiVersion.name)
      return
    }
    const line = completedLine(error, request, reply)
    line.apiVersion = apiVersion.name
    void this.counts.add(apiVersion.name).then((count) => {
      if (count !== undefined) line.apiVersionCount = count
      writeLine(reply, level, line)
    })
  }
}

const LEVEL_VALUES: Readonly<Record<string, number>> = pino.levels.values

/**
 * Whether `log` writes a line at `level`: pino's and the request logger's own test, by number;
 * by its level's name for a logger without one (a level it does not know writes everything).
 */
function writesAt(log: FastifyBaseLogger & Partial<LevelTest>, level: 'info' | 'error'): boolean {
  if (log.isLevelEnabled !== undefined) return log.isLevelEnabled(level)
  return (LEVEL_VALUES[log.level] ?? 0) <= (LEVEL_VALUES[level] as number)
}

interface LevelTest {
  isLevelEnabled(level: string): boolean
}

function completedLine(
  error: Error | null | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
): Record<string, unknown> {
  return {
    method: request.method,
    // As sent: the router may have read it with undecodable segments made literal.
    url: request.originalUrl,
    statusCode: reply.statusCode,
    responseTimeMs: Math.round(reply.elapsedTime * 1000) / 1000,
    ...(error && { err: error }),
  }
}

function writeLine(reply: FastifyReply, level: 'info' | 'error', line: Record<string, unknown>) {
  if (level === 'error') reply.log.error(line, 'request errored')
  else reply.log.info(line, 'request completed')
}
