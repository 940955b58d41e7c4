import type { FastifyInstance, FastifyRequest } from 'fastify'

/**
 * One version of one API: `api` (`tugas`, `produk`) and `version` (`v1`, `v2`, `unversioned`),
 * the two labels of the metric (docs/operating.md#metrics-get-metrics); `name` (`tugas v2`) is
 * how the request log line and the per-version counts name it.
 */
export interface ApiVersion {
  readonly api: string
  readonly version: string
  readonly name: string
}

/** The version `version` of the API `api`; made once, where the API's routes are. */
export function apiVersion(api: string, version: string): ApiVersion {
  return Object.freeze({ api, version, name: `${api} ${version}` })
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The API version that answered the request (`tugas v2`...); null for an unversioned one. */
    apiVersion: ApiVersion | null
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
export function markApiVersion(request: FastifyRequest, version: ApiVersion): void {
  request.apiVersion = version
}

export function apiVersionOf(request: FastifyRequest): ApiVersion | undefined {
  // A request the router could not read was built before any slot existed.
  return request.apiVersion ?? undefined
}
