import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { type RouteSpec, registerRoutes } from '../../http/route-spec.js'

const Check = Type.Union([Type.Literal('ok'), Type.Literal('unavailable')])
const Readiness = Type.Object({
  status: Check,
  checks: Type.Record(Type.String(), Check, {
    description: 'Each configured backing service (`postgres`): whether it answers now.',
  }),
})

/** The readiness check's group in the document. */
export const HEALTH_TAG = {
  name: 'Health',
  description:
    'Whether this deployment can serve: `GET /health/ready` checks the backing services it is ' +
    "configured with. Surface B's `GET /api/health` is the liveness answer.",
}

/**
 * `GET /health/ready` (docs/decisions.md#readiness): 200 when every configured backing service
 * answers, else 503 naming which does not. `GET /api/health` stays surface B's liveness answer.
 */
export function readinessRoute(checks: () => Promise<Record<string, boolean>>): RouteSpec {
  return {
    method: 'GET',
    path: '/health/ready',
    operationId: 'getReadiness',
    summary: 'Whether every backing service this deployment uses answers now.',
    description:
      'Asks each configured backing service (`postgres` with `DATABASE_URL`, `redis` with ' +
      '`REDIS_URL`) whether it ' +
      'answers: 200 when all do (also when there is none), otherwise 503 with `Retry-After`, ' +
      '`checks` naming which does not.',
    tags: [HEALTH_TAG.name],
    servers: ['/'],
    responses: {
      200: { description: 'Ready: every backing service answers.', schema: Readiness },
      503: {
        description: 'Not ready: a backing service does not answer.',
        schema: Readiness,
        headers: {
          'Retry-After': { description: 'Seconds: `1`.', schema: Type.String(), required: true },
        },
      },
    },
    async handler(_request, reply) {
      const results = await checks()
      const ready = Object.values(results).every(Boolean)
      const named = Object.fromEntries(
        Object.entries(results).map(([name, ok]) => [name, ok ? 'ok' : 'unavailable']),
      )
      if (!ready) reply.code(503).header('retry-after', '1')
      return { status: ready ? 'ok' : 'unavailable', checks: named }
    },
  }
}

export async function healthSurface(instance: FastifyInstance, { route }: { route: RouteSpec }) {
  registerRoutes(instance, [route])
}
