import type { Precondition, PreconditionFailed } from '../../store/precondition.js'
import type { SortField } from './list-query.js'
import type { TugasInput } from './rules.js'
import type { Komentar, Tugas, TugasStatus } from './schemas.js'

export interface TugasQuery {
  status: TugasStatus | undefined
  sort: SortField
  descending: boolean
  offset: number
  limit: number
}

export interface TugasSlice {
  items: Tugas[]
  /** Count after filtering, before slicing. */
  total: number
}

/**
 * Surface A's data. Every method is one atomic step, so a route never checks and then changes
 * in two calls (a comment can never land on a task deleted in between). Returned objects are
 * snapshots: changing one changes nothing stored. The writes of one task take an optional
 * precondition on the task as it is (If-Match), evaluated in the same step: when the task exists
 * and fails it, nothing changes and the answer is PRECONDITION_FAILED.
 */
export interface TugasStore {
  /** Every task in ascending id order. */
  all(): Promise<Tugas[]>
  /** Filter by status, sort (ties in ascending id order in both directions), then slice. */
  query(query: TugasQuery): Promise<TugasSlice>
  get(id: number): Promise<Tugas | undefined>
  create(input: TugasInput): Promise<Tugas>
  /**
   * Creates each in the order given, as `create` would one by one, in one step, publishing no
   * event (the seed's).
   */
  createMany(inputs: TugasInput[]): Promise<Tugas[]>
  /** Undefined when the task does not exist. */
  replace(
    id: number,
    input: TugasInput,
    precondition?: Precondition<Tugas>,
  ): Promise<Tugas | undefined | PreconditionFailed>
  update(
    id: number,
    changes: Partial<TugasInput>,
    precondition?: Precondition<Tugas>,
  ): Promise<Tugas | undefined | PreconditionFailed>
  /** Also deletes the task's comments. False when the task did not exist. */
  delete(id: number, precondition?: Precondition<Tugas>): Promise<boolean | PreconditionFailed>
  /** Undefined when the task does not exist. */
  comments(tugasId: number): Promise<Komentar[] | undefined>
  comment(tugasId: number, id: number): Promise<Komentar | undefined>
  addComment(tugasId: number, isi: string): Promise<Komentar | undefined>
}
