import type { FastifyPluginAsync, FastifyPluginOptions } from 'fastify'
import fp from 'fastify-plugin'

/**
 * `plugin`, registered in a context of its own as Fastify does by default, under `name`: a
 * plugin without one is looked for among every module loaded, twice per registration, which
 * was a tenth of what building an app cost (docs/development.md#where-the-time-goes).
 */
export function encapsulated<Options extends FastifyPluginOptions>(
  name: string,
  plugin: FastifyPluginAsync<Options>,
): FastifyPluginAsync<Options> {
  return fp(plugin, { name, encapsulate: true })
}
