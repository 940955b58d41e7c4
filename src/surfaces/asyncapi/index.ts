import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { OperationSpec } from '../../http/route-spec.js'
import { DESCRIPTION_TAG } from '../openapi/index.js'
import { bodiesByOrigin } from '../openapi/origin.js'

/** Where the AsyncAPI document is served (docs/events.md#described-for-generators). */
export const ASYNCAPI_PATH = '/asyncapi.json'

/** The server of the document that is this deployment: `GET /events` is served there. */
export const SERVICE_SERVER = 'service'

export interface AsyncApiSurfaceOptions {
  /** Built once with the app (asyncApiDocument); served with `servers.service` at the origin. */
  document: Record<string, unknown>
}

/** An AsyncAPI document, as much of it as a client needs to recognise one. */
const AsyncApiDocument = Type.Object(
  {
    asyncapi: Type.Literal('3.0.0'),
    info: Type.Object({ title: Type.String(), version: Type.String() }),
    servers: Type.Record(Type.String(), Type.Object({})),
    channels: Type.Record(Type.String(), Type.Object({})),
    operations: Type.Record(Type.String(), Type.Object({})),
    components: Type.Object({}),
  },
  {
    description:
      'An AsyncAPI 3.0.0 document (https://www.asyncapi.com/docs/reference/specification/v3.0.0) ' +
      'of the events: the channel `events` (`GET /events`, Server-Sent Events) and the channel ' +
      '`deliveries` (webhook deliveries), one message per event type, with the schemas this ' +
      'document gives them; the server `service` is the origin the request was sent to.',
  },
)

/** `GET /asyncapi.json` as the OpenAPI document publishes it. */
export const asyncApiOperation: OperationSpec = {
  method: 'GET',
  path: ASYNCAPI_PATH,
  operationId: 'getAsyncApiDocument',
  summary: 'The events as an AsyncAPI 3.0.0 document: the change feed and the webhook deliveries.',
  description:
    'The events of this deployment (`GET /events` and the webhook deliveries) for AsyncAPI ' +
    'tools, generated from the same schemas as this document: each message payload is the ' +
    "schema of the type's webhook body here. The server `service` is the scheme, host and port " +
    'the request was sent to (`Host`).',
  tags: [DESCRIPTION_TAG.name],
  responses: {
    200: { description: 'The document, as JSON.', schema: AsyncApiDocument },
  },
}

/** The host and protocol of the AsyncAPI server at `origin` (`http://127.0.0.1:8080`). */
export function serverAt(origin: string): { host: string; protocol: string } {
  const url = new URL(origin)
  return { host: url.host, protocol: url.protocol.slice(0, -1) }
}

/** `document` with its server `service` at `origin`; `document` is left as it is. */
export function servedAt(
  document: Record<string, unknown>,
  origin: string,
): Record<string, unknown> {
  const servers = document.servers as Record<string, Record<string, unknown>>
  return {
    ...document,
    servers: { ...servers, [SERVICE_SERVER]: { ...servers[SERVICE_SERVER], ...serverAt(origin) } },
  }
}

/**
 * Surface E: `GET /asyncapi.json`, open as `GET /openapi.json` is. The document is built once,
 * when the app is built, and serialised once per origin the service is reached at.
 */
export async function asyncApiSurface(instance: FastifyInstance, options: AsyncApiSurfaceOptions) {
  const body = bodiesByOrigin((origin) => servedAt(options.document, origin))
  instance.get(asyncApiOperation.path, async (request, reply) =>
    reply.type('application/json; charset=utf-8').send(body(request)),
  )
}
