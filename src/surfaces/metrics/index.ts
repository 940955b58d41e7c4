import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { OperationSpec } from '../../http/route-spec.js'
import { MetricsUnavailableError } from '../../metrics/cluster.js'
import { METRICS_CONTENT_TYPE, METRICS_PATH, type Metrics } from '../../metrics/index.js'

/** The metrics' group in the document. */
export const METRICS_TAG = {
  name: 'Metrics',
  description:
    'Prometheus metrics of this deployment: requests, latency, per-version traffic, `/laporan` ' +
    'rate-limit decisions, the PostgreSQL pool, the process.',
}

/** The 503's text: why the metrics of every worker could not be gathered. */
const UNAVAILABLE_PREFIX = 'metrics unavailable: '

/** `GET /metrics` as the document publishes it (docs/operating.md#metrics-get-metrics). */
export const metricsOperation: OperationSpec = {
  method: 'GET',
  path: METRICS_PATH,
  operationId: 'getMetrics',
  summary: 'Prometheus metrics of this deployment, in the text exposition format 0.0.4.',
  description:
    'For a Prometheus scrape: `text/plain; version=0.0.4`, every metric with its `# HELP` and ' +
    '`# TYPE` lines (`tugas_http_requests_total`, `tugas_http_request_duration_seconds`, ' +
    '`tugas_api_version_requests_total`, `tugas_laporan_rate_limit_decisions_total`, the ' +
    '`tugas_postgres_pool_*` gauges with `DATABASE_URL`, the `tugas_process_*` and ' +
    '`tugas_nodejs_*` process metrics). Open, and not counted in itself. With `WORKERS` above ' +
    '1, the sum over every worker; a worker that does not answer within 2 s makes it 503.',
  tags: [METRICS_TAG.name],
  responses: {
    200: {
      description: 'The metrics (`Content-Type: text/plain; version=0.0.4; charset=utf-8`).',
      text: Type.String({
        description: 'Prometheus text exposition format, version 0.0.4.',
        pattern: '^# HELP tugas_',
      }),
    },
    503: {
      description:
        'Only with `WORKERS` above 1: not every worker answered in time, so no total is ' +
        'given rather than a short one. Retry.',
      text: Type.String({ pattern: `^${UNAVAILABLE_PREFIX}` }),
      headers: {
        'Retry-After': { description: 'Seconds: `1`.', schema: Type.String(), required: true },
      },
    },
  },
}

/**
 * `GET /metrics`: Prometheus text, open like `/health/ready`, in no surface of the spec. Under
 * `WORKERS` it is every worker's sum; when a worker does not answer in time the scrape is 503,
 * so a sum is never short of a worker that is still alive.
 */
export async function metricsSurface(instance: FastifyInstance, { metrics }: { metrics: Metrics }) {
  instance.get(metricsOperation.path, async (request, reply) => {
    let text: string
    try {
      text = await metrics.text()
    } catch (error) {
      if (!(error instanceof MetricsUnavailableError)) throw error
      request.log.warn({ err: error }, 'metrics: not every worker answered')
      return reply
        .code(503)
        .header('retry-after', '1')
        .type('text/plain; charset=utf-8')
        .send(`${UNAVAILABLE_PREFIX}${error.message}\n`)
    }
    return reply.type(METRICS_CONTENT_TYPE).send(text)
  })
}
