// Helpers for the surface D tests: an app, a conformance-checked call, E2 assertions.
import assert from 'node:assert/strict'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { type Config, defaults } from '../../../src/config.js'
import { TokenBucketLimiter } from '../../../src/rate-limit/token-bucket.js'
import { demoSeed } from '../../../src/seed.js'
import { createMemoryStores } from '../../../src/stores.js'
import { openApiDocument } from '../../../src/surfaces/openapi/document.js'
import { supportingRoutes } from '../../../src/surfaces/supporting/index.js'
import { conformanceChecker } from '../../conformance.js'

/** The demo credentials of the built-in seed (README). */
export const ADMIN = 'demo-admin-token'
export const BUDI = 'demo-budi-token'
export const SITI = 'demo-siti-token'

export const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` })
export const apiKey = (secret: string) => ({ 'x-api-key': secret })

/**
 * A checker of responses against an OpenAPI document generated from surface D's own route
 * table (the same RouteSpecs the app registers and serializes with), for one users variant.
 * Undocumented operations must answer the service's generic E1 404.
 */
async function checkerFor(usersVariant: Config['usersVariant']) {
  const routes = supportingRoutes({
    ...(await createMemoryStores(demoSeed)),
    limiter: new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1 }),
    usersVariant,
    salesReportFile: defaults.laporanPenjualanFile,
  })
  const document = openApiDocument({
    info: { title: 'surface D', version: 'test', description: 'surface D route table' },
    servers: [],
    routes,
    components: {},
  })
  return conformanceChecker(document as Record<string, unknown>)
}

const checkers = new Map<string, ReturnType<typeof conformanceChecker>>()

/**
 * `app.inject` plus a check that the answer matches surface D's documented responses: status
 * listed for the operation, body valid against its schema, Location present where documented.
 */
export async function callD(
  app: FastifyInstance,
  options: InjectOptions & { url: string },
  usersVariant: Config['usersVariant'] = 'enveloped',
): Promise<LightMyRequestResponse> {
  let check = checkers.get(usersVariant)
  if (check === undefined) {
    check = await checkerFor(usersVariant)
    checkers.set(usersVariant, check)
  }
  const response = await app.inject(options)
  check(
    { method: options.method ?? 'GET', url: options.url },
    { statusCode: response.statusCode, headers: response.headers, body: response.body },
  )
  return response
}

/**
 * Asserts an E2 error: the status, `Content-Type: application/json`, exactly `{ error }` with
 * `code`, a non-empty `message`, and `details` (keys in alphabetical order) only when expected.
 */
export function assertE2(
  response: LightMyRequestResponse,
  status: number,
  code: string,
  details?: Record<string, string>,
): { code: string; message: string; details?: Record<string, string> } {
  const what = `${status} ${code}: got ${response.statusCode} ${response.body}`
  assert.equal(response.statusCode, status, what)
  assert.match(String(response.headers['content-type']), /^application\/json/, what)
  const body = response.json()
  assert.deepEqual(Object.keys(body), ['error'], what)
  const error = body.error
  assert.equal(error.code, code, what)
  assert.equal(typeof error.message, 'string', what)
  assert.ok(error.message.length > 0, what)
  if (details === undefined) {
    assert.equal(error.details, undefined, what)
  } else {
    assert.deepEqual(error.details, details, what)
    const keys = Object.keys(error.details)
    assert.deepEqual(keys, [...keys].sort(), `details keys in alphabetical order: ${what}`)
  }
  if (status === 401) assert.equal(response.headers['www-authenticate'], 'Bearer realm="api"')
  return error
}
