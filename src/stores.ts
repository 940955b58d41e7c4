import { MemoryCredentialStore } from './access/memory-store.js'
import { PgCredentialStore } from './access/pg-store.js'
import type { CredentialStore } from './access/store.js'
import { defaults } from './config.js'
import { MemoryEventLog } from './events/memory-store.js'
import type { EventRenderers } from './events/pg-render.js'
import type { PgEventLog } from './events/pg-store.js'
import type { EventLog } from './events/store.js'
import type { Seed } from './seed.js'
import type { Publish } from './store/events.js'
import { MemoryIdempotencyStore } from './store/idempotency/memory-store.js'
import { PgIdempotencyStore } from './store/idempotency/pg-store.js'
import type { IdempotencyStore } from './store/idempotency/store.js'
import { Database, type Queryable } from './store/postgres/database.js'
import type { Published } from './store/postgres/outbox.js'
import { MemoryCompactStore } from './surfaces/compact/memory-store.js'
import { tasks as compactTasks, PgCompactStore } from './surfaces/compact/pg-store.js'
import type { CompactStore } from './surfaces/compact/store.js'
import { MemoryDocumentStore } from './surfaces/supporting/documents/memory-store.js'
import { PgDocumentStore } from './surfaces/supporting/documents/pg-store.js'
import type { DocumentStore } from './surfaces/supporting/documents/store.js'
import { MemoryOrderStore } from './surfaces/supporting/orders/memory-store.js'
import { orders, PgOrderStore } from './surfaces/supporting/orders/pg-store.js'
import type { OrderStore } from './surfaces/supporting/orders/store.js'
import { MemoryProductStore } from './surfaces/supporting/products/memory-store.js'
import { PgProductStore } from './surfaces/supporting/products/pg-store.js'
import type { ProductStore } from './surfaces/supporting/products/store.js'
import { MemoryUserStore } from './surfaces/supporting/users/memory-store.js'
import { PgUserStore, users } from './surfaces/supporting/users/pg-store.js'
import type { UserStore } from './surfaces/supporting/users/store.js'
import { MemoryTodoStore } from './surfaces/todos/memory-store.js'
import { PgTodoStore, todos } from './surfaces/todos/pg-store.js'
import type { TodoStore } from './surfaces/todos/store.js'
import { MemoryTugasStore } from './surfaces/tugas/memory-store.js'
import { Folder } from './surfaces/tugas/pg-buckets.js'
import { komentar, PgTugasStore, task } from './surfaces/tugas/pg-store.js'
import type { TugasStore } from './surfaces/tugas/store.js'
import { MemoryWebhookStore } from './surfaces/webhooks/memory-store.js'
import { PgWebhookStore } from './surfaces/webhooks/pg-store.js'
import type { WebhookStore } from './surfaces/webhooks/store.js'

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
  /** The change feed: the event of every write above (docs/events.md). */
  events: EventLog
  /** Subscriptions to the change feed's events, and their deliveries (docs/webhooks.md). */
  webhooks: WebhookStore
}

/** The data stores alone, without the change feed: what the seed is loaded through. */
export type DataStores = Omit<Stores, 'events' | 'webhooks'>

function memoryDataStores(now: () => Date, publish: Publish): DataStores {
  return {
    tugas: new MemoryTugasStore(publish),
    compact: new MemoryCompactStore(publish),
    todos: new MemoryTodoStore(now, publish),
    users: new MemoryUserStore(now, publish),
    orders: new MemoryOrderStore(publish),
    products: new MemoryProductStore(),
    documents: new MemoryDocumentStore(publish),
    credentials: new MemoryCredentialStore(now),
    idempotency: new MemoryIdempotencyStore(),
  }
}

/**
 * Empty in-memory stores; `now` stamps `created_at` (todos, users); the `retain` most recent
 * events are kept.
 */
export function createMemoryStores(
  now: () => Date = () => new Date(),
  retain = defaults.eventsRetain,
): Stores {
  const events = new MemoryEventLog(retain)
  return { ...memoryDataStores(now, events.publish), ...memoryFeed(events, retain, now) }
}

/**
 * Stores over PostgreSQL: the pool, or one transaction's client (the seed). Over the pool, the
 * task list's counted buckets are kept up in the background (Folder), on a connection of its
 * own. With `published`, every write stores its event and calls it once committed.
 */
export function postgresDataStores(
  db: Queryable,
  now: () => Date = () => new Date(),
  published?: Published,
): DataStores {
  const folder = db instanceof Database ? new Folder(db.background('fold')) : undefined
  return {
    tugas: new PgTugasStore(db, folder, published),
    compact: new PgCompactStore(db, published),
    todos: new PgTodoStore(db, now, published),
    users: new PgUserStore(db, now, published),
    orders: new PgOrderStore(db, published),
    products: new PgProductStore(db),
    documents: new PgDocumentStore(db, published),
    credentials: new PgCredentialStore(db, now),
    idempotency: new PgIdempotencyStore(db),
  }
}

/** Stores over PostgreSQL whose writes publish into `events`. */
export function createPostgresStores(
  db: Queryable,
  events: PgEventLog,
  now: () => Date = () => new Date(),
): Stores {
  return { ...postgresDataStores(db, now, events.published), ...postgresFeed(db, events) }
}

/** The change feed of PostgreSQL stores and the webhooks whose deliveries its sequencer queues. */
export function postgresFeed(db: Queryable, events: PgEventLog) {
  return { events, webhooks: new PgWebhookStore(db, events, EVENT_RENDERERS) }
}

/** Each resource's event data from its written row (the PostgreSQL outbox). */
export const EVENT_RENDERERS: EventRenderers = {
  tugas: (row) => task(row as never),
  komentar: (row) => komentar(row as never),
  'api-tugas': (row) => compactTasks.fromJson(row),
  todos: (row) => todos.fromJson(row),
  users: (row) => users.fromJson(row),
  pesanan: (row) => orders.fromJson(row),
}

/**
 * Puts the seed into empty stores through their interfaces, in array order, so ids are assigned
 * from 1 whichever store holds them. Surfaces B and C, users and orders have no seed key.
 */
export async function loadSeed(stores: DataStores, seed: Seed): Promise<void> {
  for (const [secret, identity] of Object.entries(seed.credentials)) {
    await stores.credentials.add(secret, identity)
  }
  await stores.tugas.createMany(seed.tugas)
  for (const { tugasId, isi } of seed.komentar) await stores.tugas.addComment(tugasId, isi)
  for (const product of seed.produk) await stores.products.create(product)
  for (const document of seed.dokumen) await stores.documents.create(document)
}

/** In-memory stores holding `seed`, which publishes no event. */
export async function seededMemoryStores(
  seed: Seed,
  now: () => Date = () => new Date(),
  retain = defaults.eventsRetain,
): Promise<Stores> {
  const events = new MemoryEventLog(retain)
  let seeded = false
  const stores = memoryDataStores(now, (event) => {
    if (seeded) events.publish(event)
  })
  await loadSeed(stores, seed)
  seeded = true
  return { ...stores, ...memoryFeed(events, retain, now) }
}

/** The change feed of memory stores and the webhooks fed by it: as many pending as events kept. */
function memoryFeed(events: MemoryEventLog, retain: number, now: () => Date) {
  return { events, webhooks: new MemoryWebhookStore(events, retain, now) }
}
