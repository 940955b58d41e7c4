/**
 * A backing service (PostgreSQL, Redis) could not be reached, or did not answer in time. Every
 * surface answers it 503 with `Retry-After: 1` in its own shape
 * (docs/decisions.md#unavailable-backing-services); nothing was written, or the write is undone by
 * the service.
 */
export class ServiceUnavailableError extends Error {
  override name = 'ServiceUnavailableError'
  constructor(
    /** Which service: `postgres`, `redis`. */
    readonly service: string,
    options?: ErrorOptions,
  ) {
    super(`${service} is unavailable`, options)
  }
}
