import { PRECONDITION_FAILED, type Precondition, type PreconditionFailed } from '../precondition.js'
import type { Queryable } from './database.js'

/**
 * A PostgreSQL store's guarded write. Without a precondition, `write` runs on `db` as it always
 * did (one statement, no transaction). With one, in one transaction: `lock` reads the item and
 * locks its row (`SELECT ... FOR UPDATE`: a concurrent guarded write of the same item waits there
 * until this transaction ends, then reads what it wrote), the precondition is evaluated on it,
 * and `write` runs only when it holds. When there is no item, `write` runs too and reports it
 * missing as it always does: existence is decided before the precondition.
 */
export function writeIfLocked<T, R>(
  db: Queryable,
  precondition: Precondition<T> | undefined,
  lock: (client: Queryable) => Promise<T | undefined>,
  write: (client: Queryable) => Promise<R>,
): Promise<R | PreconditionFailed> {
  if (precondition === undefined) return write(db)
  return db.transaction(async (client) => {
    const current = await lock(client)
    if (current !== undefined && !precondition(current)) return PRECONDITION_FAILED
    return write(client)
  })
}
