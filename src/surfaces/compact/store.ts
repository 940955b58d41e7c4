import { MemoryCollection } from '../../store/memory-collection.js'
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

export class MemoryCompactStore implements CompactStore {
  readonly #tasks = new MemoryCollection<CompactTugas>()

  async list() {
    return this.#tasks.list()
  }

  async get(id: number) {
    return this.#tasks.get(id)
  }

  async create(judul: string) {
    return this.#tasks.add((id) => ({ id, judul, selesai: false }))
  }

  async replace(id: number, fields: Omit<CompactTugas, 'id'>) {
    return this.#tasks.change(id, (current) => ({ ...current, ...fields }))
  }

  async delete(id: number) {
    return this.#tasks.delete(id)
  }
}
