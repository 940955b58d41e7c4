import type { Dokumen } from './schemas.js'

/** Owner-scoped documents; `create` loads the seed (there is no create over HTTP). */
export interface DocumentStore {
  /** All documents, or only those whose `pemilik` is `owner`, in ascending id order. */
  list(filter?: { owner?: string }): Promise<Dokumen[]>
  get(id: number): Promise<Dokumen | undefined>
  create(fields: Omit<Dokumen, 'id'>): Promise<Dokumen>
  delete(id: number): Promise<boolean>
}
