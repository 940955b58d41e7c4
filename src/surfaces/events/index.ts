import type { FastifyInstance } from 'fastify'
import { serveWithCredentials } from '../../access/surface.js'
import { notServed } from '../../http/e2/errors.js'
import type { RouteSpec } from '../../http/route-spec.js'
import type { OpenStreams } from './stream.js'

/** The change feed's group in the document. */
export const EVENTS_TAG = {
  name: 'Events',
  description:
    'The change feed (`GET /events`): every write of every surface as a CloudEvents event, ' +
    'over Server-Sent Events, in one order across every process, with resume. Errors are E2.',
}

/** The routes of the change feed as the document lists them. */
export function eventOperations(routes: RouteSpec[]): RouteSpec[] {
  return routes.map((route) => ({
    ...route,
    tags: [EVENTS_TAG.name],
    servers: ['/'],
    otherMethods: notServed,
  }))
}

/**
 * The change feed, served as every surface that takes credentials is: E2 errors, 405 with
 * `Allow` for other methods (its one route reads no body). Its streams never end by themselves,
 * so they are closed as soon as the server starts closing: the drain of the requests in flight
 * is not held up by them.
 */
export async function eventsSurface(
  instance: FastifyInstance,
  { routes, streams }: { routes: RouteSpec[]; streams: OpenStreams },
) {
  serveWithCredentials(instance, routes)
  instance.addHook('preClose', (done) => {
    streams.closeAll()
    done()
  })
}
