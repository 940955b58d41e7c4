import type { FastifyInstance } from 'fastify'

export interface OpenApiSurfaceOptions {
  document: Record<string, unknown>
}

/** Surface E: `GET /openapi.json`. The document is built once, when the app is built. */
export async function openApiSurface(instance: FastifyInstance, options: OpenApiSurfaceOptions) {
  const body = JSON.stringify(options.document)
  instance.get('/openapi.json', async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(body),
  )
}
