import type { Config } from '../../config.js'
import { E2Body } from '../../http/e2.js'
import type { RouteSpec } from '../../http/route-spec.js'
import { Dokumen } from '../supporting/documents/schemas.js'
import { Pesanan } from '../supporting/orders/schemas.js'
import { Produk, ProdukV1, ProdukV2 } from '../supporting/products/schemas.js'
import { User } from '../supporting/users/schemas.js'
import { components as tugasComponents } from '../tugas/schemas.js'
import { openApiDocument } from './document.js'

export interface DocumentedRoutes {
  /** Described relative to the server prefix `/v1` (surface A). */
  atServer: RouteSpec[]
  /** Described at their own paths from the root (`/v2/tugas`, surface D, products). */
  atRoot: RouteSpec[]
}

/**
 * The service's self-description for the running configuration: surface A under the server
 * prefix `/v1` (Part 2), and every operation served outside it (the v2 task list, surface D with
 * the product versions) with its own `servers`. Only what this configuration serves is listed,
 * each with the responses it can give.
 */
export function serviceDocument(config: Config, routes: DocumentedRoutes) {
  const modes = `TUGAS_VERSIONING=${config.tugasVersioning}, PRODUK_VERSIONING=${config.produkVersioning}, USERS_VARIANT=${config.usersVariant}`
  return openApiDocument({
    info: {
      title: 'tugas: Task Management Service',
      version: '1.0.0',
      description:
        'Surface A (tasks and their comments) under the server prefix `/v1`, also served ' +
        'without the prefix; the versioned task list; and surface D (users, orders, products, ' +
        'documents, identity, reports) at the root. Surfaces B (`/api`) and C (`/todos`) are ' +
        `described in the README. This document describes this deployment: ${modes}.`,
    },
    servers: [{ url: '/v1' }],
    routes: [
      ...routes.atServer,
      ...routes.atRoot.map((route) => ({ ...route, servers: route.servers ?? ['/'] })),
    ],
    components: {
      ...tugasComponents,
      ErrorE2: E2Body,
      User,
      Pesanan,
      Produk,
      ProdukV1,
      ProdukV2,
      Dokumen,
    },
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
