// Helpers for the surface D tests: an app, a conformance-checked call, E2 assertions.
import assert from 'node:assert/strict'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import type { Config } from '../../src/config.js'
import { call } from './helpers.js'

/** The demo credentials of the built-in seed (docs/operating.md#demo-data). */
export const ADMIN = 'demo-admin-token'
export const BUDI = 'demo-budi-token'
export const SITI = 'demo-siti-token'

export const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` })
export const apiKey = (secret: string) => ({ 'x-api-key': secret })

/**
 * `app.inject` plus a check that the answer matches the app's own `/openapi.json` (which
 * describes surface D for the app's configuration): status listed for the operation, body
 * valid against its schema, Location present where documented.
 */
export async function callD(
  app: FastifyInstance,
  options: InjectOptions & { url: string },
  _usersVariant?: Config['usersVariant'],
): Promise<LightMyRequestResponse> {
  return call(app, options)
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

type Route = readonly [method: NonNullable<InjectOptions['method']>, url: string, allow: string]

/**
 * Sends each `[method, url, allow]` with each of `requests` (headers, body) and asserts a 405
 * METHOD_NOT_ALLOWED (E2) with that `Allow`.
 */
export async function assertNotAllowed(
  app: FastifyInstance,
  routes: readonly Route[],
  requests: readonly Omit<InjectOptions, 'method' | 'url'>[],
): Promise<void> {
  for (const [method, url, allow] of routes) {
    for (const request of requests) {
      const response = await app.inject({ method, url, ...request })
      assertE2(response, 405, 'METHOD_NOT_ALLOWED')
      assert.equal(response.headers.allow, allow, `${method} ${url}`)
    }
  }
}
