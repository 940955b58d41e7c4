import type { FastifyInstance } from 'fastify'
import { useErrorShape } from '../../http/errors.js'
import { acceptJsonBodies } from '../../http/json-body.js'
import { registerRoutes } from '../../http/route-spec.js'
import { e1 } from './errors.js'
import { tugasRoutes } from './routes.js'
import type { TugasStore } from './store.js'

export interface TugasSurfaceOptions {
  store: TugasStore
  batasDefault: number
  /** Every prefix surface A is served under, e.g. `['', '/v1']`; all share one store. */
  bases: string[]
}

/**
 * Surface A: `/tugas`, its comments, and the same under `/v1`. Not-found answers come from the
 * root context, which also speaks E1 (an unknown path anywhere is surface A's 404).
 */
export async function tugasSurface(instance: FastifyInstance, options: TugasSurfaceOptions) {
  acceptJsonBodies(instance)
  useErrorShape(instance, e1, { notFound: false })
  for (const base of options.bases) {
    registerRoutes(instance, tugasRoutes({ ...options, base }), base)
  }
}
