// A Server-Sent Events client for tests: opens a stream over HTTP/1.1 (node:http) and parses
// its frames as a browser's EventSource does, keeping comments too.
import { type IncomingMessage, request } from 'node:http'
import type { EventLog } from '../../src/events/store.js'

/** One frame: an event (`id`, `event`, `data`), `retry`, or a comment line. */
export interface Frame {
  id?: string
  event?: string
  data?: string
  retry?: string
  comment?: string
}

export interface SseStream {
  status: number
  headers: IncomingMessage['headers']
  /** The body as far as it came, for an answer that is not a stream (an error). */
  text(): Promise<string>
  /** Every frame so far. */
  frames: Frame[]
  /** The frames with `data` (events), in order. */
  events(): Frame[]
  /** Resolves once `test` holds of the frames, or rejects after `ms`. */
  until(test: (frames: Frame[]) => boolean, ms?: number): Promise<Frame[]>
  /** Resolves when the server ends the stream (learnt only while the body is read). */
  ended: Promise<void>
  /** Whether it has ended: already true when `until`'s test is called on the end. */
  hasEnded(): boolean
  /** Starts reading the body of a stream opened with `read: false`. */
  read(): void
  close(): void
}

/** Parses the complete frames of `buffer` into `frames`; returns what is left. */
export function parseFrames(buffer: string, frames: Frame[]): string {
  let rest = buffer
  for (let end = rest.indexOf('\n\n'); end !== -1; end = rest.indexOf('\n\n')) {
    const frame: Frame = {}
    for (const line of rest.slice(0, end).split('\n')) {
      if (line.startsWith(':')) frame.comment = line.slice(1).trim()
      else {
        const colon = line.indexOf(':')
        const field = line.slice(0, colon) as keyof Frame
        const value = line.slice(colon + 1).replace(/^ /, '')
        frame[field] = frame[field] === undefined ? value : `${frame[field]}\n${value}`
      }
    }
    frames.push(frame)
    rest = rest.slice(end + 2)
  }
  return rest
}

/** Opens `GET <url>` as a stream; `read: false` never reads the body (a slow reader). */
export function openStream(
  url: string,
  headers: Record<string, string> = {},
  { read = true }: { read?: boolean } = {},
): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/event-stream', ...headers } })
    req.on('error', reject)
    req.on('response', (response) => {
      const frames: Frame[] = []
      let buffer = ''
      let body = ''
      const waiters = new Set<() => void>()
      let endedResolve: () => void = () => {}
      const ended = new Promise<void>((done) => {
        endedResolve = done
      })
      response.setEncoding('utf8')
      const reading = () =>
        response.on('data', (chunk: string) => {
          body += chunk
          buffer = parseFrames(buffer + chunk, frames)
          for (const wake of waiters) wake()
        })
      if (read) reading()
      let hasEnded = false
      const finish = () => {
        hasEnded = true
        endedResolve()
        for (const wake of waiters) wake()
      }
      response.on('end', finish)
      response.on('close', finish)
      response.on('error', finish)
      const stream: SseStream = {
        status: response.statusCode ?? 0,
        headers: response.headers,
        frames,
        async text() {
          await ended
          return body
        },
        events: () => frames.filter((frame) => frame.data !== undefined),
        until(test, ms = 5000) {
          return new Promise((done, fail) => {
            const check = () => {
              if (test(frames)) {
                waiters.delete(check)
                clearTimeout(timer)
                done(frames)
              }
            }
            const timer = setTimeout(() => {
              waiters.delete(check)
              fail(new Error(`stream: not seen within ${ms} ms; frames: ${JSON.stringify(frames)}`))
            }, ms)
            waiters.add(check)
            check()
          })
        },
        ended,
        hasEnded: () => hasEnded,
        read: reading,
        close: () => {
          req.destroy()
          response.destroy()
        },
      }
      resolve(stream)
    })
    req.end()
  })
}

/** The kept events after `after`, once there are `count` of them (PostgreSQL numbers them after commit). */
export async function eventsAfter(log: EventLog, after: number, count: number) {
  const deadline = Date.now() + 5000
  for (;;) {
    const events = await log.after(after, 100_000)
    if (events.length >= count || Date.now() > deadline) return events
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
