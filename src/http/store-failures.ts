import { Type } from 'typebox'
import type { ApiError, ErrorShape } from './errors.js'
import type { ResponseSpec } from './route-spec.js'

/**
 * The failures of a route that uses a store, in `shape`: 500 for an unexpected one, 503 with
 * `Retry-After` while a backing service cannot be reached
 * (docs/decisions.md#unavailable-backing-services). `answer` publishes the error `shape` gives,
 * under a description.
 */
export function storeFailures(
  shape: ErrorShape,
  answer: (description: string, error: ApiError) => ResponseSpec,
): Record<500 | 503, ResponseSpec> {
  return {
    500: answer(
      'Unexpected failure; the cause is in the log only',
      shape.fromFramework({ kind: 'internal' }),
    ),
    503: {
      ...answer(
        'A backing service the operation uses (PostgreSQL with `DATABASE_URL`, Redis with ' +
          '`REDIS_URL`) cannot be reached; nothing was done, try again',
        shape.fromFramework({ kind: 'unavailable' }),
      ),
      headers: {
        'Retry-After': { description: 'Seconds: `1`.', schema: Type.String(), required: true },
      },
    },
  }
}
