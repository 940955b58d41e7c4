import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

/** Whether a request carries a credential (`Authorization` or `X-API-Key`), known or not. */
const carriesCredential = ({ headers }: FastifyRequest) =>
  headers.authorization !== undefined || headers['x-api-key'] !== undefined

/**
 * The headers of docs/http.md#security-headers, on every answer of every surface (errors and
 * 404s included): `X-Content-Type-Options: nosniff`, so that no browser reads a JSON or text
 * answer as something else; and `Cache-Control: no-store` on the answer to any request that
 * carries a credential, so that no cache keeps what it showed. Set as the request arrives, in
 * the app's one hook that every request runs, not a hook of their own (what one would cost: the
 * same page); a route that sets its own `Cache-Control` says `no-store` too (`/events`) or keeps
 * it with `keepNoStore` (the docs page's static files).
 */
export function securityHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-content-type-options', 'nosniff')
  if (carriesCredential(request)) reply.header('cache-control', 'no-store')
}

/** In `instance`, whose routes set `Cache-Control` themselves: no-store wins for a credential. */
export function keepNoStore(instance: FastifyInstance): void {
  instance.addHook('onSend', (request, reply, payload, done) => {
    if (carriesCredential(request)) reply.header('cache-control', 'no-store')
    done(null, payload)
  })
}

/** The same for an answer written before any route (the HTTP parser's refusals). */
export const RAW_SECURITY_HEADERS = ['x-content-type-options: nosniff', 'cache-control: no-store']
