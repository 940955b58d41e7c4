import type { FastifyReply, FastifyRequest } from 'fastify'
import { Counter, type Metric, type Registry } from 'prom-client'

/**
 * Upper bounds, in seconds, of the latency histogram's buckets: most answers take a tenth of a
 * millisecond to a few, a database or a password hash tens, a time limit seconds.
 */
export const LATENCY_BUCKETS: readonly number[] = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
]

/** The route label of a request no route matched (the 404 of an unknown path). */
export const UNMATCHED = 'unmatched'

/** The requests of one route and method: counts by status, and latencies by bucket. */
class Series {
  readonly statuses = new Map<number, number>()
  /** Observations per bucket, not cumulative; the last one is above the largest bound. */
  readonly buckets: number[] = new Array(LATENCY_BUCKETS.length + 1).fill(0)
  sum = 0
  count = 0

  constructor(
    readonly route: string,
    readonly method: string,
  ) {}
}

/** One route label: its series by method, or none when its requests are not counted. */
class Route {
  readonly methods = new Map<string, Series>()

  constructor(
    readonly label: string,
    readonly counted: boolean,
  ) {}

  add(method: string): Series {
    const series = new Series(this.label, method)
    this.methods.set(method, series)
    return series
  }
}

/**
 * Requests by route pattern, method and status, and their latency. Recording a request costs
 * a few map lookups and additions on plain numbers: no label object, no string built. The
 * numbers become Prometheus metrics only when scraped: prom-client's own `labels().inc()`
 * hashes its labels on every call (docs/operating.md#metrics-get-metrics).
 */
export class RequestMetrics {
  /** By Fastify's route URL (`/tugas/:id(^[0-9]+$)`). */
  readonly #byUrl = new Map<string, Route>()
  /** By label (`/tugas/:id`): two URLs of one label share their numbers. */
  readonly #byLabel = new Map<string, Route>()
  readonly #unmatched = new Route(UNMATCHED, true)

  /** `uncounted`: route URLs whose requests are left out (the metrics route itself). */
  constructor(
    registry: Registry,
    private readonly uncounted: ReadonlySet<string>,
  ) {
    this.#byLabel.set(UNMATCHED, this.#unmatched)
    const series = () => this.#series()
    new Counter({
      name: 'tugas_http_requests_total',
      help: 'Requests answered, by route pattern, method and status code.',
      labelNames: ['route', 'method', 'status_code'] as const,
      registers: [registry],
      collect() {
        this.reset()
        for (const { route, method, statuses } of series()) {
          for (const [status, count] of statuses) {
            this.inc({ route, method, status_code: status }, count)
          }
        }
      },
    })
    registry.registerMetric(durationHistogram(series))
  }

  /** Counts one answered request: called once per request, when its response is done. */
  record(request: FastifyRequest, reply: FastifyReply): void {
    const url = request.routeOptions.url
    const route =
      url === undefined ? this.#unmatched : (this.#byUrl.get(url) ?? this.#addRoute(url))
    if (!route.counted) return
    const method = request.method
    const series = route.methods.get(method) ?? route.add(method)
    const status = reply.statusCode
    series.statuses.set(status, (series.statuses.get(status) ?? 0) + 1)
    const seconds = reply.elapsedTime / 1000
    let bucket = 0
    for (const bound of LATENCY_BUCKETS) {
      if (seconds <= bound) break
      bucket += 1
    }
    series.buckets[bucket] = (series.buckets[bucket] ?? 0) + 1
    series.sum += seconds
    series.count += 1
  }

  #addRoute(url: string): Route {
    // The pattern without its parameters' regular expressions: `/tugas/:id`.
    const label = url.replace(/(:\w+)\([^/]*\)/g, '$1')
    const route = this.#byLabel.get(label) ?? new Route(label, !this.uncounted.has(url))
    this.#byLabel.set(label, route)
    this.#byUrl.set(url, route)
    return route
  }

  *#series(): Iterable<Series> {
    for (const route of this.#byLabel.values()) yield* route.methods.values()
  }
}

/**
 * `tugas_http_request_duration_seconds`, computed from the series when scraped. prom-client's
 * Histogram cannot be given counts, only observations, so this is a metric of its own in the
 * shape a registry reads (`get()`, as `Registry.getMetricsAsJSON` and the cluster aggregation
 * use it): buckets cumulative, then `+Inf`, `_sum` and `_count`, summed over workers.
 */
function durationHistogram(series: () => Iterable<Series>): Metric {
  const name = 'tugas_http_request_duration_seconds'
  const help =
    'Time from receiving a request to the end of its response (the log line responseTimeMs), in seconds.'
  const metric = {
    name,
    help,
    type: 'histogram',
    aggregator: 'sum',
    async get() {
      const values: {
        labels: Record<string, string | number>
        value: number
        metricName: string
      }[] = []
      for (const { route, method, buckets, sum, count } of series()) {
        let cumulative = 0
        LATENCY_BUCKETS.forEach((le, at) => {
          cumulative += buckets[at] ?? 0
          values.push({
            labels: { route, method, le },
            value: cumulative,
            metricName: `${name}_bucket`,
          })
        })
        values.push({
          labels: { route, method, le: '+Inf' },
          value: count,
          metricName: `${name}_bucket`,
        })
        values.push({ labels: { route, method }, value: sum, metricName: `${name}_sum` })
        values.push({ labels: { route, method }, value: count, metricName: `${name}_count` })
      }
      return { name, help, type: 'histogram', aggregator: 'sum', values }
    },
    reset() {},
  }
  // A registry only calls get() and reset() and reads the name; the type is prom-client's union
  // of its own classes.
  return metric as unknown as Metric
}
