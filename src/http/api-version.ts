import type { FastifyInstance, FastifyRequest } from 'fastify'

declare module 'fastify' {
  interface FastifyRequest {
    /** The API version that answered the request (`tugas v2`...); null for an unversioned one. */
    apiVersion: string | null
  }
}

/** Gives every request of `app` its `apiVersion` slot; call it on the root instance. */
export function trackApiVersions(app: FastifyInstance): void {
  app.decorateRequest('apiVersion', null)
}

/**
 * Records which API version answered a request (`tugas v2`, `produk v1`...). The request log line
 * carries it with a running count per version, so per-version traffic can be watched before a
 * version is retired (docs/versioning.md#deprecation-lifecycle).
 */
export function markApiVersion(request: FastifyRequest, version: string): void {
  request.apiVersion = version
}

export function apiVersionOf(request: FastifyRequest): string | undefined {
  // A request the router could not read was built before any slot existed.
  return request.apiVersion ?? undefined
}
