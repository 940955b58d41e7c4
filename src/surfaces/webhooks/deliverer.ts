// The deliveries of one process (docs/webhooks.md#delivery): claims those due from the store,
// at most `maxInFlight` at a time, attempts each (signed, to the address checked), and records
// what came of it. Nothing here runs inside a write: a slow or dead receiver holds only its
// own attempt, for at most the timeout.
import { setMaxListeners } from 'node:events'
import { Agent as HttpAgent } from 'node:http'
import { Agent as HttpsAgent } from 'node:https'
import { OnceAtATime } from '../events/once-at-a-time.js'
import { resolveDestination } from './address.js'
import { type AttemptOutcome, attempt, delivered } from './attempt.js'
import { signature } from './signature.js'
import type { AttemptResult, DueDelivery, RecordedAttempt, WebhookStore } from './store.js'

export interface DelivererOptions {
  store: WebhookStore
  timeoutMs: number
  retryBaseMs: number
  maxAttempts: number
  allowPrivate: boolean
  /** Attempts at once in this process at most. */
  maxInFlight?: number
  /** How often due deliveries are looked for without being told (retries another process put off). */
  tickMs?: number
}

/** Beyond an attempt's timeout, how long a claim holds a delivery before it is due again. */
const LEASE_MARGIN_MS = 10_000

/**
 * The least time between the starts of two records in a row, while attempts keep finishing:
 * one statement per 50 ms of many rows rather than one per round trip of a few (under load,
 * 167 a second of 19 rows each).
 */
const RECORD_GAP_MS = 50

/** What the deliverer counts, for `/metrics`. */
export interface DeliveryCounts {
  /** Attempts by what came of them: delivered, retrying, failed. */
  readonly byResult: ReadonlyMap<AttemptResult, number>
  readonly inFlight: number
}

/** Why an attempt was not made: the address refused (docs/webhooks.md#private-networks). */
const REFUSALS = {
  private: 'refused: the host is or resolves to a private address',
  unresolved: 'refused: the host does not resolve',
} as const

export class Deliverer implements DeliveryCounts {
  readonly byResult = new Map<AttemptResult, number>()
  inFlight = 0
  readonly #claiming = new OnceAtATime(() => this.#claim())
  readonly #recording = new OnceAtATime(() => this.#record(), RECORD_GAP_MS)
  /** Attempts made and not recorded yet. */
  #finished: RecordedAttempt[] = []
  readonly #timers = new Set<NodeJS.Timeout>()
  #tick: NodeJS.Timeout | undefined
  #unsubscribe: (() => void) | undefined
  #closed = false
  /** The last claim was full: more may be due than it took. */
  #more = false
  readonly #stopping = new AbortController()
  /** Connections kept open between attempts to the same receiver (an idle one for 5 s). */
  readonly #agents = {
    http: new HttpAgent({ keepAlive: true, timeout: 5000 }),
    https: new HttpsAgent({ keepAlive: true, timeout: 5000 }),
  }
  readonly #maxInFlight: number

  constructor(private readonly options: DelivererOptions) {
    this.#maxInFlight = options.maxInFlight ?? 64
    // Every attempt in flight listens for the stop: that many are expected, not a leak.
    setMaxListeners(this.#maxInFlight + 1, this.#stopping.signal)
  }

  start(): void {
    this.#unsubscribe = this.options.store.onQueued(() => this.#wake())
    this.#tick = setInterval(() => this.#wake(), this.options.tickMs ?? 1000).unref()
    this.#wake()
  }

  #wake(): void {
    if (!this.#closed) this.#claiming.ask()
  }

  /** Wakes once `ms` have passed: the retry this process put off is due. */
  #wakeIn(ms: number): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer)
      this.#wake()
    }, ms).unref()
    this.#timers.add(timer)
  }

  async #claim(): Promise<void> {
    const room = this.#maxInFlight - this.inFlight
    if (room <= 0) return
    let due: DueDelivery[]
    try {
      due = await this.options.store.claim(room, this.options.timeoutMs + LEASE_MARGIN_MS)
    } catch {
      // The database away: the next tick tries again.
      return
    }
    // A full claim may have left more due: claimed again once half the room is free, so that
    // under load each claim takes many rather than one per attempt that ends.
    if (due.length === room) this.#more = true
    for (const delivery of due) {
      this.inFlight += 1
      this.#deliver(delivery).finally(() => {
        this.inFlight -= 1
        if (this.#more && this.inFlight <= this.#maxInFlight / 2) {
          this.#more = false
          this.#wake()
        }
      })
    }
  }

  async #deliver(due: DueDelivery): Promise<void> {
    const outcome = await this.#attempt(due)
    const { maxAttempts, retryBaseMs } = this.options
    const result: AttemptResult = delivered(outcome)
      ? 'delivered'
      : due.attempt >= maxAttempts
        ? 'failed'
        : 'retrying'
    // Gaps of base, 2 base, 4 base...: each at least double the one before.
    const retryInMs = result === 'retrying' ? retryBaseMs * 2 ** (due.attempt - 1) : undefined
    if (this.#closed) return
    this.#finished.push({
      due,
      attempt: {
        event_id: due.eventId,
        attempt: due.attempt,
        status_code: outcome.statusCode,
        error: outcome.error,
        duration_ms: outcome.durationMs,
        result,
      },
      ...(retryInMs !== undefined && { retryInMs }),
    })
    this.#recording.ask()
  }

  /** Records what finished, all of it at once: attempts finish faster than statements run. */
  async #record(): Promise<void> {
    const finished = this.#finished
    this.#finished = []
    try {
      await this.options.store.record(finished)
    } catch {
      // Not recorded: each claim runs out and the delivery is attempted again (at least once).
      return
    }
    for (const { attempt, retryInMs } of finished) {
      this.byResult.set(attempt.result, (this.byResult.get(attempt.result) ?? 0) + 1)
      if (retryInMs !== undefined) this.#wakeIn(retryInMs)
    }
  }

  /** Resolves the host once, checks the address, and POSTs to that address. */
  async #attempt(due: DueDelivery): Promise<AttemptOutcome> {
    const url = new URL(due.url)
    const destination = await resolveDestination(url.hostname, this.options.allowPrivate)
    if ('refused' in destination) {
      return { statusCode: null, error: REFUSALS[destination.refused], durationMs: 0 }
    }
    const timestamp = Math.floor(Date.now() / 1000)
    const id = String(due.eventId)
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'tugas-webhooks',
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signature(due.secret, id, timestamp, due.body),
    }
    const agent = url.protocol === 'https:' ? this.#agents.https : this.#agents.http
    const { timeoutMs } = this.options
    return attempt(url, destination, headers, due.body, timeoutMs, this.#stopping.signal, agent)
  }

  /** Stops claiming. Attempts in flight are let go: unrecorded, they are due again later. */
  async close(): Promise<void> {
    this.#closed = true
    clearInterval(this.#tick)
    for (const timer of this.#timers) clearTimeout(timer)
    this.#unsubscribe?.()
    this.#stopping.abort()
    this.#agents.http.destroy()
    this.#agents.https.destroy()
    await Promise.all([this.#claiming.idle(), this.#recording.idle()])
  }
}
