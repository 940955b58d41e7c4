import type { Precondition, PreconditionFailed } from './precondition.js'

/**
 * The store of one kind of item kept under ids from 1, created from `New` and replaced with
 * `Fields`. `replace` and `delete` take an optional precondition (If-Match) on the item as it
 * is, evaluated in the same step: when the item exists and fails it, nothing changes and the
 * answer is PRECONDITION_FAILED.
 */
export interface ItemStore<T, New, Fields> {
  list(): Promise<T[]>
  get(id: number): Promise<T | undefined>
  create(fields: New): Promise<T>
  /** Undefined when the item does not exist. */
  replace(
    id: number,
    fields: Fields,
    precondition?: Precondition<T>,
  ): Promise<T | undefined | PreconditionFailed>
  delete(id: number, precondition?: Precondition<T>): Promise<boolean | PreconditionFailed>
}
