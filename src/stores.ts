import type { Seed } from './seed.js'
import { type CompactStore, MemoryCompactStore } from './surfaces/compact/store.js'
import {
  type CredentialStore,
  MemoryCredentialStore,
} from './surfaces/supporting/access/credentials.js'
import { type DocumentStore, MemoryDocumentStore } from './surfaces/supporting/documents/store.js'
import { MemoryOrderStore, type OrderStore } from './surfaces/supporting/orders/store.js'
import { MemoryProductStore, type ProductStore } from './surfaces/supporting/products/store.js'
import { MemoryUserStore, type UserStore } from './surfaces/supporting/users/store.js'
import { MemoryTodoStore, type TodoStore } from './surfaces/todos/store.js'
import { MemoryTugasStore } from './surfaces/tugas/memory-store.js'
import type { TugasStore } from './surfaces/tugas/store.js'

/** Every surface's data, behind its store interface. */
export interface Stores {
  tugas: TugasStore
  compact: CompactStore
  todos: TodoStore
  users: UserStore
  orders: OrderStore
  products: ProductStore
  documents: DocumentStore
  credentials: CredentialStore
}

/**
 * In-memory stores holding the seed; ids are assigned from 1 in array order. Surfaces B and C,
 * users and orders have no seed key and start empty.
 */
export async function createMemoryStores(seed: Seed): Promise<Stores> {
  const tugas = new MemoryTugasStore()
  for (const task of seed.tugas) await tugas.create(task)
  for (const komentar of seed.komentar) await tugas.addComment(komentar.tugasId, komentar.isi)
  return {
    tugas,
    compact: new MemoryCompactStore(),
    todos: new MemoryTodoStore(),
    users: new MemoryUserStore(),
    orders: new MemoryOrderStore(),
    products: new MemoryProductStore(seed.produk),
    documents: new MemoryDocumentStore(seed.dokumen),
    credentials: new MemoryCredentialStore(seed.credentials),
  }
}
