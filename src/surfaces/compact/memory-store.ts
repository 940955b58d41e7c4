import { MemoryCollection } from '../../store/memory-collection.js'
import type { Precondition } from '../../store/precondition.js'
import type { CompactTugas } from './schemas.js'
import type { CompactStore } from './store.js'

/** Surface B's tasks in process memory. */
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

  async replace(
    id: number,
    fields: Omit<CompactTugas, 'id'>,
    precondition?: Precondition<CompactTugas>,
  ) {
    return this.#tasks.change(id, (current) => ({ ...current, ...fields }), precondition)
  }

  async delete(id: number, precondition?: Precondition<CompactTugas>) {
    return this.#tasks.delete(id, precondition)
  }
}
