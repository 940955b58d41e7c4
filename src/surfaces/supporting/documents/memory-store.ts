import { MemoryItems, publishes } from '../../../store/memory-collection.js'
import type { Precondition } from '../../../store/precondition.js'
import type { Dokumen } from './schemas.js'
import type { DocumentStore } from './store.js'

/** Documents in process memory. */
export class MemoryDocumentStore extends MemoryItems<Dokumen> implements DocumentStore {
  override async list({ owner }: { owner?: string } = {}) {
    const all = this.items.list()
    return owner === undefined ? all : all.filter((document) => document.pemilik === owner)
  }

  async create(fields: Omit<Dokumen, 'id'>) {
    return this.items.add((id) => ({ id, ...fields }))
  }

  async delete(id: number, precondition?: Precondition<Dokumen>) {
    const owner = (document: Dokumen) => document.pemilik
    return this.items.delete(
      id,
      precondition,
      publishes(this.publish, 'dokumen.deleted', { owner }),
    )
  }
}
