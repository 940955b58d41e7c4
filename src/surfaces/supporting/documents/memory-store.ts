import { MemoryCollection } from '../../../store/memory-collection.js'
import type { Precondition } from '../../../store/precondition.js'
import type { Dokumen } from './schemas.js'
import type { DocumentStore } from './store.js'

/** Documents in process memory. */
export class MemoryDocumentStore implements DocumentStore {
  readonly #documents = new MemoryCollection<Dokumen>()

  async list({ owner }: { owner?: string } = {}) {
    const all = this.#documents.list()
    return owner === undefined ? all : all.filter((document) => document.pemilik === owner)
  }

  async get(id: number) {
    return this.#documents.get(id)
  }

  async create(fields: Omit<Dokumen, 'id'>) {
    return this.#documents.add((id) => ({ id, ...fields }))
  }

  async delete(id: number, precondition?: Precondition<Dokumen>) {
    return this.#documents.delete(id, precondition)
  }
}
