import { MemoryItems, publishes } from '../../store/memory-collection.js'
import type { Precondition } from '../../store/precondition.js'
import type { CompactTugas } from './schemas.js'
import type { CompactStore } from './store.js'

/** Surface B's tasks in process memory. */
export class MemoryCompactStore extends MemoryItems<CompactTugas> implements CompactStore {
  async create(judul: string) {
    const published = publishes<CompactTugas>(this.publish, 'api-tugas.created')
    return this.items.add((id) => ({ id, judul, selesai: false }), published)
  }

  async replace(
    id: number,
    fields: Omit<CompactTugas, 'id'>,
    precondition?: Precondition<CompactTugas>,
  ) {
    const published = publishes<CompactTugas>(this.publish, 'api-tugas.replaced')
    return this.items.change(id, (current) => ({ ...current, ...fields }), precondition, published)
  }

  async delete(id: number, precondition?: Precondition<CompactTugas>) {
    return this.items.delete(id, precondition, publishes(this.publish, 'api-tugas.deleted'))
  }
}
