import type { CompactTugas } from './schemas.js'

/** Surface B's data: its own tasks, separate from surface A's. */
export interface CompactStore {
  list(): Promise<CompactTugas[]>
  get(id: number): Promise<CompactTugas | undefined>
  create(judul: string): Promise<CompactTugas>
  /** Undefined when the task does not exist. */
  replace(id: number, fields: Omit<CompactTugas, 'id'>): Promise<CompactTugas | undefined>
  delete(id: number): Promise<boolean>
}
