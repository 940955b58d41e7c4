import type { FastifyInstance } from 'fastify'
import type { TugasVersioning } from '../../config.js'
import { useErrorShape } from '../../http/errors.js'
import { acceptJsonBodies } from '../../http/json-body.js'
import { type RouteSpec, registerRoutes } from '../../http/route-spec.js'
import { e1 } from './errors.js'
import { acceptList, part1List, unversionedList, v1List, v2List } from './list-routes.js'
import { tugasRoutes } from './routes.js'
import type { TugasStore } from './store.js'

export interface TugasOptions {
  store: TugasStore
  batasDefault: number
  versioning: TugasVersioning
}

/** Surface A's group in the document: every task operation, the versioned lists included. */
export const TUGAS_TAG = {
  name: 'A: tasks',
  description:
    'Surface A (`/v1`, also served without the prefix): tasks `{ id, title, status }` and their ' +
    'comments, with the task list in the form `TUGAS_VERSIONING` chooses and its version 2 at ' +
    '`/v2/tugas`. Every error is E1 `{ "error": { "kode", "pesan" } }`; any path or method ' +
    'no surface serves is 404 `TIDAK_ADA`.',
}

const tagged = (routes: RouteSpec[]): RouteSpec[] =>
  routes.map((route) => ({ ...route, tags: [TUGAS_TAG.name] }))

/** What surface A serves: the routes at each base, and which of them the document describes. */
export interface TugasRouteTable {
  /** Routes by the prefix they are served under. */
  served: { base: string; routes: RouteSpec[] }[]
  /** Described relative to the document's server `/v1`. */
  documented: RouteSpec[]
  /** Described at their own absolute paths (`/v2/tugas`). */
  documentedAtRoot: RouteSpec[]
}

/**
 * Surface A at `''` and `/v1` (docs/decisions.md#surface-a-under-v1) with `GET /tugas` in the form
 * `versioning` asks for, plus `GET /v2/tugas` in every mode:
 * - `none`: the task list of docs/tugas.md#the-list at both bases;
 * - `path`: `GET /tugas` is the 404 pointing to the versions, `GET /v1/tugas` the v1 form;
 * - `header`: `GET /tugas` (and its `/v1` alias, same handler) chooses by `Accept`.
 */
export function tugasRouteTable({
  store,
  batasDefault,
  versioning,
}: TugasOptions): TugasRouteTable {
  const listAt = (base: string): RouteSpec => {
    switch (versioning) {
      case 'none':
        return part1List(store, batasDefault)
      case 'path':
        // Only /v1/tugas answers the v1 form, so the document says so for this operation.
        return base === '' ? unversionedList() : { ...v1List(store), servers: ['/v1'] }
      case 'header':
        return acceptList(store)
    }
  }
  const atV1 = tugasRoutes({ store, base: '/v1', list: listAt('/v1') })
  const v2 = [v2List(store)]
  return {
    served: [
      { base: '', routes: [...tugasRoutes({ store, base: '', list: listAt('') }), ...v2] },
      { base: '/v1', routes: atV1 },
    ],
    documented: tagged(atV1),
    documentedAtRoot: tagged(v2),
  }
}

/**
 * Surface A's plugin. Not-found answers come from the root context, which also speaks E1 (an
 * unknown path anywhere is surface A's 404).
 */
export async function tugasSurface(
  instance: FastifyInstance,
  { table }: { table: TugasRouteTable },
) {
  acceptJsonBodies(instance)
  useErrorShape(instance, e1, { notFound: false })
  for (const { base, routes } of table.served) {
    registerRoutes(instance, routes, { base })
  }
}
