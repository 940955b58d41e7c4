import type { ErrorShape } from './errors.js'
import { ApiError } from './errors.js'

/**
 * Error shape E2: `{ error: { code, message, details? } }` (surface D, the rate limiter), or with
 * the map named `fields` (the priority todo). Map keys come out in alphabetical order.
 */
export function e2Shape(mapName: 'details' | 'fields', bodyLimit?: number): ErrorShape {
  return {
    fromFramework(failure) {
      switch (failure.kind) {
        case 'malformed-json':
          return new ApiError(400, 'INVALID_JSON', 'request body is not valid JSON')
        case 'body-too-large':
          return new ApiError(
            413,
            'BODY_TOO_LARGE',
            `request body is larger than the limit of ${bodyLimit ?? failure.limit} bytes`,
          )
        case 'unsupported-media-type':
          return new ApiError(
            415,
            'UNSUPPORTED_MEDIA_TYPE',
            'Content-Type must be application/json',
          )
        case 'not-found':
          return new ApiError(404, 'NOT_FOUND', 'not found')
        case 'client-error':
          return new ApiError(failure.statusCode, 'BAD_REQUEST', 'request is not valid')
        case 'internal':
          return new ApiError(500, 'INTERNAL_ERROR', 'internal server error')
      }
    },
    send(reply, error) {
      const { statusCode, code, message, details } = error
      const map =
        details === undefined ? {} : { [mapName]: sortedKeys(details as Record<string, string>) }
      return reply.code(statusCode).send({ error: { code, message, ...map } })
    },
  }
}

function sortedKeys(map: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}
