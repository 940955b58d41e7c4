import { MemoryItems } from '../../store/memory-collection.js'
import type { Precondition } from '../../store/precondition.js'
import type { CompactTugas } from './schemas.js'
import type { CompactStore } from './store.js'

/** Surface B's tasks in process memory. */
export class MemoryCompactStore extends MemoryItems<CompactTugas> implements CompactStore {
  async create(judul: string) {
    return this.items.add((id) => ({ id, judul, selesai: false }))
  }

  async replace(
    id: number,
    fields: Omit<CompactTugas, 'id'>,
    precondition?: Precondition<CompactTugas>,
  ) {
    return this.items.change(id, (current) => ({ ...current, ...fields }), precondition)
  }

  async delete(id: number, precondition?: Precondition<CompactTugas>) {
    return this.items.delete(id, precondition)
  }
}
