import type { Config } from '../../config.js'
import { E2Body, E2FieldsBody } from '../../http/e2/shape.js'
import type { OperationSpec, ResponseSpec } from '../../http/route-spec.js'
import { ASYNCAPI_PATH } from '../asyncapi/index.js'
import { COMPACT_PREFIX, COMPACT_TAG, UNKNOWN_PATH } from '../compact/index.js'
import { CompactTugas } from '../compact/schemas.js'
import { deliveries, eventComponents } from '../events/event-types.js'
import { EVENTS_TAG } from '../events/index.js'
import { HEALTH_TAG } from '../health/index.js'
import { METRICS_TAG } from '../metrics/index.js'
import { Dokumen } from '../supporting/documents/schemas.js'
import { SUPPORTING_TAG } from '../supporting/index.js'
import { Pesanan } from '../supporting/orders/schemas.js'
import { Produk, ProdukV1, ProdukV2 } from '../supporting/products/schemas.js'
import { User } from '../supporting/users/schemas.js'
import { TODOS_TAG } from '../todos/index.js'
import { PriorityTodoCreated, Todo } from '../todos/schemas.js'
import { errorResponse } from '../tugas/errors.js'
import { TUGAS_TAG } from '../tugas/index.js'
import { components as tugasComponents } from '../tugas/schemas.js'
import { WEBHOOKS_TAG } from '../webhooks/index.js'
import { openApiDocument } from './document.js'
import { DESCRIPTION_TAG } from './index.js'
import { DEFAULT_ORIGIN, ORIGIN_VARIABLE } from './origin.js'

export interface DocumentedRoutes {
  /** Described relative to the server prefix `/v1` (surface A). */
  atServer: OperationSpec[]
  /**
   * Described at their own paths from the root (`/v2/tugas`, surfaces B, C and D, and the
   * service's own: this document, `/docs`, readiness, metrics).
   */
  atRoot: OperationSpec[]
}

/**
 * What Node's HTTP parser answers, before any route runs, to a request it refuses (see
 * `answerClientErrors`): in the generic E1 shape whatever the surface, and the connection is
 * closed. Every operation can get these; they are listed on those that have no 4xx of their own.
 */
const PARSER_REFUSALS: Record<number, ResponseSpec> = {
  408: errorResponse(
    'The request was not received within the time limits (headers, whole request); answered ' +
      'before any route, in the generic E1 shape, and the connection is closed.',
  ),
  431: errorResponse(
    'The request headers are over the size limit; answered before any route, in the generic ' +
      'E1 shape, and the connection is closed.',
  ),
}

const hasClientError = (route: OperationSpec) =>
  Object.keys(route.responses).some((status) => status.startsWith('4'))

/** The route as published: with the parser's refusals when it answers no 4xx of its own. */
const withClientErrors = (route: OperationSpec): OperationSpec =>
  hasClientError(route)
    ? route
    : { ...route, responses: { ...route.responses, ...PARSER_REFUSALS } }

/**
 * The schemas the documents name (`components.schemas`), wherever an operation, a webhook or an
 * AsyncAPI message uses the very object; each document lists only those it uses.
 */
export const serviceComponents = {
  ...tugasComponents,
  ErrorE2: E2Body,
  ErrorE2Fields: E2FieldsBody,
  CompactTugas,
  Todo,
  PriorityTodoCreated,
  User,
  Pesanan,
  Produk,
  ProdukV1,
  ProdukV2,
  Dokumen,
  ...eventComponents,
}

/**
 * The service's self-description for the running configuration: surface A under the server prefix
 * `/v1` (the server `{origin}/v1`, docs/openapi.md#surface-e-get-openapijson), and every operation
 * served outside it (the v2 task list, surfaces B and C, surface D with the product versions) with
 * its own `servers` (`{origin}`). Every server URL starts with the variable `origin`, the service's
 * address, so that tools which need an absolute URL (Postman's importer, openapi-to-postmanv2)
 * resolve every operation from that one variable; its default is set, as the document is served, to
 * the origin the request was sent to (`withOrigin`). Only what this configuration serves is listed,
 * each with the responses it can give.
 */
export function serviceDocument(config: Config, routes: DocumentedRoutes) {
  const modes = `TUGAS_VERSIONING=${config.tugasVersioning}, PRODUK_VERSIONING=${config.produkVersioning}, USERS_VARIANT=${config.usersVariant}, TODOS_VARIANT=${config.todosVariant}`
  return openApiDocument({
    info: {
      title: 'tugas: Task Management Service',
      version: '1.0.0',
      description:
        'Surface A (tasks and their comments) under the server prefix `/v1`, also served ' +
        'without the prefix; the versioned task list; and at the root surface B (`/api`), ' +
        'surface C (`/todos`), surface D (users, orders, products, documents, identity, ' +
        "reports) and the service's own endpoints (this document, `/docs`, readiness, " +
        "metrics). A path item's `x-method-not-allowed` is its answer (405, with `Allow`) to a " +
        'method it does not serve; `x-unknown-paths` gives the answer of a path no operation ' +
        'serves below a prefix; any other unknown path or method is 404 `TIDAK_ADA` (surface A). ' +
        'A request the HTTP parser refuses (headers over the limit: 431; too slow: 408; ' +
        'malformed: 400) is answered before any route, in the generic E1 shape. ' +
        'Every server URL starts with the variable `origin`, the scheme, host and port of ' +
        'the service (by default where this document was fetched from): setting it once ' +
        'points every operation at a deployment. ' +
        'The events (`GET /events`, and the webhook deliveries under `webhooks`, one per event ' +
        'type) are also described as an AsyncAPI 3.0.0 document, built from the same schemas: ' +
        `[\`GET ${ASYNCAPI_PATH}\`](${ASYNCAPI_PATH}). ` +
        `This document describes this deployment: ${modes}.`,
      contact: { name: 'tugas maintainers' },
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/v1', description: 'Surface A, under the version prefix `/v1`.' }],
    origin: {
      name: ORIGIN_VARIABLE,
      default: DEFAULT_ORIGIN,
      description:
        'The scheme, host and port of the service, without a trailing slash ' +
        '(`http://127.0.0.1:8080`). As served, its default is the origin this document was ' +
        'fetched from.',
    },
    tags: [
      TUGAS_TAG,
      COMPACT_TAG,
      TODOS_TAG,
      SUPPORTING_TAG,
      EVENTS_TAG,
      WEBHOOKS_TAG,
      DESCRIPTION_TAG,
      HEALTH_TAG,
      METRICS_TAG,
    ],
    routes: [
      ...routes.atServer,
      ...routes.atRoot.map((route) => ({ ...route, servers: route.servers ?? ['/'] })),
    ].map(withClientErrors),
    webhooks: deliveries(),
    unknownPaths: { [COMPACT_PREFIX]: UNKNOWN_PATH },
    components: serviceComponents,
    securitySchemes: {
      bearer: {
        type: 'http',
        scheme: 'bearer',
        description: 'A credential secret as a Bearer token.',
      },
      apiKey: {
        type: 'apiKey',
        in: 'header',
        name: 'X-API-Key',
        description: 'A credential secret.',
      },
    },
  })
}
