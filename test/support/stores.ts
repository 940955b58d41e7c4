// The store implementations every store-contract suite runs against: memory and PostgreSQL.
import { after, describe } from 'node:test'
import { defaults } from '../../src/config.js'
import { PgEventLog } from '../../src/events/pg-store.js'
import { Database } from '../../src/store/postgres/database.js'
import {
  createMemoryStores,
  createPostgresStores,
  EVENT_RENDERERS,
  type Stores,
} from '../../src/stores.js'
import { migratedSchema, skipWithoutPostgres } from './postgres.js'

export interface StoreKind {
  name: 'memory' | 'postgres'
  /**
   * Empty stores (ids from 1) and their closing, for a caller that makes many; `retain`
   * events are kept.
   */
  open(now?: () => Date, retain?: number): Promise<{ stores: Stores; close(): Promise<void> }>
  /** Empty stores (ids from 1), closed when the test that asked ends. */
  fresh(now?: () => Date, retain?: number): Promise<Stores>
}

function kind(name: StoreKind['name'], open: StoreKind['open']): StoreKind {
  return {
    name,
    open,
    async fresh(now, retain) {
      const { stores, close } = await open(now, retain)
      after(close)
      return stores
    },
  }
}

const memory = kind('memory', async (now, retain) => ({
  stores: createMemoryStores(now, retain),
  close: async () => {},
}))

const postgres = kind('postgres', async (now, retain = defaults.eventsRetain) => {
  const lease = await migratedSchema()
  const db = new Database({ url: lease.url, poolSize: 10, statementTimeoutMs: 5000 })
  const events = new PgEventLog({
    db,
    sequencer: db.background('events'),
    listenUrl: lease.directUrl,
    retain,
    renderers: EVENT_RENDERERS,
  })
  await events.start()
  return {
    stores: createPostgresStores(db, events, now),
    async close() {
      await events.close()
      await db.close()
      await lease.release()
    },
  }
})

/**
 * Declares `suite` once per store implementation, as `<title> (<kind>)`; the PostgreSQL one is
 * skipped, loudly, where PostgreSQL cannot be reached (and fails where it is required).
 */
export async function forEachStore(title: string, suite: (kind: StoreKind) => void): Promise<void> {
  describe(`${title} (memory)`, () => suite(memory))
  const skip = await skipWithoutPostgres()
  describe(`${title} (postgres)`, { skip }, () => suite(postgres))
}

/**
 * Text a client can send in JSON that a database does not hold as it is: U+0000, unpaired
 * surrogates, backslashes that look like escapes. Every store keeps each exactly.
 */
export const ODD_TEXTS = [
  'a\u0000b',
  'x\ud800y',
  '\udc00 awal',
  '😀\ud83d',
  'C:\\tugas\\0',
  '\\u0041\\\\',
  'biasa saja',
]

/**
 * Changes an object a store returned, to check it was a snapshot; the memory stores freeze
 * their items, so the change may throw, which is as good as a copy.
 */
export function tryMutate(change: () => void): void {
  try {
    change()
  } catch {
    // Frozen.
  }
}
