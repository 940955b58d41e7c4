// The deliveries of one process (docs/webhooks.md#delivery): claims those due from the store,
// at most `perSubscription` of one subscription at a time and `maxInFlight` beyond the first
// of each (docs/webhooks.md#isolation), attempts each (resolved, signed, to the address
// checked, all within the timeout), and records what came of it. Nothing here runs inside a
// write: a slow or dead receiver holds only its own attempts, for at most the timeout.
import { setMaxListeners } from 'node:events'
import { Agent as HttpAgent } from 'node:http'
import { Agent as HttpsAgent } from 'node:https'
import { OnceAtATime } from '../../events/once-at-a-time.js'
import { deliveryHeaders } from '../../events/standard-webhooks.js'
import { resolveDestination } from './address.js'
import { type AttemptOutcome, attempt, delivered } from './attempt.js'
import { nextStep } from './backoff.js'
import { NameResolver } from './resolver.js'
import type { AttemptResult, DueDelivery, RecordedAttempt, WebhookStore } from './store.js'

export interface DelivererOptions {
  store: WebhookStore
  timeoutMs: number
  retryBaseMs: number
  maxAttempts: number
  allowPrivate: boolean
  /** Resolves the receivers' host names (WEBHOOK_DNS_SERVERS); default: the system's servers. */
  resolver?: NameResolver
  /** Attempts at once in this process at most, beyond the first of each subscription. */
  maxInFlight?: number
  /** Attempts of one subscription at once in this process at most. */
  perSubscription?: number
  /** How often due deliveries are looked for without being told (retries another process put off). */
  tickMs?: number
  /** Beyond an attempt's timeout, how long a claim holds a delivery before it is due again. */
  leaseMarginMs?: number
}

/**
 * The least time between the starts of two records in a row, while attempts keep finishing:
 * one statement per 50 ms of many rows rather than one per round trip of a few
 * (docs/webhooks.md#what-it-costs).
 */
const RECORD_GAP_MS = 50

/**
 * Why an attempt was not made: the address refused (docs/webhooks.md#private-networks), or no
 * answer from the resolver within the attempt's time (docs/webhooks.md#name-resolution).
 */
const REFUSALS = {
  private: 'refused: the host is or resolves to a private address',
  unresolved: 'refused: the host does not resolve',
  timeout: 'timeout: the host did not resolve in time',
} as const

export class Deliverer {
  /** Attempts by what came of them (`/metrics`). */
  readonly byResult = new Map<AttemptResult, number>()
  /** Attempts in flight now (`/metrics`). */
  inFlight = 0
  /** Attempts in flight by subscription id; none held: absent. */
  readonly #held = new Map<number, number>()
  readonly #claiming = new OnceAtATime(() => this.#claim())
  readonly #recording = new OnceAtATime(() => this.#record(), RECORD_GAP_MS)
  /** Attempts made and not recorded yet. */
  #finished: RecordedAttempt[] = []
  readonly #timers = new Set<NodeJS.Timeout>()
  #tick: NodeJS.Timeout | undefined
  #unsubscribe: (() => void) | undefined
  #closed = false
  /** The last claim filled the shared room: more may be due than it took. */
  #sharedFull = false
  /** Subscriptions the last claims filled to their room: more of theirs may be due. */
  readonly #full = new Set<number>()
  readonly #stopping = new AbortController()
  /** Connections kept open between attempts to the same receiver (an idle one for 5 s). */
  readonly #agents = {
    http: new HttpAgent({ keepAlive: true, timeout: 5000 }),
    https: new HttpsAgent({ keepAlive: true, timeout: 5000 }),
  }
  readonly #maxInFlight: number
  readonly #perSubscription: number
  readonly #resolver: NameResolver

  constructor(private readonly options: DelivererOptions) {
    this.#maxInFlight = options.maxInFlight ?? 64
    this.#perSubscription = options.perSubscription ?? 16
    this.#resolver = options.resolver ?? new NameResolver()
    // Every attempt in flight listens for the stop (one per subscription beyond the shared
    // room): that many are expected, not a leak.
    setMaxListeners(0, this.#stopping.signal)
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

  /** Attempts in flight beyond the first of each subscription. */
  get #sharedInUse(): number {
    return this.inFlight - this.#held.size
  }

  async #claim(): Promise<void> {
    // Claimed even with the shared room used up: a subscription holding none still gets one.
    const shared = Math.max(0, this.#maxInFlight - this.#sharedInUse)
    const held = new Map(this.#held)
    let due: DueDelivery[]
    try {
      due = await this.options.store.claim({
        leaseMs: this.options.timeoutMs + (this.options.leaseMarginMs ?? 10_000),
        perSubscription: this.#perSubscription,
        held,
        shared,
      })
    } catch {
      // The database away: the next tick tries again.
      return
    }
    // The first of each subscription that held none came free; the others out of `shared`.
    const firsts = new Set(due.map(({ webhookId }) => webhookId).filter((id) => !held.has(id)))
    const beyondFirst = due.length - firsts.size
    // A full claim may have left more due: claimed again once half the room is free, so that
    // under load each claim takes many rather than one per attempt that ends.
    if (shared > 0 && beyondFirst >= shared) this.#sharedFull = true
    const claimed = new Map<number, number>()
    for (const delivery of due) {
      const { webhookId } = delivery
      this.inFlight += 1
      this.#held.set(webhookId, (this.#held.get(webhookId) ?? 0) + 1)
      claimed.set(webhookId, (claimed.get(webhookId) ?? 0) + 1)
      this.#deliver(delivery).finally(() => this.#ended(webhookId))
    }
    // A subscription given all the room it had at the claim may have more due (its attempts
    // may have ended meanwhile, so its count now says nothing of that).
    for (const [webhookId, count] of claimed) {
      if (count >= this.#perSubscription - (held.get(webhookId) ?? 0)) this.#full.add(webhookId)
    }
  }

  /** An attempt of `webhookId` ended: claims again where the last claims left more due. */
  #ended(webhookId: number): void {
    this.inFlight -= 1
    const left = (this.#held.get(webhookId) ?? 1) - 1
    if (left === 0) this.#held.delete(webhookId)
    else this.#held.set(webhookId, left)
    let again = false
    if (this.#full.has(webhookId) && left <= this.#perSubscription / 2) {
      this.#full.delete(webhookId)
      again = true
    }
    // With the shared room full, a subscription is down to its first: it may have more due.
    if (this.#sharedFull && (left === 0 || this.#sharedInUse <= this.#maxInFlight / 2)) {
      if (this.#sharedInUse <= this.#maxInFlight / 2) this.#sharedFull = false
      again = true
    }
    if (again) this.#wake()
  }

  async #deliver(due: DueDelivery): Promise<void> {
    const outcome = await this.#attempt(due)
    const { maxAttempts, retryBaseMs } = this.options
    const { result, retryInMs } = nextStep(
      delivered(outcome),
      due.attempt,
      maxAttempts,
      retryBaseMs,
    )
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

  /**
   * Resolves the host once, checks the address, and POSTs to that address: all of it within
   * the timeout, so that it ends well before the claim does (docs/webhooks.md#name-resolution).
   */
  async #attempt(due: DueDelivery): Promise<AttemptOutcome> {
    const started = performance.now()
    const elapsed = () => Math.round(performance.now() - started)
    const url = new URL(due.url)
    const { timeoutMs, allowPrivate } = this.options
    const signal = this.#stopping.signal
    const destination = await resolveDestination(url.hostname, allowPrivate, {
      resolver: this.#resolver,
      timeoutMs,
      signal,
    })
    if ('refused' in destination) {
      return { statusCode: null, error: REFUSALS[destination.refused], durationMs: elapsed() }
    }
    const headers = deliveryHeaders(due.secret, String(due.eventId), due.body)
    const agent = url.protocol === 'https:' ? this.#agents.https : this.#agents.http
    const left = Math.max(1, timeoutMs - (performance.now() - started))
    const outcome = await attempt(url, destination, headers, due.body, left, signal, agent)
    return { ...outcome, durationMs: elapsed() }
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
