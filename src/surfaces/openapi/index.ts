import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { OperationSpec } from '../../http/route-spec.js'
import { bodiesByOrigin, withOrigin } from './origin.js'

export interface OpenApiSurfaceOptions {
  document: Record<string, unknown>
}

/** The group of the service's self-description in the document: this document and `/docs`. */
export const DESCRIPTION_TAG = {
  name: 'E: description',
  description:
    'Surface E: this document, `GET /openapi.json`; `GET /docs`, the interactive reference ' +
    'on it; and `GET /asyncapi.json`, the events as AsyncAPI 3.0.0. Open, and the same for ' +
    'every client.',
}

/** An OpenAPI document, as much of it as a client needs to recognise one. */
const OpenApiDocument = Type.Object(
  {
    openapi: Type.Literal('3.1.0'),
    info: Type.Object({ title: Type.String(), version: Type.String() }),
    servers: Type.Array(Type.Object({ url: Type.String() })),
    paths: Type.Record(Type.String(), Type.Object({})),
    components: Type.Object({}),
  },
  {
    description:
      'An OpenAPI 3.1.0 document (https://spec.openapis.org/oas/v3.1.0): this one, with ' +
      'the default of the server variable `origin` set to the origin the request was sent to.',
  },
)

/** `GET /openapi.json` as the document publishes it (docs/openapi.md). */
export const openApiOperation: OperationSpec = {
  method: 'GET',
  path: '/openapi.json',
  operationId: 'getOpenApiDocument',
  summary: 'This OpenAPI 3.1.0 document: every operation of the running configuration.',
  description:
    'The description of what this deployment serves, generated from the route table it ' +
    'serves with. Every server URL starts with the variable `origin`, whose default is the ' +
    'scheme, host and port the request was sent to (`Host`), so the document fetched from a ' +
    'deployment points at that deployment.',
  tags: [DESCRIPTION_TAG.name],
  responses: {
    200: { description: 'The document, as JSON.', schema: OpenApiDocument },
  },
}

/**
 * Surface E: `GET /openapi.json`. The document is built once, when the app is built; it is
 * served with the default of its `origin` server variable set to the origin the request was
 * sent to (`requestOrigin`), so a client that fetched it from a deployment (Postman's "import
 * from link", Swagger UI) reaches that deployment. Serialised once per origin.
 */
export async function openApiSurface(instance: FastifyInstance, options: OpenApiSurfaceOptions) {
  const body = bodiesByOrigin((origin) => withOrigin(options.document, origin))
  instance.get(openApiOperation.path, async (request, reply) =>
    reply.type('application/json; charset=utf-8').send(body(request)),
  )
}
