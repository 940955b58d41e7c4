import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify'
import { ServiceUnavailableError } from '../store/unavailable.js'
import { ignoreBodies, MalformedJsonError } from './json-body.js'
import { encapsulated } from './plugin.js'

/**
 * A failure a route answers on purpose. Each surface renders it in its own shape
 * (E1 `kode/pesan/detail`, E2 `code/message/details`, E3 a bare message...).
 */
export class ApiError extends Error {
  override name = 'ApiError'
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message)
  }
}

/** `found`, or `error()` thrown when the store found nothing. */
export function orThrow<T>(found: T | undefined, error: () => Error): T {
  if (found === undefined) throw error()
  return found
}

/** Failures raised by the framework or the body reader rather than by a route's own rules. */
export type FrameworkFailure =
  | { kind: 'malformed-json' }
  | { kind: 'body-too-large'; limit: number }
  | { kind: 'unsupported-media-type' }
  | { kind: 'not-found' }
  | { kind: 'client-error'; statusCode: number }
  | { kind: 'unavailable' }
  | { kind: 'internal' }
  /**
   * `Idempotency-Key` is not 1 to 255 visible ASCII characters (docs/decisions.md#safe-retries).
   */
  | { kind: 'idempotency-key-invalid' }
  /** The first request with this `Idempotency-Key` is still in flight. */
  | { kind: 'idempotency-key-in-use' }
  /** This `Idempotency-Key` came first with another body. */
  | { kind: 'idempotency-key-reused' }

/**
 * A failure raised on purpose by machinery every surface shares (hooks), which the surface whose
 * route it is renders in its own shape, as it renders the framework's.
 */
export class SharedFailure extends Error {
  override name = 'SharedFailure'
  constructor(readonly failure: FrameworkFailure) {
    super(failure.kind)
  }
}

/** How one surface words and renders its errors. */
export interface ErrorShape {
  /** The surface's own error for a failure it did not raise itself. */
  fromFramework(failure: FrameworkFailure): ApiError
  /** Writes the error to the reply, status, headers and body, in the surface's shape. */
  send(reply: FastifyReply, error: ApiError): FastifyReply
}

function classify(error: FastifyError | Error, bodyLimit: number): FrameworkFailure {
  if (error instanceof MalformedJsonError) return { kind: 'malformed-json' }
  if (error instanceof SharedFailure) return error.failure
  if (error instanceof ServiceUnavailableError) return { kind: 'unavailable' }
  const { code, statusCode } = error as Partial<FastifyError>
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE' || statusCode === 413) {
    return { kind: 'body-too-large', limit: bodyLimit }
  }
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || statusCode === 415) {
    return { kind: 'unsupported-media-type' }
  }
  // An empty JSON body, a bad Content-Length: the body could not be read as JSON.
  if (code?.startsWith('FST_ERR_CTP_') && statusCode === 400) return { kind: 'malformed-json' }
  if (statusCode !== undefined && statusCode >= 400 && statusCode < 500) {
    return { kind: 'client-error', statusCode }
  }
  return { kind: 'internal' }
}

/**
 * Gives an encapsulated Fastify context the error handler and (unless `notFound` is false, for
 * surfaces whose unknown paths fall through to the service's 404) the not-found handler of one
 * surface, so that every error it returns, the framework's included, has that surface's shape.
 * Internal failures are logged in full and answered with the surface's generic message.
 */
export function useErrorShape(
  instance: FastifyInstance,
  shape: ErrorShape,
  options: { notFound?: boolean } = {},
): void {
  const bodyLimit = instance.initialConfig.bodyLimit ?? 1024 * 1024
  instance.setErrorHandler((error: FastifyError | Error, request, reply) => {
    if (error instanceof ApiError) return shape.send(reply, error)
    const failure = classify(error, bodyLimit)
    if (failure.kind === 'internal') {
      request.log.error({ err: error }, 'unexpected failure')
    } else if (failure.kind === 'unavailable') {
      // Nothing was done; the client may try again in a second
      // (docs/decisions.md#unavailable-backing-services).
      reply.header('retry-after', '1')
      request.log.warn({ err: error }, 'backing service unavailable')
    } else {
      // Debug only: the request's one info line already says which status it got.
      request.log.debug({ err: error }, 'request rejected')
    }
    return shape.send(reply, shape.fromFramework(failure))
  })
  if (options.notFound !== false) {
    // In a child context that ignores bodies: no body makes an unknown path a 415 or a 413.
    instance.register(
      encapsulated('not found', async (fallback) => {
        ignoreBodies(fallback, { notFound: true })
        fallback.setNotFoundHandler((_request, reply) =>
          shape.send(reply, shape.fromFramework({ kind: 'not-found' })),
        )
      }),
    )
  }
}
