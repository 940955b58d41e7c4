// When a failed delivery is attempted again (docs/webhooks.md#delivery): gaps of base, twice
// that, four times that, and so on, capped at one day, so that every allowed setting gives a
// delay a timer and the store can hold.
import type { AttemptResult } from './store.js'

/** The longest gap between two attempts of one delivery. */
export const MAX_RETRY_DELAY_MS = 24 * 60 * 60 * 1000

/** The gap after attempt `attempt` (from 1) failed: `baseMs * 2^(attempt-1)`, at most a day. */
export function retryDelayMs(baseMs: number, attempt: number): number {
  return Math.min(baseMs * 2 ** (attempt - 1), MAX_RETRY_DELAY_MS)
}

/** What follows an attempt: the delivery over (delivered, or failed at the last), or retried. */
export interface NextStep {
  result: AttemptResult
  /** Set when retrying: the gap before the next attempt. */
  retryInMs?: number
}

/** What follows attempt `attempt` (from 1) of at most `maxAttempts`, by whether it delivered. */
export function nextStep(
  wasDelivered: boolean,
  attempt: number,
  maxAttempts: number,
  baseMs: number,
): NextStep {
  if (wasDelivered) return { result: 'delivered' }
  if (attempt >= maxAttempts) return { result: 'failed' }
  return { result: 'retrying', retryInMs: retryDelayMs(baseMs, attempt) }
}
