import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestAsyncHookHandler,
} from 'fastify'
import { headerValue } from '../../../http/headers.js'
import type { RouteSpec } from '../../../http/route-spec.js'
import { failures, forbidden, missingApiKey, tooManyFailures, unauthenticated } from '../errors.js'
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
    /** The count of failed credentials per client address (throttle.ts); the app sets it. */
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
 * The credential a request presents, unless its address has failed too often of late: then 429
 * with `Retry-After`, whatever the credential. An unknown, revoked or expired one is counted
 * against the address (docs/supporting.md#guessing-credentials-throttled).
 */
export function identifyThrottled(
  request: FastifyRequest,
  reply: FastifyReply,
  store: CredentialStore,
  presented: NonNullable<Presented>,
): Promise<Credential | undefined> {
  const asked = request.server?.authThrottle?.retryAfter(request.ip) ?? 0
  // The store's own promise where nothing need be waited for: a layer of promises per
  // credentialed request is measurable.
  if (typeof asked === 'number') return identifyAfter(asked, request, reply, store, presented)
  return asked.then((wait) => identifyAfter(wait, request, reply, store, presented))
}

function identifyAfter(
  wait: number,
  request: FastifyRequest,
  reply: FastifyReply,
  store: CredentialStore,
  presented: NonNullable<Presented>,
): Promise<Credential | undefined> {
  if (wait > 0) {
    countRefused(request, 'throttled')
    reply.header('retry-after', String(wait))
    return Promise.reject(tooManyFailures(wait))
  }
  return store
    .identify(presented.secret)
    .then((credential) =>
      credential === undefined ? refused(request, store, presented.secret) : credential,
    )
}

/** Counts an unknown, revoked or expired credential against the address, and why. */
async function refused(
  request: FastifyRequest,
  store: CredentialStore,
  secret: string,
): Promise<undefined> {
  await request.server?.authThrottle?.failed(request.ip)
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
    if (presented === undefined && options.apiKeyOnly) {
      throw missingApiKey()
    }
    const credential = presented && (await identifyThrottled(request, reply, store, presented))
    if (credential === undefined) throw unauthenticated()
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
      401: failures.unauthenticated,
      403: failures.forbidden,
      // `/laporan` documents its own 429, of its bucket and of this throttle both.
      429: route.responses[429] ?? failures.throttled,
    },
  }
}
