// One attempt to deliver a webhook: a POST to the address the URL's host was resolved to
// (address.ts), never resolving it again, never following a redirect, given up after the
// timeout. What came of it is what `GET /webhooks/<id>/deliveries` lists.
import { type Agent, request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { Destination } from './address.js'

/** What came of an attempt: the status when an answer came, otherwise why not. */
export interface AttemptOutcome {
  statusCode: number | null
  error: string | null
  durationMs: number
}

/** Whether the attempt delivered: a 2xx within the timeout. */
export function delivered(outcome: AttemptOutcome): boolean {
  return outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300
}

/** The one-word reason of a failed connection, as the deliveries list shows it. */
function reasonOf(error: NodeJS.ErrnoException): string {
  if (error.code === 'ECONNREFUSED') return 'connection refused'
  if (error.code === 'ECONNRESET') return 'connection reset'
  return error.code ?? error.message
}

/**
 * POSTs `body` with `headers` to `url`, connecting to `destination` (TLS still checks the
 * URL's host name). The answer's status is all that is kept: its body is read and dropped.
 */
export function attempt(
  url: URL,
  destination: Destination,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  /** Aborted: the attempt is given up at once (the service is stopping). */
  signal?: AbortSignal,
  /**
   * Keeps connections open for the next attempts: one to the same host and port may reuse one,
   * which goes to an address checked when it was opened. False: a connection of its own.
   */
  agent: Agent | false = false,
): Promise<AttemptOutcome> {
  const started = performance.now()
  const durationMs = () => Math.round(performance.now() - started)
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise((resolve) => {
    let settled = false
    const settle = (statusCode: number | null, error: string | null) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      // The signal outlives the attempt (one per deliverer): nothing of it is kept there.
      signal?.removeEventListener('abort', abort)
      resolve({ statusCode, error, durationMs: durationMs() })
    }
    const sent = request(url, {
      method: 'POST',
      agent,
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      // The address checked, not a second answer of the resolver.
      lookup: (_host, options, callback) => {
        if ((options as { all?: boolean }).all) {
          ;(callback as (error: null, addresses: { address: string; family: number }[]) => void)(
            null,
            [destination],
          )
        } else callback(null, destination.address, destination.family)
      },
    })
    const timer = setTimeout(() => {
      settle(null, 'timeout')
      sent.destroy()
    }, timeoutMs)
    sent.on('response', (response) => {
      settle(response.statusCode ?? null, null)
      // The body is read and dropped, so that the connection can serve the next attempt; one
      // that does not end within the timeout is cut.
      const cut = setTimeout(() => sent.destroy(), timeoutMs).unref()
      response.on('close', () => clearTimeout(cut))
      response.on('error', () => {})
      response.resume()
      if (agent === false) sent.destroy()
    })
    sent.on('error', (error: NodeJS.ErrnoException) => settle(null, reasonOf(error)))
    const abort = () => {
      settle(null, 'aborted')
      sent.destroy()
    }
    signal?.addEventListener('abort', abort, { once: true })
    sent.end(body)
  })
}
