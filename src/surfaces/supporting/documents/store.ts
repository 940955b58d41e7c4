import { MemoryCollection } from '../../../store/memory-collection.js'
import type { Dokumen } from './schemas.js'

/** Owner-scoped documents. */
export interface DocumentStore {
  /** All documents, or only those whose `pemilik` is `owner`. */
  list(filter?: { owner?: string }): Promise<Dokumen[]>
  get(id: number): Promise<Dokumen | undefined>
  delete(id: number): Promise<boolean>
}

export class MemoryDocumentStore implements DocumentStore {
  readonly #documents = new MemoryCollection<Dokumen>()

  constructor(seed: Omit<Dokumen, 'id'>[]) {
    for (const document of seed) this.#documents.add((id) => ({ id, ...document }))
  }

  async list({ owner }: { owner?: string } = {}) {
    const all = this.#documents.list()
    return owner === undefined ? all : all.filter((document) => document.pemilik === owner)
  }

  async get(id: number) {
    return this.#documents.get(id)
  }

  async delete(id: number) {
    return this.#documents.delete(id)
  }
}
