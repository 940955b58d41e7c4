import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestAsyncHookHandler,
} from 'fastify'
import { headerValue } from '../http/headers.js'
import type { RouteSpec } from '../http/route-spec.js'
import { throttleKey } from './client-address.js'
import {
  accessFailures,
  forbidden,
  missingApiKey,
  tooManyFailures,
  unauthenticated,
} from './errors.js'
import type { Identity } from './identity.js'
import { isAllowed } from './policy.js'
import type { Credential, CredentialStore, RefusalReason } from './store.js'
import type { AuthThrottle } from './throttle.js'

/** What a request presents: the Bearer token when `Authorization` uses that scheme, else the key. */
export type Presented = { form: 'bearer' | 'api-key'; secret: string } | undefined

/**
 * docs/supporting.md#credentials-and-roles: the scheme word (up to the first space) is matched
 * case-insensitively and the token is the rest, trimmed. A Bearer `Authorization` decides alone,
 * even when empty or unknown; any other scheme is ignored and `X-API-Key` is consulted.
 */
export function presentedCredential(request: FastifyRequest): Presented {
  const authorization = headerValue(request.headers.authorization)
  if (authorization !== undefined) {
    const space = authorization.indexOf(' ')
    const scheme = space === -1 ? authorization : authorization.slice(0, space)
    if (scheme.toLowerCase() === 'bearer') {
      return { form: 'bearer', secret: space === -1 ? '' : authorization.slice(space + 1).trim() }
    }
  }
  return apiKey(request)
}

function apiKey(request: FastifyRequest): Presented {
  const key = headerValue(request.headers['x-api-key'])
  return key === undefined || key === '' ? undefined : { form: 'api-key', secret: key }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The count of failed credentials per client (throttle.ts); the app sets it. */
    authThrottle?: AuthThrottle
    /** Credentialed requests refused, by reason (`/metrics`); the app sets it. */
    refusedCredentials?: Map<RefusalReason | 'throttled', number>
  }
  interface FastifyRequest {
    /** The credential the request was admitted with, once a route's access hook has run. */
    credential: Credential | null
  }
}

/** Gives every request of `instance` its `credential` slot, which the access hook fills. */
export function admitsCredentials(instance: FastifyInstance): void {
  instance.decorateRequest('credential', null)
}

/** Who called: set by the access hook of a credentialed route, before its handler runs. */
export function identityOf(request: FastifyRequest): Identity {
  if (!request.credential) throw new Error('identityOf: the route has no access hook')
  return request.credential.identity
}

/** The credential a request was admitted with (for the rate limiter's bucket). */
export function credentialOf(request: FastifyRequest): Credential {
  if (!request.credential) throw new Error('credentialOf: the route has no access hook')
  return request.credential
}

/**
 * Whether a request carries a credential for the throttle: any `Authorization`, whatever its
 * scheme, or an `X-API-Key` (docs/decisions.md#guessing-credentials-throttled).
 */
const carriesCredential = ({ headers }: FastifyRequest) =>
  headers.authorization !== undefined || headers['x-api-key'] !== undefined

/**
 * The credential a request presents (undefined: none usable), unless its client has failed too
 * often of late: then 429 with `Retry-After`, whatever it carries. An unknown, revoked or
 * expired one is counted against the client, and is itself 429 when the count its failure
 * brought is past the limit (docs/supporting.md#guessing-credentials-throttled).
 */
export function identifyThrottled(
  request: FastifyRequest,
  reply: FastifyReply,
  store: CredentialStore,
  presented: Presented,
): Promise<Credential | undefined> {
  const throttle = request.server?.authThrottle
  if (throttle === undefined || !carriesCredential(request)) {
    return presented === undefined ? Promise.resolve(undefined) : store.identify(presented.secret)
  }
  const client = throttleKey(request.ip)
  return throttle
    .retryAfter(client)
    .then((wait) => identifyAfter(wait, request, reply, store, presented))
}

function identifyAfter(
  wait: number,
  request: FastifyRequest,
  reply: FastifyReply,
  store: CredentialStore,
  presented: Presented,
): Promise<Credential | undefined> {
  if (wait > 0) return throttled(request, reply, wait)
  if (presented === undefined) return Promise.resolve(undefined)
  return store
    .identify(presented.secret)
    .then((credential) =>
      credential === undefined ? refused(request, reply, store, presented.secret) : credential,
    )
}

function throttled(request: FastifyRequest, reply: FastifyReply, wait: number): Promise<never> {
  countRefused(request, 'throttled')
  reply.header('retry-after', String(wait))
  return Promise.reject(tooManyFailures(wait))
}

/**
 * Counts an unknown, revoked or expired credential against the client, and why; 429 when this
 * failure is past the limit, whatever concurrent requests were told before it.
 */
async function refused(
  request: FastifyRequest,
  reply: FastifyReply,
  store: CredentialStore,
  secret: string,
): Promise<undefined> {
  const wait = (await request.server?.authThrottle?.failed(throttleKey(request.ip))) ?? 0
  if (wait > 0) return throttled(request, reply, wait)
  if (request.server?.refusedCredentials !== undefined) {
    countRefused(request, await store.whyRefused(secret))
  }
  return undefined
}

function countRefused(request: FastifyRequest, reason: RefusalReason | 'throttled'): void {
  const refused = request.server?.refusedCredentials
  refused?.set(reason, (refused.get(reason) ?? 0) + 1)
}

/**
 * The access checks of one credentialed endpoint, in the order of
 * docs/supporting.md#credentials-and-roles: 401 (no, unknown or other-scheme credential), then 403
 * (role policy). `apiKeyOnly` is `/laporan`: only `X-API-Key` counts, and a missing one is 401
 * `MISSING_API_KEY`.
 */
export function accessHook(
  store: CredentialStore,
  endpoint: string,
  options: { apiKeyOnly?: boolean } = {},
): onRequestAsyncHookHandler {
  return async (request, reply) => {
    const presented = options.apiKeyOnly ? apiKey(request) : presentedCredential(request)
    const credential = await identifyThrottled(request, reply, store, presented)
    if (credential === undefined) {
      throw presented === undefined && options.apiKeyOnly ? missingApiKey() : unauthenticated()
    }
    if (!isAllowed(credential.identity.peran, endpoint)) {
      throw forbidden(credential.identity, endpoint)
    }
    request.credential = credential
  }
}

/**
 * `route` behind the access checks of its own endpoint pattern (`GET /dokumen/{id}`, as the role
 * policy names it), which run before anything else the route checks, and with 401 and 403
 * documented.
 */
export function credentialed(
  store: CredentialStore,
  route: RouteSpec,
  options: { apiKeyOnly?: boolean } = {},
): RouteSpec {
  const endpoint = `${route.method} ${route.path}`
  return {
    ...route,
    onRequest: [accessHook(store, endpoint, options), ...(route.onRequest ?? [])],
    security: options.apiKeyOnly ? ['apiKey'] : ['bearer', 'apiKey'],
    responses: {
      ...route.responses,
      401: accessFailures.unauthenticated,
      403: accessFailures.forbidden,
      // `/laporan` documents its own 429, of its bucket and of this throttle both.
      429: route.responses[429] ?? accessFailures.throttled,
    },
  }
}
