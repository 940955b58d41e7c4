import type { onRequestHookHandler } from 'fastify'
import type { ErrorShape } from './errors.js'
import { JSON_CONTENT_TYPE } from './json-body.js'

/**
 * A route hook answering the surface's 415 unless the Content-Type starts with
 * `application/json`: before the body is read, and also when no body is sent at all (Fastify
 * runs no parser then, so the parser's media type alone would let the request through).
 */
export function requireJsonContentType(shape: ErrorShape): onRequestHookHandler {
  return (request, _reply, done) => {
    if (JSON_CONTENT_TYPE.test(request.headers['content-type'] ?? '')) done()
    else done(shape.fromFramework({ kind: 'unsupported-media-type' }))
  }
}
