import http2, { type ServerHttp2Stream } from 'node:http2'
import type { Socket } from 'node:net'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { accessFailures, unauthenticated } from '../../access/errors.js'
import { identifyThrottled, presentedCredential } from '../../access/guard.js'
import type { Identity } from '../../access/identity.js'
import type { CredentialStore } from '../../access/store.js'
import { EVENT_ID } from '../../events/event-id.js'
import type { EventLog } from '../../events/store.js'
import { e2Failures } from '../../http/e2/errors.js'
import { E2Body } from '../../http/e2/shape.js'
import { ApiError } from '../../http/errors.js'
import { headerValue } from '../../http/headers.js'
import type { RouteSpec } from '../../http/route-spec.js'
import { ALL_EVENT_TYPES, type EventType, selectedTypes } from '../../store/events.js'
import { streamEvents } from './event-types.js'
import { EventStream, type OpenStreams, type StreamOptions } from './stream.js'

export interface EventRouteOptions {
  log: EventLog
  credentials: CredentialStore
  heartbeatMs: number
  maxStreams: number
  /** The streams open in this app: the route adds each, and each removes itself. */
  streams: OpenStreams
}

const DIGITS_RULE = 'must be an event id: decimal digits'

/** The stream a request asks for: where it resumes and which types; 400 with every violation. */
function streamQuery(request: FastifyRequest): {
  after: number | undefined
  types: Set<EventType> | undefined
} {
  const query = request.query as Record<string, string | string[] | undefined>
  const violations: Record<string, string> = {}
  const lastEventId = request.headers['last-event-id']
  const sentAfter = query.after
  if (lastEventId !== undefined && !EVENT_ID.test(headerValue(lastEventId) ?? '')) {
    violations['Last-Event-ID'] = DIGITS_RULE
  }
  if (sentAfter !== undefined && (typeof sentAfter !== 'string' || !EVENT_ID.test(sentAfter))) {
    violations.after = DIGITS_RULE
  }
  const sentTypes = query.types
  const types =
    sentTypes === undefined ? undefined : selectedTypes([sentTypes].flat().join(',').split(','))
  if (sentTypes !== undefined && types === undefined) {
    violations.types = `must be event types or <resource>.*, separated by commas: ${ALL_EVENT_TYPES.join(', ')}`
  }
  if (Object.keys(violations).length > 0) {
    throw new ApiError(400, 'VALIDATION_ERROR', 'request fails validation', violations)
  }
  // Last-Event-ID wins: a reconnecting EventSource keeps the URL's `after` and adds it.
  const resume = headerValue(lastEventId) ?? (sentAfter as string | undefined)
  // Past the safe integers it is past any id given: the stream resets.
  return { after: resume === undefined ? undefined : Number(resume), types }
}

/** The identity of a credential sent; none sent is fine, an invalid one is 401 as on /profil. */
async function callerOf(
  request: FastifyRequest,
  reply: FastifyReply,
  credentials: CredentialStore,
): Promise<Identity | undefined> {
  const presented = presentedCredential(request)
  // Asked even with no usable credential: another scheme alone is 429 once throttled.
  const credential = await identifyThrottled(request, reply, credentials, presented)
  if (credential !== undefined) return credential.identity
  if (presented === undefined) return undefined
  throw unauthenticated()
}

/**
 * Asks again whether the credential a stream was opened with still holds: the store's own
 * lookup, which honours a revocation or expiry everywhere within a second; not counted as a
 * failure from the client's address. Undefined when none was sent.
 */
function credentialCheck(
  request: FastifyRequest,
  credentials: CredentialStore,
): StreamOptions['credentialHolds'] {
  const presented = presentedCredential(request)
  if (presented === undefined) return undefined
  const { secret } = presented
  return async () => (await credentials.identify(secret)) !== undefined
}

/**
 * The response a stream is written to, HTTP/1.1 or HTTP/2: what waits in it, and dropping it
 * at once. A reset, not a close: a close would leave what the kernel holds for a client that
 * does not read, and the client would never learn it was dropped.
 */
function responseOf(reply: FastifyReply): StreamOptions['response'] {
  const raw = reply.raw as unknown as {
    writableLength?: number
    socket?: Socket | null
    stream?: ServerHttp2Stream
  }
  return {
    waiting: () => raw.stream?.writableLength ?? raw.writableLength ?? 0,
    abort() {
      if (raw.stream !== undefined) raw.stream.close(http2.constants.NGHTTP2_CANCEL)
      else raw.socket?.resetAndDestroy()
    },
  }
}

const parameters: RouteSpec['parameters'] = [
  {
    name: 'after',
    in: 'query',
    description: 'Resume after this event id: every kept event after it, then live.',
    schema: Type.String({ pattern: EVENT_ID.source }),
  },
  {
    name: 'types',
    in: 'query',
    description: 'Only these types, comma-separated; `<resource>.*` for all of one resource.',
    schema: Type.String(),
    example: 'tugas.*',
  },
  {
    name: 'Last-Event-ID',
    in: 'header',
    description: 'What `EventSource` sends on reconnecting; wins over `after`.',
    schema: Type.String({ pattern: EVENT_ID.source }),
  },
]

/** `GET /events`: the change feed as Server-Sent Events (docs/events.md). */
export function eventRoutes(options: EventRouteOptions): RouteSpec[] {
  const { log, credentials, streams } = options
  return [
    {
      method: 'GET',
      path: '/events',
      operationId: 'getEvents',
      summary: 'The change feed: every write as an event, live, with resume.',
      description:
        'A Server-Sent Events stream: `retry: 2000` first, then each event as `id`, `event` (its ' +
        'type) and `data` (the event JSON on one line), and `: keep-alive` after ' +
        '`EVENTS_HEARTBEAT_MS` without one. `dokumen.*` events only reach a stream opened ' +
        'with a credential that may read the document. Checks in order: a credential sent ' +
        'must be valid (401), then `after`, `Last-Event-ID` and `types` (400), then the open ' +
        'streams of this process (503).',
      parameters,
      security: ['bearer', 'apiKey', 'none'],
      responses: {
        200: {
          description:
            'The stream. A resumed stream whose next events are no longer kept starts with a ' +
            '`reset` event (`id` the oldest kept minus one, data `ResetData`).',
          eventStream: streamEvents,
          headers: {
            'Cache-Control': { description: 'Always `no-store`.', schema: Type.String() },
          },
        },
        400: {
          description: '`after`, `Last-Event-ID` or `types` malformed (`VALIDATION_ERROR`).',
          schema: E2Body,
        },
        401: accessFailures.unauthenticated,
        429: accessFailures.throttled,
        ...e2Failures.store,
        503: {
          description:
            'More than `EVENTS_MAX_STREAMS` streams open in this process, or the store away ' +
            '(`SERVICE_UNAVAILABLE`).',
          schema: E2Body,
          headers: { 'Retry-After': { description: 'Always `1`.', schema: Type.String() } },
        },
      },
      async handler(request, reply) {
        const identity = await callerOf(request, reply, credentials)
        const { after, types } = streamQuery(request)
        // Checked and taken in one step: requests at the same instant cannot all pass.
        if (!streams.reserve(options.maxStreams)) {
          reply.header('retry-after', '1')
          throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'too many open event streams')
        }
        try {
          const headers = {
            'content-type': 'text/event-stream; charset=utf-8',
            'cache-control': 'no-store',
            // Proxies that buffer answers (nginx) send each event as it comes.
            'x-accel-buffering': 'no',
          }
          // HEAD: the stream's headers, and no stream left open behind them.
          if (request.method === 'HEAD') return reply.headers(headers).send('')
          const stream = new EventStream({
            log,
            types,
            identity,
            credentialHolds: identity && credentialCheck(request, credentials),
            after,
            heartbeatMs: options.heartbeatMs,
            response: responseOf(reply),
            budget: streams.budget,
          })
          await stream.open()
          streams.add(stream)
          reply.headers(headers).send(stream.body)
          void stream.replay()
          return reply
        } finally {
          // Counted as open from here on (or it failed to open).
          streams.release()
        }
      },
    },
  ]
}
