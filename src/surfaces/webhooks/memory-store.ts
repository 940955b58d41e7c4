import { Signal } from '../../events/listeners.js'
import type { EventLog, StoredEvent } from '../../events/store.js'
import { MAX_ID } from '../../http/path-id.js'
import { selectedTypes } from '../../store/events.js'
import { MemoryCollection } from '../../store/memory-collection.js'
import { DueQueue } from './due-queue.js'
import {
  ATTEMPTS_KEPT,
  type ClaimLimits,
  type DeliveryAttempt,
  type DueDelivery,
  type NewWebhook,
  type RecordedAttempt,
  type ReplayRange,
  type Webhook,
  type WebhookStore,
} from './store.js'

interface Subscription extends Webhook {
  secret: string
  /** The types selected, `<resource>.*` expanded. */
  selects: ReadonlySet<string>
}

interface Pending {
  key: number
  webhookId: number
  eventId: number
  body: string
  attempts: number
  dueAt: number
  slot: number | undefined
}

const publicWebhook = ({ id, url, types, created_at }: Subscription): Webhook => ({
  id,
  url,
  types,
  created_at,
})

/**
 * Subscriptions and deliveries in process memory: deliveries live with the process (lost when
 * it stops), at most `maxPending` at once, the oldest dropped beyond (recorded as failed).
 */
export class MemoryWebhookStore implements WebhookStore {
  readonly #webhooks = new MemoryCollection<Subscription>()
  /** The subscriptions that select each event type, in id order: an event looks up only these. */
  readonly #selecting = new Map<string, Map<number, Subscription>>()
  readonly #attempts = new Map<number, DeliveryAttempt[]>()
  /** In the order they were queued. */
  readonly #pending = new Map<number, Pending>()
  /**
   * The same, by subscription and due time: a claim reads only each subscription's first due
   * (docs/webhooks.md#isolation).
   */
  readonly #pendingOf = new Map<number, DueQueue<Pending>>()
  #nextKey = 1
  readonly #queued = new Signal()

  constructor(
    /** The events: each new one queued, and those a replay asks for read again. */
    private readonly log: EventLog,
    private readonly maxPending: number,
    private readonly now: () => Date = () => new Date(),
    /** When deliveries are due, in milliseconds: a test moves it on rather than waiting. */
    private readonly clock: () => number = Date.now,
  ) {
    log.subscribe((events) => this.#queue(events))
  }

  #queue(events: StoredEvent[]): void {
    if (this.#selecting.size === 0) return
    const now = this.clock()
    let queued = 0
    for (const event of events) {
      for (const webhook of this.#selecting.get(event.type)?.values() ?? []) {
        this.#add(webhook, event, now)
        queued += 1
      }
    }
    this.#added(queued)
  }

  /** A new delivery of `event` to `webhook`, due at `now`, its attempts from 1. */
  #add(webhook: Subscription, event: StoredEvent, now: number): void {
    const key = this.#nextKey++
    const pending = {
      key,
      webhookId: webhook.id,
      eventId: event.id,
      body: event.json,
      attempts: 0,
      dueAt: now,
      slot: undefined,
    }
    this.#pending.set(key, pending)
    const own = this.#pendingOf.get(webhook.id) ?? new DueQueue<Pending>()
    own.add(pending)
    this.#pendingOf.set(webhook.id, own)
  }

  /** `queued` were added: the oldest beyond `maxPending` dropped, and the deliverer told. */
  #added(queued: number): void {
    while (this.#pending.size > this.maxPending) this.#dropOldest()
    if (queued > 0) this.#queued.emit()
  }

  #dropOldest(): void {
    const [, pending] = this.#pending.entries().next().value as [number, Pending]
    this.#forget(pending)
    this.#keep(pending.webhookId, {
      event_id: pending.eventId,
      // The attempt that will not be made.
      attempt: pending.attempts + 1,
      status_code: null,
      error: `dropped: more than ${this.maxPending} deliveries pending`,
      time: this.now().toISOString(),
      duration_ms: 0,
      result: 'failed',
    })
  }

  async create({ url, types, secret }: NewWebhook): Promise<Webhook> {
    const selects = selectedTypes(types) ?? new Set()
    const created_at = this.now().toISOString()
    const webhook = this.#webhooks.add((id) => ({ id, url, types, secret, selects, created_at }))
    for (const type of selects) {
      const selecting = this.#selecting.get(type) ?? new Map<number, Subscription>()
      this.#selecting.set(type, selecting.set(webhook.id, webhook))
    }
    return publicWebhook(webhook)
  }

  async list(): Promise<Webhook[]> {
    return this.#webhooks.list().map(publicWebhook)
  }

  async get(id: number): Promise<Webhook | undefined> {
    const webhook = this.#webhooks.get(id)
    return webhook && publicWebhook(webhook)
  }

  async delete(id: number): Promise<boolean> {
    const webhook = this.#webhooks.get(id)
    if (webhook === undefined || !this.#webhooks.delete(id)) return false
    for (const type of webhook.selects) {
      const selecting = this.#selecting.get(type)
      selecting?.delete(id)
      if (selecting?.size === 0) this.#selecting.delete(type)
    }
    this.#attempts.delete(id)
    for (const { key } of this.#pendingOf.get(id)?.items() ?? []) this.#pending.delete(key)
    this.#pendingOf.delete(id)
    return true
  }

  async replay(id: number, { after, until = MAX_ID }: ReplayRange): Promise<number | undefined> {
    if (this.#webhooks.get(id) === undefined) return undefined
    const events = until > after ? await this.log.after(after, until - after) : []
    // One step from here on, with nothing else running in between: the subscription as it is
    // now (deleted meanwhile: none), and each kept event of the range it selects, in id order.
    const webhook = this.#webhooks.get(id)
    if (webhook === undefined) return undefined
    const now = this.clock()
    let queued = 0
    for (const event of events) {
      if (event.id > until || !webhook.selects.has(event.type)) continue
      this.#add(webhook, event, now)
      queued += 1
    }
    this.#added(queued)
    return queued
  }

  #forget(pending: Pending): void {
    this.#pending.delete(pending.key)
    const own = this.#pendingOf.get(pending.webhookId)
    own?.remove(pending)
    if (own?.size === 0) this.#pendingOf.delete(pending.webhookId)
  }

  async attempts(id: number): Promise<DeliveryAttempt[]> {
    return (this.#attempts.get(id) ?? []).slice(-ATTEMPTS_KEPT).reverse()
  }

  async claim({ leaseMs, perSubscription, held, shared }: ClaimLimits): Promise<DueDelivery[]> {
    const now = this.clock()
    const own: Pending[] = []
    const more: Pending[] = []
    for (const [webhookId, pending] of this.#pendingOf) {
      const holding = held.get(webhookId) ?? 0
      const due = pending.firstDue(now, perSubscription - holding)
      if (holding === 0 && due.length > 0) own.push(due.shift() as Pending)
      more.push(...due)
    }
    more.sort((a, b) => a.dueAt - b.dueAt)
    const claimed = [...own, ...more.slice(0, shared)]
    return claimed.map((pending) => {
      const webhook = this.#webhooks.get(pending.webhookId) as Subscription
      this.#pendingOf.get(pending.webhookId)?.reschedule(pending, now + leaseMs)
      return {
        key: pending.key,
        webhookId: webhook.id,
        url: webhook.url,
        secret: webhook.secret,
        eventId: pending.eventId,
        attempt: pending.attempts + 1,
        body: pending.body,
      }
    })
  }

  async record(attempts: readonly RecordedAttempt[]): Promise<void> {
    const time = this.now().toISOString()
    for (const { due, attempt, retryInMs } of attempts) {
      const pending = this.#pending.get(due.key)
      if (pending === undefined) continue
      if (retryInMs === undefined) this.#forget(pending)
      else {
        pending.attempts = due.attempt
        this.#pendingOf.get(pending.webhookId)?.reschedule(pending, this.clock() + retryInMs)
      }
      this.#keep(due.webhookId, { ...attempt, time })
    }
  }

  #keep(webhookId: number, attempt: DeliveryAttempt): void {
    if (this.#webhooks.get(webhookId) === undefined) return
    const kept = this.#attempts.get(webhookId) ?? []
    this.#attempts.set(webhookId, kept)
    kept.push(attempt)
    if (kept.length > ATTEMPTS_KEPT * 2) kept.splice(0, kept.length - ATTEMPTS_KEPT)
  }

  onQueued(listener: () => void): () => void {
    return this.#queued.subscribe(listener)
  }
}
