/**
 * A condition on an item's current state that a write must find true (HTTP `If-Match`). The
 * store evaluates it inside the write's own atomic step, on the item as it is at that instant,
 * so no other write can come between the check and the change: of concurrent writes guarded by
 * the same condition, only those that still find it true change anything.
 */
export type Precondition<T> = (current: T) => boolean

/**
 * What a guarded write answers when the item exists but its precondition is false: nothing was
 * changed. A missing item is reported as the write reports it without a precondition (undefined,
 * false): existence is decided first.
 */
export const PRECONDITION_FAILED: unique symbol = Symbol('precondition failed')
export type PreconditionFailed = typeof PRECONDITION_FAILED

/**
 * A memory store's guarded write: `write()` unless `current` (the item now, undefined when there
 * is none) exists and fails `precondition`. Synchronous: nothing runs between the check and the
 * write.
 */
export function writeIf<T, R>(
  current: T | undefined,
  precondition: Precondition<T> | undefined,
  write: () => R,
): R | PreconditionFailed {
  if (current !== undefined && precondition !== undefined && !precondition(current)) {
    return PRECONDITION_FAILED
  }
  return write()
}
