// The work each process runs beside its requests, built and stopped with the stores
// (infrastructure.ts), never by the HTTP app: on PostgreSQL the change feed's sequencer and
// listener (docs/events.md#how-it-works) and the folds of the task list's counted buckets
// (docs/performance.md#counted-buckets); on every store the webhook deliveries
// (docs/webhooks.md#delivery).
import type { Config } from './config.js'
import type { Folder } from './surfaces/tugas/pg-buckets.js'
import { Deliverer } from './surfaces/webhooks/deliverer.js'
import { NameResolver } from './surfaces/webhooks/resolver.js'
import type { WebhookStore } from './surfaces/webhooks/store.js'

/** One piece of background work: started once, closed once. */
export interface Job {
  start(): Promise<void> | void
  close(): Promise<void>
}

/**
 * Jobs started one after the other in the order given, and closed in the reverse order (each
 * before what the ones before it use). A job whose start failed is closed with the others.
 */
export class Background {
  readonly #started: Job[] = []

  constructor(private readonly jobs: readonly Job[]) {}

  /** Starts every job; thrown as soon as one fails, the rest left unstarted. */
  async start(): Promise<void> {
    for (const job of this.jobs) {
      this.#started.push(job)
      await job.start()
    }
  }

  async close(): Promise<void> {
    for (const job of this.#started.splice(0).reverse()) await job.close()
  }
}

/**
 * The folds as a job: one at start-up puts the seed's tasks, or those a migration found, into
 * the counted buckets before serving; then writes ask for them. A fold running at close ends
 * with its connection: pages are exact whatever is left pending.
 */
export function folds(folder: Folder): Job {
  return {
    async start() {
      await folder.fold()
    },
    async close() {},
  }
}

/** This process's share of the webhook deliveries, as the configuration asks. */
export function deliverer(config: Config, store: WebhookStore): Deliverer {
  return new Deliverer({
    store,
    timeoutMs: config.webhookTimeoutMs,
    retryBaseMs: config.webhookRetryBaseMs,
    maxAttempts: config.webhookMaxAttempts,
    allowPrivate: config.webhookAllowPrivate,
    // Webhook hosts are looked up by c-ares, off libuv's pool (docs/webhooks.md#name-resolution).
    resolver: new NameResolver(config.webhookDnsServers),
  })
}
