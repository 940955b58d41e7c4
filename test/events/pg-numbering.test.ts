// How PostgreSQL numbers events (docs/events.md#one-order-across-processes): a write's event
// whose seq was drawn before a later one's but committed after it is numbered after it, never
// skipped; a rolled-back write's seq is let go; events numbered by version 4 of the schema keep
// their ids through the migration that stopped rewriting them (007).
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import pg from 'pg'
import { defaults } from '../../src/config.js'
import { PgEventLog } from '../../src/events/pg-store.js'
import type { StoredEvent } from '../../src/events/store.js'
import { Database, type Queryable } from '../../src/store/postgres/database.js'
import { migrate } from '../../src/store/postgres/migrate.js'
import { publishing } from '../../src/store/postgres/outbox.js'
import { createPostgresStores, EVENT_RENDERERS } from '../../src/stores.js'
import { freshDatabaseUrl, migratedSchema, skipWithoutPostgres } from '../support/postgres.js'

const skip = await skipWithoutPostgres()

interface OpenOptions {
  /** A URL reaching PostgreSQL itself, for LISTEN. */
  directUrl?: string | undefined
  retain?: number
  /** Where the sequencer runs: by default the pool's connection of its own for it. */
  sequencer?: (db: Database) => Database
}

/** An event log and the stores publishing to it on `url`, closed when the test ends. */
async function open(url: string, options: OpenOptions = {}) {
  const {
    directUrl,
    retain = defaults.eventsRetain,
    sequencer = (db) => db.background('events'),
  } = options
  const db = new Database({ url, poolSize: 4, statementTimeoutMs: 5000 })
  const events = new PgEventLog({
    db,
    sequencer: sequencer(db),
    listenUrl: directUrl,
    retain,
    renderers: EVENT_RENDERERS,
  })
  await events.start()
  after(async () => {
    await events.close()
    await db.close()
  })
  return { db, events, stores: createPostgresStores(db, events) }
}

/** A connection of its own on `url`, ended when the test ends. */
async function connection(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  after(() => client.end())
  return client
}

/** Waits until the log has numbered `newest` (at most `ms`), then reads everything it keeps. */
async function numbered(events: PgEventLog, newest: number, ms = 5000): Promise<StoredEvent[]> {
  const deadline = Date.now() + ms
  while ((await events.bounds()).newest < newest && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  return events.after(0, 100)
}

const titles = (events: StoredEvent[]) =>
  events.map((event) => [
    event.id,
    (JSON.parse(event.json) as { data: { judul: string } }).data.judul,
  ])

/** A create of surface B as the store writes it, on `client` (inside its transaction). */
const create = (client: pg.Client, judul: string) =>
  client.query(
    publishing(
      'INSERT INTO compact_tugas (judul, selesai) VALUES ($1, false)',
      'id, judul, selesai',
      {
        type: 'api-tugas.created',
      },
    ),
    [judul],
  )

/** A migrated schema of its own with its log and stores, and a connection that writes by hand. */
async function leased(retain?: number) {
  const lease = await migratedSchema()
  after(() => lease.release())
  const opened = await open(lease.url, { directUrl: lease.directUrl, retain })
  return { ...opened, writer: await connection(lease.url) }
}

const holes = async (client: pg.Client) =>
  (await client.query('SELECT holes FROM event_batches ORDER BY last_id DESC LIMIT 1')).rows[0]
    ?.holes as string[]

/** Waits until the oldest transaction running anywhere began after the newest hole was seen. */
async function allEndedSinceHoleSeen(client: pg.Client): Promise<void> {
  const deadline = Date.now() + 10_000
  const ended = async () =>
    (
      await client.query<{ ended: boolean }>(
        `SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint >= (
           SELECT holes_xmax[1] FROM event_batches ORDER BY last_id DESC LIMIT 1) AS ended`,
      )
    ).rows[0]?.ended
  while (!(await ended())) {
    if (Date.now() > deadline) throw new Error('a transaction older than the hole still runs')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/**
 * A sequencer's connection that, once armed, stops its next numbering before COMMIT, as a
 * process stopped there would (by a signal, or writing to a full log pipe): its transaction
 * idle, the sequencer's lock held.
 */
class StallingDatabase extends Database {
  #stall: Promise<void> | undefined
  #stalled = () => {}

  /** The next transaction stops after its work until `release` resolves; resolves once it has. */
  arm(release: Promise<void>): Promise<void> {
    this.#stall = release
    return new Promise((resolve) => {
      this.#stalled = resolve
    })
  }

  override transaction<T>(work: (client: Queryable) => Promise<T>): Promise<T> {
    const stall = this.#stall
    if (stall === undefined) return super.transaction(work)
    this.#stall = undefined
    return super.transaction(async (client) => {
      const result = await work(client)
      this.#stalled()
      await stall
      return result
    })
  }
}

describe('numbering events on PostgreSQL', { skip }, () => {
  test('an event drawn earlier but committed later is numbered after what was numbered meanwhile', async () => {
    const { events, stores, writer } = await leased()
    await writer.query('BEGIN')
    await create(writer, 'lambat')
    await stores.compact.create('cepat')
    assert.deepEqual(titles(await numbered(events, 1)), [[1, 'cepat']])
    assert.equal((await holes(writer)).length, 1, 'the slow write is awaited')
    // Another numbering while it is still in flight: still awaited.
    await stores.compact.create('cepat juga')
    await numbered(events, 2)
    assert.equal((await holes(writer)).length, 1, 'the slow write is still awaited')
    await writer.query('COMMIT')
    await stores.compact.create('sesudah')
    assert.deepEqual(titles(await numbered(events, 4)), [
      [1, 'cepat'],
      [2, 'cepat juga'],
      [3, 'lambat'],
      [4, 'sesudah'],
    ])
    assert.deepEqual(await holes(writer), [])
  })

  test("a rolled-back write's seq is let go once no transaction of its time runs", async () => {
    const { events, stores, writer } = await leased()
    await writer.query('BEGIN')
    await create(writer, 'batal')
    await stores.compact.create('pertama')
    await numbered(events, 1)
    assert.equal((await holes(writer)).length, 1)
    await writer.query('ROLLBACK')
    // Every transaction of the cluster that ran when the hole was seen has ended (other test
    // files' among them): the next numbering lets it go, and numbers what came meanwhile.
    await allEndedSinceHoleSeen(writer)
    await stores.compact.create('kedua')
    assert.deepEqual(titles(await numbered(events, 2)), [
      [1, 'pertama'],
      [2, 'kedua'],
    ])
    assert.deepEqual(await holes(writer), [])
  })

  test('forgetting past EVENTS_RETAIN can cut a numbering: the ids kept stay the same', async () => {
    const { events, stores, writer } = await leased(3)
    // Five events committed together: one numbering of five, of which the first two go.
    await writer.query('BEGIN')
    for (let n = 1; n <= 5; n += 1) await create(writer, `judul ${n}`)
    await writer.query('COMMIT')
    await stores.compact.create('keenam')
    const deadline = Date.now() + 5000
    while (((await events.bounds()).oldest ?? 0) < 4 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    assert.deepEqual(titles(await events.after(0, 100)), [
      [4, 'judul 4'],
      [5, 'judul 5'],
      [6, 'keenam'],
    ])
    assert.deepEqual(titles(await events.after(4, 1)), [[5, 'judul 5']])
    assert.deepEqual(await events.bounds(), { oldest: 4, newest: 6 })
  })

  test('a process stopped inside its numbering holds the others up no longer than the statement timeout', async () => {
    const lease = await migratedSchema()
    after(() => lease.release())
    let release = () => {}
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    after(release)
    const stalling = new StallingDatabase({ url: lease.url, poolSize: 1, statementTimeoutMs: 300 })
    const { directUrl } = lease
    const stopped = await open(lease.url, { directUrl, sequencer: () => stalling })
    after(() => stalling.close())
    const other = await open(lease.url, { directUrl })
    const stalled = stalling.arm(released)
    await stopped.stores.compact.create('lambat')
    await stalled
    await other.stores.compact.create('cepat')
    // While the first still sleeps the other numbers both: the server ended the first one's
    // transaction, idle past its statement timeout, and the sequencer's lock with it.
    assert.deepEqual(titles(await numbered(other.events, 2, 20_000)), [
      [1, 'lambat'],
      [2, 'cepat'],
    ])
    // Woken, it finds its connection gone, and numbers again on a new one.
    release()
    await stopped.stores.compact.create('lagi')
    assert.deepEqual(titles(await numbered(stopped.events, 3)).at(-1), [3, 'lagi'])
  })

  test('events of version 6 keep their ids through the migration; those not numbered follow', async () => {
    const url = await freshDatabaseUrl()
    const db = new Database({ url, poolSize: 2, statementTimeoutMs: 5000 })
    after(() => db.close())
    await migrate(db, '006')
    // Seqs 1 to 5: 1 to 3 numbered 1 to 3, then 1 forgotten; 5 and 4 committed, not numbered.
    await db.query(
      `INSERT INTO events (type, subject, data)
       SELECT 'api-tugas.created', n::text, json_build_object('id', n, 'judul', 'lama ' || n,
         'selesai', false)::text FROM generate_series(1, 5) n`,
    )
    await db.query('UPDATE events SET id = seq WHERE seq <= 3')
    await db.query('DELETE FROM events WHERE seq = 1')
    assert.deepEqual(await migrate(db, '007'), [7])
    await migrate(db)
    const { events, stores } = await open(url)
    await stores.compact.create('baru')
    assert.deepEqual(titles(await numbered(events, 6)), [
      [2, 'lama 2'],
      [3, 'lama 3'],
      [4, 'lama 4'],
      [5, 'lama 5'],
      [6, 'baru'],
    ])
  })
})
