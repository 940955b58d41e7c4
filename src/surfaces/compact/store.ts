import type { Precondition, PreconditionFailed } from '../../store/precondition.js'
import type { CompactTugas } from './schemas.js'

/**
 * Surface B's data: its own tasks, separate from surface A's. `replace` and `delete` take an
 * optional precondition (If-Match) on the task as it is, evaluated in the same step: when the
 * task exists and fails it, nothing changes and the answer is PRECONDITION_FAILED.
 */
export interface CompactStore {
  list(): Promise<CompactTugas[]>
  get(id: number): Promise<CompactTugas | undefined>
  create(judul: string): Promise<CompactTugas>
  /** Undefined when the task does not exist. */
  replace(
    id: number,
    fields: Omit<CompactTugas, 'id'>,
    precondition?: Precondition<CompactTugas>,
  ): Promise<CompactTugas | undefined | PreconditionFailed>
  delete(
    id: number,
    precondition?: Precondition<CompactTugas>,
  ): Promise<boolean | PreconditionFailed>
}
