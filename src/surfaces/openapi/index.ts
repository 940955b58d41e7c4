import type { FastifyInstance } from 'fastify'
import { requestOrigin, withOrigin } from './origin.js'

export interface OpenApiSurfaceOptions {
  document: Record<string, unknown>
}

/** How many serialised documents are kept, one per origin the service is reached at. */
const KEPT_ORIGINS = 16

/**
 * Surface E: `GET /openapi.json`. The document is built once, when the app is built; it is
 * served with the default of its `origin` server variable set to the origin the request was
 * sent to (`requestOrigin`), so a client that fetched it from a deployment (Postman's "import
 * from link", Swagger UI) reaches that deployment. Serialised once per origin.
 */
export async function openApiSurface(instance: FastifyInstance, options: OpenApiSurfaceOptions) {
  const bodies = new Map<string, string>()
  instance.get('/openapi.json', async (request, reply) => {
    const origin = requestOrigin(request)
    let body = bodies.get(origin)
    if (body === undefined) {
      body = JSON.stringify(withOrigin(options.document, origin))
      // Any client may send any Host: the cache stays small whatever they send.
      if (bodies.size >= KEPT_ORIGINS) bodies.clear()
      bodies.set(origin, body)
    }
    return reply.type('application/json; charset=utf-8').send(body)
  })
}
