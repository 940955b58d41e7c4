// The change feed for a client (docs/client.md#the-change-feed-events): `GET /events` as an
// async iterator that resumes after a dropped connection with Last-Event-ID, waiting the
// stream's `retry`, as a browser's EventSource does, so that a consumer sees every kept event
// once and in order. The Server-Sent Events are parsed by eventsource-parser.
import { createParser } from 'eventsource-parser'
import type { FeedReset, TugasEvent } from './typed-event.js'

export interface EventsOptions {
  /** The service's root: `http://127.0.0.1:8080`. */
  baseUrl: string | URL
  /**
   * A credential, sent as `Authorization: Bearer`: `dokumen.*` events reach only a stream
   * opened with one that may read the document. Without it, no credential is sent.
   */
  credential?: string
  /** Event types, or `<resource>.*` (`tugas.*`); every type when left out. */
  types?: readonly string[]
  /**
   * Start after this event id: every kept event after it, then live. Left out, the feed starts
   * with the first event published once it is open.
   */
  after?: string | number
  /** Stops the feed: the iteration then ends, without an error. */
  signal?: AbortSignal
  /** Called each time the stream is open (first, then after each reconnection). */
  onOpen?: () => void
  /** The fetch to use; the global one when left out. */
  fetch?: typeof globalThis.fetch
}

/** One event of the feed as sent: its id, its type (the `event:` field), its data unparsed. */
export interface FeedMessage {
  id: string
  type: string
  /** The `data:` line: the event JSON exactly as the service wrote it (or a reset's data). */
  data: string
}

/** What `events()` gives: an event, or a reset (the consumer should read the state again). */
export type FeedItem = TugasEvent | FeedReset

/** The feed refused to open (400, 401...): resuming would not help. */
export class FeedError extends Error {
  override readonly name = 'FeedError'
  constructor(
    readonly status: number,
    /** The error answer's body (E2: `{ error: { code, message, details? } }`), as text. */
    readonly body: string,
  ) {
    super(`GET /events answered ${status}: ${body}`)
  }
}

/** What the stream says to wait before reconnecting, until it says (`retry: 2000` first). */
const DEFAULT_RETRY_MS = 2000

/**
 * The events of the feed, typed by `type`, each once and in order, resuming after a dropped
 * connection (or a 503) with `Last-Event-ID` once the stream's `retry` has passed. A `reset` is
 * given too. Ends when `signal` aborts; throws FeedError when the service refuses the stream.
 */
export async function* events(options: EventsOptions): AsyncGenerator<FeedItem, void, undefined> {
  for await (const message of eventMessages(options)) {
    yield message.type === 'reset'
      ? { type: 'reset', id: message.id, data: JSON.parse(message.data) }
      : (JSON.parse(message.data) as TugasEvent)
  }
}

/**
 * The feed as `events()` reads it, each message unparsed: for who passes the event JSON on as
 * it came (`tugas listen` forwards it byte for byte).
 */
export async function* eventMessages(
  options: EventsOptions,
): AsyncGenerator<FeedMessage, void, undefined> {
  const { signal } = options
  const fetch = options.fetch ?? globalThis.fetch
  const url = feedUrl(options)
  let lastId = options.after === undefined ? undefined : String(options.after)
  let retryMs = DEFAULT_RETRY_MS
  while (!signal?.aborted) {
    let response: Response
    try {
      response = await fetch(url, { headers: requestHeaders(options, lastId), signal })
    } catch {
      // Not reached, or stopped: tried again after `retry`, unless stopped.
      await pause(retryMs, signal)
      continue
    }
    if (response.status === 503) {
      await response.body?.cancel()
      await pause(Math.max(retryMs, retryAfterMs(response)), signal)
      continue
    }
    if (response.status !== 200 || response.body === null) {
      throw new FeedError(response.status, await response.text())
    }
    options.onOpen?.()
    const parsed: FeedMessage[] = []
    const parser = createParser({
      onEvent: ({ id, event, data }) => {
        parsed.push({ id: id ?? lastId ?? '', type: event ?? 'message', data })
      },
      onRetry: (ms) => {
        retryMs = ms
      },
    })
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        parser.feed(value)
        for (let message = parsed.shift(); message !== undefined; message = parsed.shift()) {
          lastId = message.id
          yield message
        }
      }
    } catch {
      // Dropped (or stopped): resumed after the last event given, below.
    } finally {
      // Given up by the consumer too (a `break`): the connection is closed.
      await reader.cancel().catch(() => {})
    }
    // A stream never ends by itself: ended or dropped, it resumes after `retry`. A frame cut
    // short is never given: the parser only gives a frame once its blank line has come.
    await pause(retryMs, signal)
  }
}

function feedUrl({ baseUrl, types, after }: EventsOptions): URL {
  const url = new URL('events', String(baseUrl).replace(/\/?$/, '/'))
  if (types !== undefined) url.searchParams.set('types', types.join(','))
  if (after !== undefined) url.searchParams.set('after', String(after))
  return url
}

/** Last-Event-ID once an event was given: it wins over the URL's `after` (docs/events.md). */
function requestHeaders({ credential }: EventsOptions, lastId: string | undefined) {
  return {
    accept: 'text/event-stream',
    ...(credential !== undefined && { authorization: `Bearer ${credential}` }),
    ...(lastId !== undefined && { 'last-event-id': lastId }),
  }
}

function retryAfterMs(response: Response): number {
  const seconds = Number(response.headers.get('retry-after'))
  return Number.isFinite(seconds) ? seconds * 1000 : 0
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) {
      resolve()
      return
    }
    const done = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
  })
}
