import type { FastifyInstance } from 'fastify'
import { MetricsUnavailableError } from '../../metrics/cluster.js'
import { METRICS_CONTENT_TYPE, METRICS_PATH, type Metrics } from '../../metrics/index.js'

/**
 * `GET /metrics`: Prometheus text, open like `/health/ready`, in no surface of the spec and not
 * in `/openapi.json`. Under `WORKERS` it is every worker's sum; when a worker does not answer in
 * time the scrape is 503, so a sum is never short of a worker that is still alive.
 */
export async function metricsSurface(instance: FastifyInstance, { metrics }: { metrics: Metrics }) {
  instance.get(METRICS_PATH, async (request, reply) => {
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
        .send(`metrics unavailable: ${error.message}\n`)
    }
    return reply.type(METRICS_CONTENT_TYPE).send(text)
  })
}
