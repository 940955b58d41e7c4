import { randomUUID } from 'node:crypto'
import { METHODS } from 'node:http'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import type { Config } from './config.js'
import { useErrorShape } from './http/errors.js'
import { RequestLog } from './http/request-log.js'
import type { RateLimiter } from './rate-limit/limiter.js'
import { TokenBucketLimiter } from './rate-limit/token-bucket.js'
import type { Stores } from './stores.js'
import { compactErrors } from './surfaces/compact/errors.js'
import { compactSurface } from './surfaces/compact/index.js'
import { openApiSurface } from './surfaces/openapi/index.js'
import { serviceDocument } from './surfaces/openapi/service.js'
import {
  supportingBadUrl,
  supportingRoutes,
  supportingSurface,
} from './surfaces/supporting/index.js'
import { todosSurface } from './surfaces/todos/index.js'
import { e1 } from './surfaces/tugas/errors.js'
import { tugasRouteTable, tugasSurface } from './surfaces/tugas/index.js'

export const BODY_LIMIT = 1024 * 1024

export interface AppOptions {
  config: Config
  stores: Stores
  /** The `/laporan` limiter; an in-memory token bucket from the config when left out. */
  limiter?: RateLimiter
  /** Pino options or a destination; defaults to JSON on stdout at the configured level. */
  logger?: FastifyServerOptions['logger']
  /** The wall clock (products v1 sunset); the real one when left out. */
  now?: () => Date
}

/** A client's X-Request-Id is echoed when it is a sane token; anything else gets a fresh id. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, stores, logger } = options
  const limiter =
    options.limiter ??
    new TokenBucketLimiter({
      capacity: config.rateLimitCapacity,
      refillPerSecond: config.rateLimitRefillPerSecond,
    })
  const surfaceD = supportingRoutes({
    ...stores,
    limiter,
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
  const supportingBadUrlAnswer = supportingBadUrl(surfaceD)

  const requestLog = new RequestLog()
  const app = Fastify({
    logger: logger ?? { level: config.logLevel },
    bodyLimit: BODY_LIMIT,
    logController: requestLog,
    requestIdHeader: false,
    genReqId(request) {
      const sent = request.headers['x-request-id']
      return typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID()
    },
    // Requests that arrive while closing are still answered; close waits for them.
    return503OnClosing: false,
    // A URL the router cannot decode: surface D answers its paths as for a bad id; anywhere
    // else it names no endpoint, the 404 of the surface owning the path.
    async frameworkErrors(_error, request, reply) {
      // Fastify writes no completion line for these requests: one line per request all the same.
      reply.raw.once('finish', () => requestLog.requestCompleted(null, request, reply))
      reply.header('x-request-id', request.id)
      if (await supportingBadUrlAnswer(app, request, reply)) return
      const shape = request.url.startsWith('/api/') ? compactErrors : e1
      shape.send(reply, shape.fromFramework({ kind: 'not-found' }, request))
    },
  })

  // Every method Node parses gets routed, so that a known path answers its surface's 405 for
  // PROPFIND or QUERY as for PUT. None of them takes a body here (QUERY would otherwise be
  // refused for a missing Content-Type before any route ran). CONNECT never reaches a router.
  for (const method of METHODS) {
    if (method === 'CONNECT') continue
    if (method === 'QUERY' || !app.supportedMethods.includes(method)) {
      app.addHttpMethod(method, { hasBody: false, overrideExisting: true })
    }
  }

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id)
  })

  // Whatever no surface claims is surface A's 404, whatever the body.
  useErrorShape(app, e1)

  await app.register(tugasSurface, { table: surfaceA })
  await app.register(compactSurface, { prefix: '/api', store: stores.compact })
  await app.register(todosSurface, {
    prefix: '/todos',
    store: stores.todos,
    variant: config.todosVariant,
  })
  await app.register(supportingSurface, { routes: surfaceD })

  const document = serviceDocument(config, {
    atServer: surfaceA.documented,
    atRoot: [...surfaceA.documentedAtRoot, ...surfaceD],
  })
  await app.register(openApiSurface, { document })

  return app
}
