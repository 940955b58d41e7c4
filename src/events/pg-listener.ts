import pg from 'pg'
import type { Queryable } from '../store/postgres/database.js'

/**
 * The channel the sequencer NOTIFYs and every process LISTENs on: per schema, since several
 * services may share one database.
 */
export async function eventsChannel(db: Queryable): Promise<string> {
  const { rows } = await db.query<{ schema: string }>('SELECT current_schema() AS schema')
  return `tugas_events_${rows[0]?.schema ?? 'public'}`
}

/** What the listening connection tells its log. */
export interface Heard {
  /** A numbering (in any process) gave ids up to `newest` and queued `queued` deliveries. */
  notified(newest: number | undefined, queued: number | undefined): void
  /** Listening again after a lost connection: what was announced meanwhile was missed. */
  reconnected(): void
}

/**
 * One connection per process LISTENing on `channel` (a session of its own, which a
 * transaction-pooling proxy does not give): lost, it listens again a second later.
 */
export class EventsListener {
  #client: pg.Client | undefined
  #closed = false

  constructor(
    private readonly url: string,
    private readonly channel: string,
    private readonly heard: Heard,
  ) {}

  /** Connects and listens; thrown when it cannot (start-up refused). */
  start(): Promise<void> {
    return this.#listen()
  }

  async #listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, application_name: 'tugas events' })
    client.on('notification', ({ payload = '' }) => {
      const [newest, queued] = payload.split(',').map(Number)
      this.heard.notified(newest, queued)
    })
    // A lost connection: listen again a second later, then read what was missed meanwhile.
    const again = () => {
      if (this.#client !== client || this.#closed) return
      this.#client = undefined
      client.end().catch(() => {})
      setTimeout(() => {
        if (this.#closed) return
        this.#listen()
          .then(() => this.heard.reconnected())
          .catch(again)
      }, 1000).unref()
    }
    client.on('error', again)
    client.on('end', again)
    this.#client = client
    await client.connect()
    // Like the ticks, it never keeps the process alive by itself: the server does, while it runs.
    ;(
      client as unknown as { connection?: { stream?: { unref?(): void } } }
    ).connection?.stream?.unref?.()
    await client.query(`LISTEN "${this.channel}"`)
  }

  async close(): Promise<void> {
    this.#closed = true
    const client = this.#client
    this.#client = undefined
    await client?.end().catch(() => {})
  }
}
