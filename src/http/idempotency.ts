// Idempotent creates (IETF draft-ietf-httpapi-idempotency-key-header;
// docs/decisions.md#safe-retries): what a route that opts in (its config's `idempotent`) does with
// an `Idempotency-Key`, and what the document says of it. The keys live in the IdempotencyStore
// beside the data.
//
// Order of checks on such a route: the route's own `onRequest` and `preParsing` checks (surface
// B's and the priority todo's 415) and the body reader (415, 413, 400 malformed JSON) come first
// and use no key; then the key's syntax (the surface's refusal of a bad key); then the store:
// a replay, 422 (another body) or 409 (the first still in flight) is answered without running
// the handler; otherwise the handler runs (the rules, existence, uniqueness...) and its answer
// is kept for the replays: 2xx and 4xx answers are, a 5xx forgets the key, so a retry runs anew.
import { createHash } from 'node:crypto'
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onSendHookHandler,
  preHandlerHookHandler,
} from 'fastify'
import { Type } from 'typebox'
import type { IdempotencyStore, KeyRef, StoredAnswer } from '../store/idempotency/store.js'
import { type ApiError, type ErrorShape, type FrameworkFailure, SharedFailure } from './errors.js'
import { receivedBody } from './json-body.js'
import type { ParameterSpec, ResponseSpec, RouteSpec } from './route-spec.js'

/** What a valid key is, in the words of every surface's refusal. */
export const KEY_RULE = '1 to 255 visible ASCII characters'

/** 1 to 255 visible ASCII characters (`%x21-7E`): no space, no control, nothing past ASCII. */
const KEY_SYNTAX = /^[\x21-\x7E]{1,255}$/

/** The store the keys live in, and the clock their 24 hours are counted by. */
export interface Idempotency {
  store: IdempotencyStore
  now: () => Date
}

/** The headers of an answer that are replayed with it; every other header is the replay's own. */
const REPLAYED_HEADERS = ['content-type', 'location', 'etag'] as const

/** A key a request took: completed (or released) when its answer is sent. */
interface Ticket {
  ref: KeyRef
  token: string
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The `Idempotency-Key` this request took, until its answer is kept; null otherwise. */
    idempotencyTicket: Ticket | null
  }
  interface FastifyContextConfig {
    /** The route takes an `Idempotency-Key`: set by `idempotent()`, which also documents it. */
    idempotent?: boolean
  }
}

/** The three refusals of a key, each answered in the surface's shape (http/errors.ts). */
type KeyRefusal = Extract<FrameworkFailure['kind'], `idempotency-key-${string}`>

const refused = (kind: KeyRefusal) => new SharedFailure({ kind })

/**
 * The fingerprint of a request's body: the SHA-256 of its text exactly as received (so two
 * bodies are the same only when their bytes are), or of nothing when no body was read (no body
 * sent, or a route that reads none, such as paying an order).
 */
export function fingerprint(body: string | undefined): string {
  return createHash('sha256')
    .update(body === undefined ? 'none' : `body:${body}`)
    .digest('base64url')
}

/**
 * Serves every route that opts in (its config's `idempotent`) registered after this call, in
 * `app` and its children: each gets the hooks of `idempotencyHooks`, after its own.
 */
export function useIdempotency(app: FastifyInstance, idempotency: Idempotency): void {
  const { preHandler, onSend } = idempotencyHooks(idempotency)
  app.decorateRequest('idempotencyTicket', null)
  app.addHook('onRoute', (route) => {
    if (!route.config?.idempotent) return
    // After the body is read: the key's syntax, then the store's verdict.
    route.preHandler = [...hooksOf(route.preHandler), preHandler]
    route.onSend = [...hooksOf(route.onSend), onSend]
  })
}

function hooksOf<T>(hooks: T | T[] | undefined): T[] {
  if (hooks === undefined) return []
  return Array.isArray(hooks) ? hooks : [hooks]
}

/**
 * The hooks of an idempotent route: the key's checks and the store's verdict, then its answer.
 * Callback hooks: a request without a key, the usual case, costs a header lookup and no promise.
 */
function idempotencyHooks({ store, now }: Idempotency): {
  preHandler: preHandlerHookHandler
  onSend: onSendHookHandler
} {
  async function begin(request: FastifyRequest, reply: FastifyReply, key: string) {
    // The key is per request target: method, path and query as sent.
    const ref: KeyRef = { scope: `${request.method} ${request.url}`, key }
    const begun = await store.begin(ref, fingerprint(receivedBody(request)), now())
    switch (begun.outcome) {
      case 'new':
        request.idempotencyTicket = { ref, token: begun.token }
        return false
      case 'replay':
        replay(reply, begun.answer)
        return true
      case 'mismatch':
        throw refused('idempotency-key-reused')
      case 'in-flight':
        throw refused('idempotency-key-in-use')
    }
  }
  async function keep(
    request: FastifyRequest,
    reply: FastifyReply,
    ticket: Ticket,
    payload: unknown,
  ) {
    const body = textOf(payload)
    try {
      if (reply.statusCode < 500 && body !== undefined) {
        await store.complete(ticket.ref, ticket.token, answerOf(reply, body))
      } else {
        await store.release(ticket.ref, ticket.token)
      }
    } catch (error) {
      // The answer goes out all the same; the key stays in flight until its lease ends.
      request.log.warn({ err: error }, 'Idempotency-Key: the answer could not be kept')
    }
  }
  return {
    preHandler(request, reply, done) {
      const key = request.headers['idempotency-key']
      if (key === undefined) return done()
      if (typeof key !== 'string' || !KEY_SYNTAX.test(key)) {
        return done(refused('idempotency-key-invalid'))
      }
      // A replay has been sent: the handler must not run, so `done` is not called.
      begin(request, reply, key).then((replayed) => replayed || done(), done)
    },
    onSend(request, reply, payload, done) {
      const ticket = request.idempotencyTicket
      if (ticket === null) return done(null, payload)
      request.idempotencyTicket = null
      keep(request, reply, ticket, payload).then(() => done(null, payload))
    },
  }
}

/** The payload as text, or undefined when it is not text (a stream: never replayed). */
function textOf(payload: unknown): string | undefined {
  if (payload === undefined || payload === null) return ''
  if (typeof payload === 'string') return payload
  if (Buffer.isBuffer(payload)) return payload.toString('utf8')
  return undefined
}

function answerOf(reply: FastifyReply, body: string): StoredAnswer {
  const headers: Record<string, string> = {}
  for (const name of REPLAYED_HEADERS) {
    const value = reply.getHeader(name)
    if (value !== undefined) headers[name] = String(value)
  }
  return { status: reply.statusCode, body, headers }
}

function replay(reply: FastifyReply, { status, body, headers }: StoredAnswer): FastifyReply {
  reply.code(status)
  for (const [name, value] of Object.entries(headers)) reply.header(name, value)
  return reply.send(body)
}

// ---------------------------------------------------------------------------------------------
// What the document says

const KEY_PARAMETER: ParameterSpec = {
  name: 'Idempotency-Key',
  in: 'header',
  description:
    `Makes the request safe to retry (IETF draft-ietf-httpapi-idempotency-key-header): ${KEY_RULE}, ` +
    'unique per request, such as a UUID. The first request with a key is processed; a later ' +
    'one with the same key, method, path (and query) and body, byte for byte, gets the first ' +
    'answer again (status, body, `Location`, `ETag`) and does nothing; the same key with ' +
    'another body is refused (422), and so is a request while the first is still in flight ' +
    '(409). 2xx and 4xx answers are kept, 24 hours; after a 5xx the key is free again. Checked ' +
    'once the body is read (its 415, 413 and 400 come first), before the rules of the ' +
    'operation. Without it, the request is processed as usual.',
  schema: Type.String({ minLength: 1, maxLength: 255, pattern: '^[!-~]+$' }),
  example: '8e2f6a1c-3b4d-4f5e-9a7b-0c1d2e3f4a5b',
}

const FAILURES: [KeyRefusal, string][] = [
  ['idempotency-key-invalid', `\`Idempotency-Key\` is not ${KEY_RULE}`],
  ['idempotency-key-reused', 'This `Idempotency-Key` was sent before with another body'],
  ['idempotency-key-in-use', 'The first request with this `Idempotency-Key` is still in flight'],
]

/**
 * The documented answers of an idempotent route of `shape`, by status: how `shape` refuses a
 * bad key, a key sent with another body, and a key in flight, each published by `answer`.
 */
export function idempotencyFailures(
  shape: ErrorShape,
  answer: (description: string, error: ApiError) => ResponseSpec,
): Record<number, ResponseSpec> {
  const answers: Record<number, ResponseSpec> = {}
  for (const [kind, description] of FAILURES) {
    const error = shape.fromFramework({ kind })
    answers[error.statusCode] = merged(answers[error.statusCode], answer(description, error))
  }
  return answers
}

/**
 * `route` with an `Idempotency-Key` (`useIdempotency` adds the hooks; the body reader keeps the
 * body's text for its fingerprint), documented with the header
 * and `failures` (from `idempotencyFailures`), each merged into the answer of its status.
 */
export function idempotent(route: RouteSpec, failures: Record<number, ResponseSpec>): RouteSpec {
  const responses = { ...route.responses }
  for (const [status, failure] of Object.entries(failures)) {
    responses[Number(status)] = merged(responses[Number(status)], failure)
  }
  return {
    ...route,
    config: { ...route.config, idempotent: true, keepReceivedBody: true },
    parameters: [...(route.parameters ?? []), KEY_PARAMETER],
    responses,
  }
}

/** Two answers of one status as one: both descriptions, either body (a union when they differ). */
function merged(first: ResponseSpec | undefined, second: ResponseSpec): ResponseSpec {
  if (first === undefined) return second
  const schema =
    first.schema === undefined || second.schema === undefined || first.schema === second.schema
      ? (first.schema ?? second.schema)
      : Type.Union([first.schema, second.schema])
  const text = first.text ?? second.text
  const headers =
    first.headers || second.headers ? { ...first.headers, ...second.headers } : undefined
  return {
    description: `${first.description} ${second.description}`,
    ...(schema && { schema }),
    ...(text && { text }),
    ...(headers && { headers }),
  }
}
