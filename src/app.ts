import { randomUUID } from 'node:crypto'
import { METHODS, type Server } from 'node:http'
import Fastify, {
  type FastifyHttpOptions,
  type FastifyInstance,
  type FastifyServerOptions,
} from 'fastify'
import type { RefusalReason } from './access/store.js'
import type { Config } from './config.js'
import { trackApiVersions } from './http/api-version.js'
import { corsStep } from './http/cors.js'
import { useErrorShape } from './http/errors.js'
import { useIdempotency } from './http/idempotency.js'
import { encapsulated } from './http/plugin.js'
import { securityHeaders } from './http/security-headers.js'
import type { Infrastructure } from './infrastructure.js'
import { Metrics } from './metrics/index.js'
import { answerClientErrors, type ClientErrorStatus } from './server/client-error.js'
import { sharedCompilers } from './server/compilers.js'
import { type Http1Limits, httpsFastify, idleCloser } from './server/https.js'
import { literalUndecodableSegments } from './server/literal-segments.js'
import { RequestLog } from './server/request-log.js'
import { lazyChildren } from './server/request-logger.js'
import type { TlsFiles } from './server/tls.js'
import { asyncApiDocument } from './surfaces/asyncapi/document.js'
import { asyncApiOperation, asyncApiSurface } from './surfaces/asyncapi/index.js'
import { compactErrors } from './surfaces/compact/errors.js'
import { compactRoutes, compactSurface } from './surfaces/compact/index.js'
import { docsOperation, docsSurface } from './surfaces/docs/index.js'
import { eventOperations, eventsSurface } from './surfaces/events/index.js'
import { eventRoutes } from './surfaces/events/routes.js'
import { OpenStreams } from './surfaces/events/stream.js'
import { healthSurface, readinessRoute } from './surfaces/health/index.js'
import { metricsOperation, metricsSurface } from './surfaces/metrics/index.js'
import { openApiOperation, openApiSurface } from './surfaces/openapi/index.js'
import { serviceDocument } from './surfaces/openapi/service.js'
import { supportingRoutes, supportingSurface } from './surfaces/supporting/index.js'
import { todosRouteTable, todosSurface } from './surfaces/todos/index.js'
import { e1, e1Body } from './surfaces/tugas/errors.js'
import { tugasRouteTable, tugasSurface } from './surfaces/tugas/index.js'
import { webhookOperations, webhooksSurface } from './surfaces/webhooks/index.js'
import { NameResolver } from './surfaces/webhooks/resolver.js'
import { webhookRoutes } from './surfaces/webhooks/routes.js'

export const BODY_LIMIT = 1024 * 1024

export interface AppOptions {
  config: Config
  /** The stores and the limiter; the app closes them when it closes. */
  infrastructure: Infrastructure
  /** Pino options or a destination; defaults to JSON on stdout at the configured level. */
  logger?: FastifyServerOptions['logger']
  /** The wall clock (products v1 sunset, Idempotency-Keys' 24 hours); the real one when left out. */
  now?: () => Date
  /** Certificate and key (config.tls, read and checked by loadTls): the app serves HTTPS. */
  tls?: TlsFiles
}

/** A client's X-Request-Id is echoed when it is a sane token; anything else gets a fresh id. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, infrastructure, logger } = options
  const { stores, limiter } = infrastructure
  const metrics = new Metrics({ workers: config.workers, pool: infrastructure.poolStats })
  const surfaceD = supportingRoutes({
    ...stores,
    limiter: metrics.countDecisions(limiter),
    usersVariant: config.usersVariant,
    produkVersioning: config.produkVersioning,
    produkV1Sunset: config.produkV1Sunset,
    salesReportFile: config.laporanPenjualanFile,
    ...(options.now && { now: options.now }),
  })
  const surfaceA = tugasRouteTable({
    store: stores.tugas,
    batasDefault: config.tugasBatasDefault,
    versioning: config.tugasVersioning,
  })
  const surfaceB = compactRoutes({ store: stores.compact, bodyLimit: BODY_LIMIT })
  const surfaceC = todosRouteTable({
    store: stores.todos,
    variant: config.todosVariant,
    bodyLimit: BODY_LIMIT,
  })
  const streams = new OpenStreams(config.eventsBufferBytes)
  const events = eventOperations(
    eventRoutes({
      log: stores.events,
      credentials: stores.credentials,
      heartbeatMs: config.eventsHeartbeatMs,
      maxStreams: config.eventsMaxStreams,
      streams,
    }),
  )
  metrics.countEvents({ openStreams: () => streams.size, published: stores.events.publishedByType })
  // Subscriptions' hosts are checked by c-ares, off libuv's pool
  // (docs/webhooks.md#name-resolution).
  const resolver = new NameResolver(config.webhookDnsServers)
  const webhooks = webhookOperations(
    webhookRoutes({
      store: stores.webhooks,
      credentials: stores.credentials,
      allowPrivate: config.webhookAllowPrivate,
      lookup: { resolver, timeoutMs: config.webhookTimeoutMs },
    }),
  )
  // Made by the background work the infrastructure runs (background.ts), not by the app.
  if (infrastructure.deliveries) metrics.countDeliveries(infrastructure.deliveries)

  const requestLog = new RequestLog(infrastructure.versionCounts, metrics)
  // The parser cannot know the surface: the generic answer is surface A's shape
  // (docs/decisions.md#requests-refused-before-routing).
  const clientErrorBody = (statusCode: ClientErrorStatus) =>
    JSON.stringify(e1Body(e1.fromFramework({ kind: 'client-error', statusCode })))
  const serverOptions: FastifyHttpOptions<Server> = {
    logger: logger ?? { level: config.logLevel },
    schemaController: sharedCompilers,
    bodyLimit: BODY_LIMIT,
    // No length limit on a path segment: an id of any length reaches its route, whose id rule
    // answers it (the router's default of 100 characters would turn it into "no such path").
    routerOptions: { maxParamLength: Number.MAX_SAFE_INTEGER },
    rewriteUrl: (request) => literalUndecodableSegments(request.url ?? '/'),
    clientErrorHandler: answerClientErrors(() => app.log, clientErrorBody),
    logController: requestLog,
    requestIdHeader: false,
    // The client address (`request.ip`, which the failed-credentials throttle counts by) from
    // X-Forwarded-For, when the socket's peer is one of these proxies.
    ...(config.trustProxy && { trustProxy: config.trustProxy }),
    genReqId(request) {
      const sent = request.headers['x-request-id']
      return typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID()
    },
    // Requests that arrive while closing are still answered; close waits for them.
    return503OnClosing: false,
    // What the router still cannot read once undecodable segments are literal (an absolute URL
    // it cannot parse, `*`) names no endpoint: the 404 of the surface owning the path.
    frameworkErrors(_error, request, reply) {
      // Fastify writes no completion line for these requests: one line per request all the same.
      reply.raw.once('finish', () => requestLog.requestCompleted(null, request, reply))
      reply.header('x-request-id', request.id)
      securityHeaders(request, reply)
      const shape = request.url.startsWith('/api/') ? compactErrors : e1
      shape.send(reply, shape.fromFramework({ kind: 'not-found' }))
    },
  }
  const limits = http1Limits(config)
  const app =
    options.tls === undefined
      ? Fastify({ ...serverOptions, ...plainTimeLimits(limits) })
      : httpsFastify(serverOptions, options.tls, limits, clientErrorBody(408))
  // Each request's logger is made when it first writes (nearly never at `warn`).
  lazyChildren(app.log)

  // Every method Node parses gets routed, so that a known path answers its surface's 405 for
  // PROPFIND or QUERY as for PUT. None of them takes a body here (QUERY would otherwise be
  // refused for a missing Content-Type before any route ran). CONNECT never reaches a router.
  for (const method of METHODS) {
    if (method === 'CONNECT') continue
    if (method === 'QUERY' || !app.supportedMethods.includes(method)) {
      app.addHttpMethod(method, { hasBody: false, overrideExisting: true })
    }
  }

  // While closing, each keep-alive connection is closed once its response is sent: otherwise
  // an idle client would hold close() for the whole keep-alive timeout.
  const closeIdle = idleCloser(app.server)
  let sweep: NodeJS.Timeout | undefined
  app.addHook('preClose', (done) => {
    sweep = setInterval(closeIdle, 50).unref()
    done()
  })
  // After the server has drained its requests: nothing uses the stores any more.
  app.addHook('onClose', async () => {
    clearInterval(sweep)
    await infrastructure.close()
  })

  // The one hook of every request, before any surface or 404 handler exists, so that all of them
  // inherit it: the request id, the security headers, then CORS. A callback hook (a promise per
  // request is measurable), and one, not three (so is each hook a request runs).
  const cors = corsStep(app)
  app.addHook('onRequest', function everyRequest(request, reply, done) {
    reply.header('x-request-id', request.id)
    securityHeaders(request, reply)
    cors.call(this, request, reply, done)
  })

  // The failed credentials per client address, which every credentialed route checks.
  app.decorate('authThrottle', infrastructure.authThrottle)
  const refusedCredentials = new Map<RefusalReason | 'throttled', number>()
  app.decorate('refusedCredentials', refusedCredentials)
  metrics.countRefusedCredentials(refusedCredentials)

  // Read by the request log of every request, set by the versioned routes.
  trackApiVersions(app)

  // Whatever no surface claims is surface A's 404, whatever the body.
  useErrorShape(app, e1)

  // The Idempotency-Keys of every surface's creates, in the store beside the data.
  useIdempotency(app, { store: stores.idempotency, now: options.now ?? (() => new Date()) })
  await app.register(encapsulated('tugasSurface', tugasSurface), { table: surfaceA })
  await app.register(encapsulated('compactSurface', compactSurface), { routes: surfaceB })
  await app.register(encapsulated('todosSurface', todosSurface), { table: surfaceC })
  await app.register(encapsulated('supportingSurface', supportingSurface), { routes: surfaceD })
  await app.register(encapsulated('eventsSurface', eventsSurface), { routes: events, streams })
  await app.register(encapsulated('webhooksSurface', webhooksSurface), { routes: webhooks })
  const readiness = readinessRoute(() => infrastructure.checks())
  await app.register(encapsulated('healthSurface', healthSurface), { route: readiness })
  await app.register(encapsulated('metricsSurface', metricsSurface), { metrics })

  const document = serviceDocument(config, {
    atServer: surfaceA.documented,
    atRoot: [
      ...surfaceA.documentedAtRoot,
      ...surfaceB,
      ...surfaceC.basic,
      ...surfaceC.priority,
      ...surfaceD,
      ...events,
      ...webhooks,
      // The service's own endpoints: every route it serves is described
      // (docs/openapi.md#surface-e-get-openapijson).
      openApiOperation,
      docsOperation,
      asyncApiOperation,
      readiness,
      metricsOperation,
    ],
  })
  await app.register(encapsulated('openApiSurface', openApiSurface), { document })
  await app.register(encapsulated('docsSurface', docsSurface), { document })
  await app.register(encapsulated('asyncApiSurface', asyncApiSurface), {
    document: asyncApiDocument(config),
  })

  return app
}

/**
 * How long a client may take: Fastify sets no request time limit, so without these a body sent
 * one byte a minute would hold a connection forever. Node checks the limits every
 * `connectionsCheckingInterval`, a second or a quarter of the shorter limit.
 */
function http1Limits(config: Config): Http1Limits {
  const { requestTimeoutMs, headersTimeoutMs, keepAliveTimeoutMs } = config
  return {
    requestTimeout: requestTimeoutMs,
    headersTimeout: headersTimeoutMs,
    keepAliveTimeout: keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(headersTimeoutMs / 4))),
  }
}

/** The limits as Fastify's options of a plain HTTP server. */
function plainTimeLimits(limits: Http1Limits) {
  const { requestTimeout, headersTimeout, keepAliveTimeout, connectionsCheckingInterval } = limits
  return {
    requestTimeout,
    keepAliveTimeout,
    // Also here: Node checks the head limit against this one when it creates the server.
    http: { requestTimeout, headersTimeout, connectionsCheckingInterval },
  }
}
