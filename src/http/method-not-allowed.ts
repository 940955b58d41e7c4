import type { FastifyInstance, FastifyReply, HTTPMethods } from 'fastify'
import { withoutBodies } from './json-body.js'

/**
 * Answers every method not registered on `url` through `send`, with the `Allow` header set to
 * the registered ones (HEAD goes with GET, as Fastify serves it). Each surface words the 405 its
 * own way: empty (B), plain text (C), E2 (D).
 */
export function answerOtherMethods(
  instance: FastifyInstance,
  url: string,
  allowed: HTTPMethods[],
  send: (reply: FastifyReply) => FastifyReply,
): void {
  const allow = allowHeader(allowed)
  const served = new Set<string>(allow.split(', '))
  const others = instance.supportedMethods.filter((method) => !served.has(method))
  // Whatever body such a request carries, the answer is the 405.
  withoutBodies(instance, (bodyless) =>
    bodyless.route({
      method: others as HTTPMethods[],
      url,
      exposeHeadRoute: false,
      handler: async (_request, reply) => send(reply.code(405).header('allow', allow)),
    }),
  )
}

/** The `Allow` value for the methods registered on a path: HEAD goes with GET, as Fastify serves it. */
export function allowHeader(allowed: readonly string[]): string {
  const served = new Set<string>(allowed)
  if (served.has('GET')) served.add('HEAD')
  return [...served].sort().join(', ')
}
