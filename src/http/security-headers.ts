import type { FastifyInstance } from 'fastify'

/**
 * The headers of docs/http.md#security-headers, on every answer of every surface (errors and
 * 404s included): `X-Content-Type-Options: nosniff`, so that no browser reads a JSON or text
 * answer as something else; and `Cache-Control: no-store` on the answer to any request that
 * carries a credential (`Authorization` or `X-API-Key`), so that no cache keeps what it showed.
 *
 * Set when the answer is sent, after the route: what a route or plugin set (the docs page's
 * static files) does not outlive a credential. A callback hook: it runs on every answer.
 */
export function useSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-content-type-options', 'nosniff')
    const { headers } = request
    if (headers.authorization !== undefined || headers['x-api-key'] !== undefined) {
      reply.header('cache-control', 'no-store')
    }
    done(null, payload)
  })
}

/** The same for an answer written before any route (the HTTP parser's refusals). */
export const RAW_SECURITY_HEADERS = ['x-content-type-options: nosniff', 'cache-control: no-store']
