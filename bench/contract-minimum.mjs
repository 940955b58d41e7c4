// What every answer of the contract needs per request, and nothing else, for the bench's
// references (fastify-reference.mjs, pg-reference.mjs): a logger writing one line per request
// at info (none at warn), an X-Request-Id (the client's or a fresh UUID), the nosniff header
// every answer carries, and the strong ETag (SHA-256 of the body) of a task's answer. What the
// service costs beyond a reference with these is its own.
import { hash, randomUUID } from 'node:crypto'
import { LogController } from 'fastify'

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** One log line per request, written when it is done, as the service's request log does. */
class OneLine extends LogController {
  incomingRequest() {}

  requestCompleted(_error, request, reply) {
    const { method, url } = request
    const responseTimeMs = Math.round(reply.elapsedTime * 1000) / 1000
    reply.log.info(
      { method, url, statusCode: reply.statusCode, responseTimeMs },
      'request completed',
    )
  }
}

/** Fastify's options: the logger at `level`, the request id as the service takes it. */
export function contractOptions(level) {
  return {
    logger: { level },
    logController: new OneLine(),
    requestIdHeader: false,
    genReqId(request) {
      const sent = request.headers['x-request-id']
      return typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID()
    },
  }
}

/** The headers of every answer. */
export function addContractHooks(app) {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    reply.header('x-content-type-options', 'nosniff')
    done()
  })
}

/** `value` serialized by `schema` and sent with its strong ETag. */
export function sendTagged(reply, schema, value) {
  const text = reply.compileSerializationSchema(schema)(value)
  const tag = `"${hash('sha256', text, 'base64url').slice(0, 22)}"`
  return reply.header('etag', tag).type('application/json; charset=utf-8').send(text)
}
