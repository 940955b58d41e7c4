// A schedule explorer for the PostgreSQL change feed's numbering (docs/events.md#nothing-lost-
// nothing-renamed): several writer connections and the service's own numbering (numberEvents)
// driven through random interleavings of begin, write (an event drawn in the outbox, as the
// stores write it), taking a transaction id without an event, commit, roll back and number,
// with a crash of PostgreSQL (`-m immediate`, then a restart) in some. After every numbering
// and crash, and at the end of each schedule, it checks: no id ever names another event than
// it named before (also across a crash), no event is numbered twice, no rolled-back write's
// event is numbered; and once every transaction has ended, every committed event is numbered.
// Each schedule is drawn from (seed, its index) alone, so a finding is replayed by its numbers.
// Used by test/postgres-numbering-schedules.test.ts (a fixed seed, a bounded time) and by
// `npm run explore` (longer, any seed).
import pg from 'pg'
import { numberEvents } from '../../src/events/pg-sequencer.js'
import { Database } from '../../src/store/postgres/database.js'
import { migrate } from '../../src/store/postgres/migrate.js'
import { publishing } from '../../src/store/postgres/outbox.js'

export interface ExploreOptions {
  /** A database the explorer may empty and write at will. */
  url: string
  seed: number
  /** Stops after this many schedules or this many milliseconds, whichever comes first. */
  schedules: number
  /** The index of the first schedule (0 by default): one schedule is replayed by its index. */
  from?: number
  ms: number
  /** Crashes PostgreSQL and starts it again; without it no schedule crashes. */
  crash?: () => Promise<void>
  /** The chance that a step is a crash (when `crash` is given). */
  crashChance?: number
  writers?: number
  steps?: number
  /** Stops at the first finding. */
  stopAtFirst?: boolean
  /** The schema version to explore (an older numbering, e.g. '007'); the newest by default. */
  version?: string
}

export interface Finding {
  schedule: number
  problem: string
  /** The steps of the schedule up to the finding. */
  steps: string[]
}

export interface Exploration {
  schedules: number
  steps: number
  crashes: number
  /** Events committed over all schedules. */
  committed: number
  findings: Finding[]
}

/** A small seeded generator (mulberry32): the same seed, the same schedule. */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const WRITE = publishing(
  'INSERT INTO compact_tugas (judul, selesai) VALUES ($1, false)',
  'id, judul, selesai',
  { type: 'api-tugas.created' },
)

interface Writer {
  client: pg.Client
  open: boolean
  /** The events written in its open transaction. */
  pending: string[]
}

class Problem extends Error {}

/** The writers' connections and the sequencer's, kept from one schedule to the next. */
class Connections {
  writers: Writer[] = []
  sequencer!: Database

  constructor(
    private readonly url: string,
    private readonly count: number,
  ) {}

  async open(): Promise<void> {
    this.sequencer = new Database({ url: this.url, poolSize: 1, statementTimeoutMs: 10_000 })
    this.writers = await Promise.all(
      Array.from({ length: this.count }, async () => {
        const client = new pg.Client({ connectionString: this.url })
        client.on('error', () => {})
        await client.connect()
        return { client, open: false, pending: [] }
      }),
    )
  }

  async close(): Promise<void> {
    await Promise.all(this.writers.map((writer) => writer.client.end().catch(() => {})))
    await this.sequencer.close()
  }
}

/** One schedule: what it knows of every event it wrote. */
class Schedule {
  readonly steps: string[] = []
  readonly committed = new Set<string>()
  readonly rolledBack = new Set<string>()
  /** Every id seen numbered, and its event. */
  readonly named = new Map<number, string>()
  crashes = 0
  #written = 0

  constructor(
    private readonly connections: Connections,
    private readonly index: number,
  ) {}

  get writers(): Writer[] {
    return this.connections.writers
  }

  get sequencer(): Database {
    return this.connections.sequencer
  }

  async begin(w: number): Promise<void> {
    const writer = this.writers[w] as Writer
    await writer.client.query('BEGIN')
    writer.open = true
  }

  async write(w: number): Promise<void> {
    const writer = this.writers[w] as Writer
    this.#written += 1
    const event = `s${this.index}w${w}e${this.#written}`
    await writer.client.query(WRITE, [event])
    writer.pending.push(event)
  }

  /** A write of something else first: the transaction has its id before it draws a seq. */
  async touch(w: number): Promise<void> {
    await (this.writers[w] as Writer).client.query('SELECT pg_current_xact_id()')
  }

  async end(w: number, commit: boolean): Promise<void> {
    const writer = this.writers[w] as Writer
    await writer.client.query(commit ? 'COMMIT' : 'ROLLBACK')
    for (const event of writer.pending) (commit ? this.committed : this.rolledBack).add(event)
    writer.pending = []
    writer.open = false
  }

  /** One numbering as the service runs it; whether anything was new. */
  async number(): Promise<boolean> {
    const numbered = await this.sequencer.transaction((client) => numberEvents(client, 'explore'))
    await this.check()
    return numbered !== undefined
  }

  async crash(crash: () => Promise<void>): Promise<void> {
    this.crashes += 1
    await crash()
    for (const writer of this.writers) {
      for (const event of writer.pending) this.rolledBack.add(event)
    }
    await this.connections.close()
    await this.connections.open()
    await this.check()
  }

  /** Every id still names what it named; no event twice; none rolled back. */
  async check(): Promise<void> {
    const { rows } = await this.sequencer.query<{ id: number; data: string }>(
      'SELECT id, data FROM events_after(0, 1000000)',
    )
    const seen = new Set<string>()
    for (const { id, data } of rows) {
      const event = (JSON.parse(data) as { judul: string }).judul
      const before = this.named.get(id)
      if (before !== undefined && before !== event) {
        throw new Problem(`id ${id} named ${before}, now ${event}`)
      }
      if (seen.has(event)) throw new Problem(`${event} numbered twice`)
      if (this.rolledBack.has(event)) throw new Problem(`${event} was rolled back but numbered`)
      seen.add(event)
      this.named.set(id, event)
    }
    for (const id of this.named.keys()) {
      if (!rows.some((row) => row.id === id)) throw new Problem(`id ${id} is gone`)
    }
  }

  /** Numbers until nothing is new and no hole is awaited; then every committed event is there. */
  async settle(): Promise<void> {
    for (let round = 0; round < 100; round += 1) {
      const numbered = await this.number()
      const { rows } = await this.sequencer.query<{ holes: number }>(
        'SELECT coalesce(cardinality(holes), 0) AS holes FROM event_batches ORDER BY last_id DESC LIMIT 1',
      )
      if (!numbered && (rows[0]?.holes ?? 0) === 0) break
    }
    const numbered = new Set(this.named.values())
    for (const event of this.committed) {
      if (!numbered.has(event)) throw new Problem(`${event} was committed but never numbered`)
    }
  }
}

/** Empties what a schedule writes, so that each starts alike: no event, no numbering, seq 1. */
async function reset(db: Database): Promise<void> {
  await db.query(
    `DELETE FROM events; DELETE FROM event_batches; DELETE FROM compact_tugas;
     DELETE FROM webhook_deliveries;
     SELECT setval(pg_get_serial_sequence('events', 'seq'), 1, false);
     SELECT setval(pg_get_serial_sequence('compact_tugas', 'id'), 1, false)`,
  )
}

/** One schedule, drawn from `seed` and `index`. */
async function runSchedule(
  options: ExploreOptions,
  connections: Connections,
  index: number,
): Promise<{ steps: number; crashes: number; committed: number; finding?: Finding }> {
  const draw = random(options.seed * 1_000_003 + index)
  const pick = (n: number) => Math.floor(draw() * n)
  const writers = connections.writers.length
  const length = options.steps ?? 24
  await reset(connections.sequencer)
  const schedule = new Schedule(connections, index)
  try {
    for (let step = 0; step < length; step += 1) {
      const roll = draw()
      if (options.crash && roll < (options.crashChance ?? 0.01)) {
        schedule.steps.push('crash')
        await schedule.crash(options.crash)
        continue
      }
      if (roll < 0.2) {
        schedule.steps.push('number')
        await schedule.number()
        continue
      }
      const w = pick(writers)
      const writer = schedule.writers[w] as Writer
      const action = draw()
      if (!writer.open && action < 0.3) {
        schedule.steps.push(`w${w} write alone`)
        await schedule.begin(w)
        await schedule.write(w)
        await schedule.end(w, true)
      } else if (!writer.open) {
        schedule.steps.push(`w${w} begin`)
        await schedule.begin(w)
      } else if (action < 0.5) {
        schedule.steps.push(`w${w} write`)
        await schedule.write(w)
      } else if (action < 0.65) {
        schedule.steps.push(`w${w} touch`)
        await schedule.touch(w)
      } else if (action < 0.88) {
        schedule.steps.push(`w${w} commit`)
        await schedule.end(w, true)
      } else {
        schedule.steps.push(`w${w} rollback`)
        await schedule.end(w, false)
      }
    }
    for (const [w, writer] of schedule.writers.entries()) {
      if (!writer.open) continue
      const commit = draw() < 0.7
      schedule.steps.push(`w${w} ${commit ? 'commit' : 'rollback'}`)
      await schedule.end(w, commit)
    }
    schedule.steps.push('settle')
    await schedule.settle()
    return {
      steps: schedule.steps.length,
      crashes: schedule.crashes,
      committed: schedule.committed.size,
    }
  } catch (error) {
    if (!(error instanceof Problem)) throw error
    return {
      steps: schedule.steps.length,
      crashes: schedule.crashes,
      committed: schedule.committed.size,
      finding: { schedule: index, problem: error.message, steps: schedule.steps },
    }
  } finally {
    // A finding leaves transactions open: end them before the next schedule.
    for (const writer of connections.writers) {
      if (writer.open) await writer.client.query('ROLLBACK')
      writer.open = false
      writer.pending = []
    }
  }
}

/** Runs schedules from `options.seed` until the count or the time is reached. */
export async function explore(options: ExploreOptions): Promise<Exploration> {
  const result: Exploration = { schedules: 0, steps: 0, crashes: 0, committed: 0, findings: [] }
  const deadline = performance.now() + options.ms
  const migrating = new Database({ url: options.url, poolSize: 1, statementTimeoutMs: 10_000 })
  await migrate(migrating, options.version).finally(() => migrating.close())
  const connections = new Connections(options.url, options.writers ?? 3)
  await connections.open()
  try {
    const from = options.from ?? 0
    for (
      let index = from;
      index < from + options.schedules && performance.now() < deadline;
      index += 1
    ) {
      const run = await runSchedule(options, connections, index)
      result.schedules += 1
      result.steps += run.steps
      result.crashes += run.crashes
      result.committed += run.committed
      if (run.finding !== undefined) {
        result.findings.push(run.finding)
        if (options.stopAtFirst) break
      }
    }
  } finally {
    await connections.close()
  }
  return result
}
