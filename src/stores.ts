import type { Seed } from './seed.js'
import { MemoryIdempotencyStore } from './store/idempotency/memory-store.js'
import { PgIdempotencyStore } from './store/idempotency/pg-store.js'
import type { IdempotencyStore } from './store/idempotency/store.js'
import { Database, type Queryable } from './store/postgres/database.js'
import { MemoryCompactStore } from './surfaces/compact/memory-store.js'
import { PgCompactStore } from './surfaces/compact/pg-store.js'
import type { CompactStore } from './surfaces/compact/store.js'
import { MemoryCredentialStore } from './surfaces/supporting/access/memory-store.js'
import { PgCredentialStore } from './surfaces/supporting/access/pg-store.js'
import type { CredentialStore } from './surfaces/supporting/access/store.js'
import { MemoryDocumentStore } from './surfaces/supporting/documents/memory-store.js'
import { PgDocumentStore } from './surfaces/supporting/documents/pg-store.js'
import type { DocumentStore } from './surfaces/supporting/documents/store.js'
import { MemoryOrderStore } from './surfaces/supporting/orders/memory-store.js'
import { PgOrderStore } from './surfaces/supporting/orders/pg-store.js'
import type { OrderStore } from './surfaces/supporting/orders/store.js'
import { MemoryProductStore } from './surfaces/supporting/products/memory-store.js'
import { PgProductStore } from './surfaces/supporting/products/pg-store.js'
import type { ProductStore } from './surfaces/supporting/products/store.js'
import { MemoryUserStore } from './surfaces/supporting/users/memory-store.js'
import { PgUserStore } from './surfaces/supporting/users/pg-store.js'
import type { UserStore } from './surfaces/supporting/users/store.js'
import { MemoryTodoStore } from './surfaces/todos/memory-store.js'
import { PgTodoStore } from './surfaces/todos/pg-store.js'
import type { TodoStore } from './surfaces/todos/store.js'
import { MemoryTugasStore } from './surfaces/tugas/memory-store.js'
import { Folder } from './surfaces/tugas/pg-buckets.js'
import { PgTugasStore } from './surfaces/tugas/pg-store.js'
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
  /**
   * The `Idempotency-Key`s of every surface's creates, kept beside the data
   * (docs/http.md#where-keys-are-kept).
   */
  idempotency: IdempotencyStore
}

/** Empty in-memory stores; `now` stamps `created_at` (todos, users). */
export function createMemoryStores(now: () => Date = () => new Date()): Stores {
  return {
    tugas: new MemoryTugasStore(),
    compact: new MemoryCompactStore(),
    todos: new MemoryTodoStore(now),
    users: new MemoryUserStore(now),
    orders: new MemoryOrderStore(),
    products: new MemoryProductStore(),
    documents: new MemoryDocumentStore(),
    credentials: new MemoryCredentialStore(),
    idempotency: new MemoryIdempotencyStore(),
  }
}

/**
 * Stores over PostgreSQL: the pool, or one transaction's client (the seed). Over the pool, the
 * task list's counted buckets are kept up in the background (Folder), on a connection of its
 * own.
 */
export function createPostgresStores(db: Queryable, now: () => Date = () => new Date()): Stores {
  return {
    tugas: new PgTugasStore(db, db instanceof Database ? new Folder(db.background()) : undefined),
    compact: new PgCompactStore(db),
    todos: new PgTodoStore(db, now),
    users: new PgUserStore(db, now),
    orders: new PgOrderStore(db),
    products: new PgProductStore(db),
    documents: new PgDocumentStore(db),
    credentials: new PgCredentialStore(db),
    idempotency: new PgIdempotencyStore(db),
  }
}

/**
 * Puts the seed into empty stores through their interfaces, in array order, so ids are assigned
 * from 1 whichever store holds them. Surfaces B and C, users and orders have no seed key.
 */
export async function loadSeed(stores: Stores, seed: Seed): Promise<void> {
  for (const [secret, identity] of Object.entries(seed.credentials)) {
    await stores.credentials.add(secret, identity)
  }
  await stores.tugas.createMany(seed.tugas)
  for (const { tugasId, isi } of seed.komentar) await stores.tugas.addComment(tugasId, isi)
  for (const product of seed.produk) await stores.products.create(product)
  for (const document of seed.dokumen) await stores.documents.create(document)
}

/** In-memory stores holding `seed`. */
export async function seededMemoryStores(seed: Seed, now?: () => Date): Promise<Stores> {
  const stores = createMemoryStores(now)
  await loadSeed(stores, seed)
  return stores
}
