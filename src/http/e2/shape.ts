import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { ErrorShape } from '../errors.js'
import { ApiError } from '../errors.js'
import { KEY_RULE } from '../idempotency.js'

/** Every field rule a body broke, each field with its reason: 400 `VALIDATION_ERROR`. */
export function validationError(violations: Record<string, string>): ApiError {
  return new ApiError(400, 'VALIDATION_ERROR', 'request body fails validation', violations)
}

export const invalidJson = () => new ApiError(400, 'INVALID_JSON', 'request body is not valid JSON')

/**
 * The body of a JSON request. A JSON Content-Type with nothing after it leaves the body
 * undefined (Fastify runs no parser on an empty body): that is not valid JSON either.
 */
export function sentBody(request: FastifyRequest): unknown {
  if (request.body === undefined) throw invalidJson()
  return request.body
}

/**
 * The E2 error body, for response serialization and the published description: the map is
 * `details` (D, the feed, webhooks, the rate limiter) or `fields` (the priority todo).
 */
export function e2Body(mapName: 'details' | 'fields') {
  return Type.Object(
    {
      error: Type.Object({
        code: Type.String(),
        message: Type.String(),
        [mapName]: Type.Optional(Type.Record(Type.String(), Type.String())),
      }),
    },
    {
      description: `E2 error: a stable \`code\`, a message, and per-field \`${mapName}\` where useful.`,
    },
  )
}

export const E2Body = e2Body('details')
export const E2FieldsBody = e2Body('fields')

/**
 * Error shape E2: `{ error: { code, message, details? } }` (D, the feed, webhooks, the rate
 * limiter), or with the map named `fields` (the priority todo). Map keys come out in
 * alphabetical order.
 */
export function e2Shape(mapName: 'details' | 'fields', bodyLimit?: number): ErrorShape {
  return {
    fromFramework(failure) {
      switch (failure.kind) {
        case 'malformed-json':
          return invalidJson()
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
        case 'unavailable':
          return new ApiError(503, 'SERVICE_UNAVAILABLE', 'service is temporarily unavailable')
        case 'internal':
          return new ApiError(500, 'INTERNAL_ERROR', 'internal server error')
        case 'idempotency-key-invalid':
          return new ApiError(400, 'VALIDATION_ERROR', 'request header fails validation', {
            'Idempotency-Key': `must be ${KEY_RULE}`,
          })
        case 'idempotency-key-reused':
          return new ApiError(
            422,
            'IDEMPOTENCY_KEY_REUSED',
            'Idempotency-Key was used for another request',
          )
        case 'idempotency-key-in-use':
          return new ApiError(
            409,
            'IDEMPOTENCY_KEY_IN_USE',
            'a request with this Idempotency-Key is still being processed',
          )
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
