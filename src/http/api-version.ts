import type { FastifyRequest } from 'fastify'

const versions = new WeakMap<FastifyRequest, string>()

/**
 * Records which API version answered a request (`tugas v2`, `produk v1`...). The request log
 * line carries it with a running count per version, so per-version traffic can be watched
 * before a version is retired (Part 2, Deprecation).
 */
export function markApiVersion(request: FastifyRequest, version: string): void {
  versions.set(request, version)
}

export function apiVersionOf(request: FastifyRequest): string | undefined {
  return versions.get(request)
}
