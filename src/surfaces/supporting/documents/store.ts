import type { Precondition, PreconditionFailed } from '../../../store/precondition.js'
import type { Dokumen } from './schemas.js'

/** Owner-scoped documents; `create` loads the seed (there is no create over HTTP). */
export interface DocumentStore {
  /** All documents, or only those whose `pemilik` is `owner`, in ascending id order. */
  list(filter?: { owner?: string }): Promise<Dokumen[]>
  get(id: number): Promise<Dokumen | undefined>
  create(fields: Omit<Dokumen, 'id'>): Promise<Dokumen>
  /**
   * False when the document did not exist. With a precondition (If-Match) on the document as it
   * is, evaluated in the same step: when it exists and fails it, nothing is deleted and the
   * answer is PRECONDITION_FAILED.
   */
  delete(id: number, precondition?: Precondition<Dokumen>): Promise<boolean | PreconditionFailed>
}
