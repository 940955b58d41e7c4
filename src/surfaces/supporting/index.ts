import type { FastifyInstance } from 'fastify'
import type { CredentialStore } from '../../access/store.js'
import { serveWithCredentials } from '../../access/surface.js'
import type { ProdukVersioning, UsersVariant } from '../../config.js'
import type { RouteSpec } from '../../http/route-spec.js'
import type { RateLimiter } from '../../rate-limit/limiter.js'
import { credentialRoutes } from './credentials/routes.js'
import { documentRoutes } from './documents/routes.js'
import type { DocumentStore } from './documents/store.js'
import { failures, notServed } from './errors.js'
import { identityRoutes } from './identity/routes.js'
import { orderRoutes } from './orders/routes.js'
import type { OrderStore } from './orders/store.js'
import { productRoutes } from './products/routes.js'
import type { ProductStore } from './products/store.js'
import { reportRoutes } from './reports/routes.js'
import { userRoutes } from './users/routes.js'
import type { UserStore } from './users/store.js'

export interface SupportingOptions {
  users: UserStore
  orders: OrderStore
  products: ProductStore
  documents: DocumentStore
  credentials: CredentialStore
  limiter: RateLimiter
  usersVariant: UsersVariant
  produkVersioning: ProdukVersioning
  produkV1Sunset: Date
  salesReportFile: string
  /** The wall clock, for the products v1 sunset; injectable for tests. */
  now?: () => Date
}

/** Surface D's group in the document. */
export const SUPPORTING_TAG = {
  name: 'D: supporting',
  description:
    'Surface D, at the service root: users, orders (`pesanan`), products (`produk`, with their ' +
    'versions), documents (`dokumen`), identity and reports (`laporan`). Errors are E2 ' +
    '`{ "error": { "code", "message", "details"? } }`; a method a known path does not serve is ' +
    '405 `METHOD_NOT_ALLOWED` with `Allow`.',
}

/**
 * Every operation of surface D, described once: registered, serialized and documented from
 * here. All of them live at the service root, outside the document's `/v1` server.
 */
export function supportingRoutes(options: SupportingOptions): RouteSpec[] {
  const { credentials } = options
  const routes = [
    ...userRoutes({ store: options.users, variant: options.usersVariant }),
    ...orderRoutes({ store: options.orders }),
    ...productRoutes({
      store: options.products,
      versioning: options.produkVersioning,
      sunset: options.produkV1Sunset,
      ...(options.now && { now: options.now }),
    }),
    ...documentRoutes({ store: options.documents, credentials }),
    ...identityRoutes({ credentials }),
    ...credentialRoutes({ credentials, ...(options.now && { now: options.now }) }),
    ...reportRoutes({
      credentials,
      limiter: options.limiter,
      salesReportFile: options.salesReportFile,
    }),
  ]
  return routes.map((route) => ({
    ...route,
    tags: [SUPPORTING_TAG.name],
    // Every operation reads a store, credentials included, except those that declare their own
    // 500 (the sales report reads a file): a store failing is the generic E2 500, or 503 while
    // its service (PostgreSQL, or Redis for the /laporan buckets) cannot be reached.
    responses: route.responses[500] ? route.responses : { ...failures.store, ...route.responses },
    servers: ['/'],
    otherMethods: notServed,
  }))
}

/**
 * Surface D: users, orders, products, documents, identity and reports, at the service root.
 * Errors are E2 (`details`); bodies are JSON with a Content-Type starting `application/json`,
 * up to 1 MiB; an unregistered method on a known path is 405 `METHOD_NOT_ALLOWED` with `Allow`.
 * Unknown paths fall through to the service's generic 404.
 */
export async function supportingSurface(
  instance: FastifyInstance,
  { routes }: { routes: RouteSpec[] },
) {
  serveWithCredentials(instance, routes)
}
