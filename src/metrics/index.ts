import cluster from 'node:cluster'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client'
import type { ApiVersion } from '../http/api-version.js'
import type { RateLimiter } from '../rate-limit/limiter.js'
import type { PoolStats } from '../store/postgres/database.js'
import { ServiceUnavailableError } from '../store/unavailable.js'
import { answerClusterCollects, clusterMetrics, type MetricsJson } from './cluster.js'
import { RequestMetrics } from './requests.js'

/** What the webhook deliverer counts (surfaces/webhooks/deliverer.ts), for `/metrics`. */
export interface DeliveryCounts {
  /** Attempts by what came of them: delivered, retrying, failed. */
  readonly byResult: ReadonlyMap<string, number>
  readonly inFlight: number
}

/** Where Prometheus scrapes; its own requests are not counted. */
export const METRICS_PATH = '/metrics'

/** The Prometheus text format, 0.0.4. */
export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE

export interface MetricsOptions {
  /** `WORKERS`: above 1, in a worker, a scrape answers the sum over every worker. */
  workers: number
  /** The PostgreSQL pool's connections, when `DATABASE_URL` is set: gauges read on scrape. */
  pool?: () => PoolStats
}

type LaporanResult = 'admitted' | 'refused' | 'unavailable'

/**
 * A counter of `registry` whose values are the app's own counts, read on each scrape: `counts`
 * gives each series, the values of the labels `labels`, with its count. One label per dimension
 * (`api="produk", version="v1"`), so that a query can sum by either.
 */
function tally<Label extends string>(
  registry: Registry,
  labels: readonly Label[],
  counts: () => Iterable<[Record<Label, string>, number]>,
  { name, help }: { name: string; help: string },
): void {
  new Counter({
    name,
    help,
    labelNames: labels,
    registers: [registry],
    collect() {
      this.reset()
      for (const [values, count] of counts()) this.inc(values, count)
    },
  })
}

/**
 * The app's metrics, in a registry of its own (several apps in one process count apart):
 * requests, latency, per-version counts, the `/laporan` limiter's decisions, the PostgreSQL
 * pool. Node's process metrics are the process's, shared by its apps.
 */
export class Metrics {
  readonly registry = new Registry()
  readonly #requests: RequestMetrics
  /** By the version's name (`tugas v2`): its labels and its count. */
  readonly #versions = new Map<string, [{ api: string; version: string }, number]>()
  readonly #laporan: Record<LaporanResult, number> = { admitted: 0, refused: 0, unavailable: 0 }
  readonly #clustered: boolean
  readonly #process: Registry

  constructor(options: MetricsOptions) {
    const { registry } = this
    this.#clustered = options.workers > 1 && cluster.isWorker
    this.#process = processMetrics(this.#clustered)
    this.#requests = new RequestMetrics(registry, new Set([METRICS_PATH]))

    const versions = this.#versions
    tally(registry, ['api', 'version'], () => versions.values(), {
      name: 'tugas_api_version_requests_total',
      help: 'Requests answered by each version (v1, v2, unversioned) of each API (tugas, produk).',
    })

    const laporan = this.#laporan
    tally(
      registry,
      ['result'],
      () => Object.entries(laporan).map(([result, count]) => [{ result }, count]),
      {
        name: 'tugas_laporan_rate_limit_decisions_total',
        help: 'GET /laporan rate limiter decisions: admitted, refused (429), unavailable (503).',
      },
    )

    const { pool } = options
    if (pool !== undefined) {
      const gauge = (name: string, help: string, read: (stats: PoolStats) => number) =>
        new Gauge({
          name,
          help,
          registers: [registry],
          collect() {
            this.set(read(pool()))
          },
        })
      gauge(
        'tugas_postgres_pool_connections',
        'PostgreSQL connections the pool holds open, idle or in use.',
        (stats) => stats.total,
      )
      gauge(
        'tugas_postgres_pool_idle_connections',
        'PostgreSQL connections open and idle in the pool.',
        (stats) => stats.idle,
      )
      gauge(
        'tugas_postgres_pool_waiting_requests',
        'Statements waiting for a PostgreSQL connection of the pool.',
        (stats) => stats.waiting,
      )
    }

    if (this.#clustered) answerClusterCollects(() => this.#ownMetrics())
  }

  /** The change feed's: its streams open now, and the events this process's writes published. */
  countEvents(events: { openStreams: () => number; published: ReadonlyMap<string, number> }): void {
    new Gauge({
      name: 'tugas_event_streams',
      help: 'GET /events streams open now.',
      registers: [this.registry],
      collect() {
        this.set(events.openStreams())
      },
    })
    tally(
      this.registry,
      ['type'],
      () => [...events.published].map(([type, count]) => [{ type }, count]),
      {
        name: 'tugas_events_published_total',
        help: 'Events published by the writes of this process (summed over workers), by type.',
      },
    )
  }

  /** Credentialed requests refused: unknown, revoked, expired (401) or throttled (429). */
  countRefusedCredentials(refused: ReadonlyMap<string, number>): void {
    tally(
      this.registry,
      ['reason'],
      () => [...refused].map(([reason, count]) => [{ reason }, count]),
      {
        name: 'tugas_credentials_refused_total',
        help: 'Requests refused for their credential, by reason: unknown, revoked, expired (401), throttled (429); summed over workers.',
      },
    )
  }

  /** The webhook deliveries of this process: attempts by result, and those in flight now. */
  countDeliveries(deliveries: DeliveryCounts): void {
    new Gauge({
      name: 'tugas_webhook_attempts_in_flight',
      help: 'Webhook delivery attempts this process is making now.',
      registers: [this.registry],
      collect() {
        this.set(deliveries.inFlight)
      },
    })
    tally(
      this.registry,
      ['outcome'],
      () => [...deliveries.byResult].map(([outcome, count]) => [{ outcome }, count]),
      {
        name: 'tugas_webhook_deliveries_total',
        help: 'Webhook delivery attempts made by this process (summed over workers), by outcome: delivered, retrying (failed, another attempt follows), failed (the last attempt failed).',
      },
    )
  }

  /** Called once per request when its response is done (the request log's completion). */
  requestCompleted(request: FastifyRequest, reply: FastifyReply): void {
    this.#requests.record(request, reply)
  }

  /** One more request answered by `version` (its request log line names it). */
  apiVersionAnswered({ api, version, name }: ApiVersion): void {
    const counted = this.#versions.get(name)
    if (counted === undefined) this.#versions.set(name, [{ api, version }, 1])
    else counted[1] += 1
  }

  /** `limiter`, counting its decisions. */
  countDecisions(limiter: RateLimiter): RateLimiter {
    const counts = this.#laporan
    return {
      get policy() {
        return limiter.policy
      },
      async take(key) {
        try {
          const decision = await limiter.take(key)
          counts[decision.admitted ? 'admitted' : 'refused'] += 1
          return decision
        } catch (error) {
          if (error instanceof ServiceUnavailableError) counts.unavailable += 1
          throw error
        }
      },
    }
  }

  /**
   * The Prometheus text: this process's metrics, or under `WORKERS` every worker's, summed
   * (rejects with MetricsUnavailableError when they cannot all be gathered).
   */
  async text(): Promise<string> {
    if (this.#clustered) return clusterMetrics()
    return Registry.merge([this.registry, this.#process]).metrics()
  }

  /** What this worker adds to the sum. */
  async #ownMetrics(): Promise<MetricsJson> {
    const [own, processOwn] = await Promise.all([
      this.registry.getMetricsAsJSON(),
      this.#process.getMetricsAsJSON(),
    ])
    // Process metrics carry the worker's pid: each series is one worker's, kept as it is (their
    // own aggregators would average, or omit the start time).
    return [...own, ...processOwn.map((metric) => ({ ...metric, aggregator: 'first' as const }))]
  }
}

let processRegistry: Registry | undefined

/**
 * Node's process metrics (`tugas_process_*`, `tugas_nodejs_*`: CPU, memory, heap, event loop
 * lag, GC), collected once per process. Under `WORKERS` each worker's carry its `pid`.
 */
function processMetrics(clustered: boolean): Registry {
  if (processRegistry === undefined) {
    processRegistry = new Registry()
    collectDefaultMetrics({
      register: processRegistry,
      prefix: 'tugas_',
      ...(clustered && { labels: { pid: process.pid } }),
    })
  }
  return processRegistry
}
