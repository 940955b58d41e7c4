// The change feed under load across processes (decisions.md 9, "Nothing lost, nothing
// renamed"): three services (`npm start`, dist/; one with WORKERS=2) on one PostgreSQL
// database, two dozen writers on surfaces A, B and C sending concurrently for a while, a
// stream open on two of the services. Both streams carry one sequence, the event of every
// acknowledged write exactly once and nothing else. Then the same with PostgreSQL crashed
// (`pg_ctl stop -m immediate`, then started) in the middle: every acknowledged write still has
// its event, and every id a stream received names the same event when replayed after. The
// database is a private cluster (test/support/private-postgres.ts), so the crash disturbs no
// other test. LOAD_SECONDS (default 10) sets how long each phase writes.
// Runs dist/: `npm run build` first (`npm test` does).
import assert from 'node:assert/strict'
import { createInterface } from 'node:readline'
import { after, before, describe, test } from 'node:test'
import { setTimeout as pause } from 'node:timers/promises'
import pg from 'pg'
import { freePort } from './support/ports.js'
import { skipWithoutPostgres } from './support/postgres.js'
import {
  type PrivatePostgres,
  privatePostgres,
  skipWithoutPrivatePostgres,
} from './support/private-postgres.js'
import { npmStart, send } from './support/processes.js'
import { freshPrefix, REDIS_URL, skipWithoutRedis } from './support/redis.js'
import { type Frame, openStream } from './support/sse.js'

const skip =
  (await skipWithoutPostgres()) || skipWithoutPrivatePostgres() || (await skipWithoutRedis())

const PHASE_MS = Number(process.env.LOAD_SECONDS ?? 10) * 1000

/** A write's label: the title, judul or isi it sent, which its event's data carries. */
const labelOf = (frame: Frame) => {
  const { data } = JSON.parse(frame.data as string) as { data: Record<string, unknown> }
  return String(data.title ?? data.judul ?? data.isi)
}

interface Outcome {
  /** For a failure's message: each write's service and when it was sent and answered. */
  when: Map<string, { base: number; sent: number; answered: number }>
  acknowledged: Set<string>
  /** Not answered 2xx: refused, or (across a crash) not known whether it took effect. */
  unanswered: Set<string>
}

/**
 * Writers on every service in turn until `ms` have passed: creates of surfaces A, B and C,
 * updates and comments on A's tasks; each with a label no other write uses.
 */
async function write(bases: string[], phase: string, ms: number): Promise<Outcome> {
  const outcome: Outcome = { when: new Map(), acknowledged: new Set(), unanswered: new Set() }
  const created: number[] = []
  const deadline = Date.now() + ms
  const writer = async (kind: number, n: number) => {
    for (let round = 0; Date.now() < deadline; round += 1) {
      const base = bases[(n + round) % bases.length] as string
      const label = `${phase}-${kind}-${n}-${round}`
      const task = created[(n * 7 + round) % Math.max(created.length, 1)]
      const [method, path, body] =
        kind === 0 || task === undefined
          ? ['POST', '/tugas', { title: label }]
          : kind === 1
            ? ['POST', '/api/tugas', { judul: label }]
            : kind === 2
              ? ['POST', '/todos', { title: label }]
              : kind === 3
                ? ['PATCH', `/tugas/${task}`, { title: label }]
                : ['POST', `/tugas/${task}/komentar`, { isi: label }]
      const sent = Date.now()
      const answer = await send(base, method, path, { body }).catch(() => undefined)
      outcome.when.set(label, { base: bases.indexOf(base), sent, answered: Date.now() })
      if (answer !== undefined && answer.status >= 200 && answer.status < 300) {
        outcome.acknowledged.add(label)
        if (path === '/tugas') created.push((JSON.parse(answer.body) as { id: number }).id)
      } else {
        outcome.unanswered.add(label)
        // PostgreSQL away: try again a little later rather than spin.
        await pause(50)
      }
    }
  }
  // Six writers of each kind: two dozen and more at once.
  await Promise.all(Array.from({ length: 30 }, (_, at) => writer(at % 5, Math.floor(at / 5))))
  return outcome
}

/**
 * A stream read as EventSource reads it: closed by the service (a reader too slow for it, as the
 * test process can be on a loaded machine), it is opened again with `Last-Event-ID`; its events
 * are those of every connection in turn.
 */
interface Feed {
  events(): Frame[]
  /** Connections opened again after the service closed one. */
  resumed: number
  /** Resolves once `test` holds of the events, or after `ms` whatever they are. */
  until(test: (events: Frame[]) => boolean, ms: number): Promise<void>
  close(): void
}

async function openFeed(url: string): Promise<Feed> {
  const events: Frame[] = []
  let current = await openStream(url)
  let taken = 0
  let closed = false
  /** The events so far: those of the current connection not yet taken are added. */
  const take = () => {
    for (; taken < current.frames.length; taken += 1) {
      const frame = current.frames[taken] as Frame
      if (frame.data !== undefined) events.push(frame)
    }
    return events
  }
  const feed: Feed = {
    resumed: 0,
    events: take,
    async until(test, ms) {
      for (const deadline = Date.now() + ms; !closed && Date.now() < deadline; ) {
        const connection = current
        const held = await connection
          .until(() => test(take()) || connection.hasEnded(), deadline - Date.now())
          .then(() => test(take()) || !connection.hasEnded())
          .catch(() => true)
        if (held) return
        const last = take().at(-1)?.id
        current = await openStream(url, last === undefined ? {} : { 'last-event-id': last })
        taken = 0
        feed.resumed += 1
      }
    },
    close() {
      closed = true
      current.close()
    },
  }
  return feed
}

/** Waits until the feed carries every label in `labels` (at most 20 s); its events. */
async function carrying(feed: Feed, labels: Set<string>): Promise<Frame[]> {
  // Looked through once, an event at a time: a test of every event on each chunk would be slow
  // enough, over thousands of events, for the service to close the stream as a slow reader.
  const missing = new Set(labels)
  let looked = 0
  await feed.until((events) => {
    for (; looked < events.length; looked += 1) missing.delete(labelOf(events[looked] as Frame))
    return missing.size === 0
  }, 20_000)
  return feed.events()
}

/**
 * Where the events of `labels` are in the log, for a failure's message: each one's seq and id
 * (null: not numbered), who holds an advisory lock (the sequencer's), the newest numberings.
 */
async function whereInLog(url: string, labels: string[]): Promise<string> {
  if (labels.length === 0) return ''
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const events = await client.query(
      `SELECT e.seq, e.type, b.first_id + array_position(b.seqs, e.seq) - 1 AS id
       FROM events e LEFT JOIN event_batches b ON e.seq = ANY (b.seqs)
       WHERE e.data::json->>'title' = ANY ($1) OR e.data::json->>'judul' = ANY ($1)
         OR e.data::json->>'isi' = ANY ($1)
       ORDER BY e.seq`,
      [labels],
    )
    const batches = await client.query(
      'SELECT first_id, last_id, max_seq, holes, holes_xmax FROM event_batches ORDER BY last_id DESC LIMIT 3',
    )
    // A session holding the sequencer's lock (or any advisory lock) and what it is doing.
    const holders = await client.query(
      `SELECT a.pid, a.application_name, a.state, now() - a.state_change AS for, l.objid
       FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE l.locktype = 'advisory' AND l.granted`,
    )
    return JSON.stringify({
      events: events.rows.map(({ seq, id, type }) => ({ seq, id, type })),
      advisoryLocks: holders.rows,
      batches: batches.rows,
    })
  } finally {
    await client.end()
  }
}

/** One sequence, ids increasing, no label twice; returns id -> label. */
function sequence(frames: Frame[], where: string): Map<number, string> {
  const named = new Map<number, string>()
  const labels = new Set<string>()
  let last = 0
  for (const frame of frames) {
    const id = Number(frame.id)
    assert.ok(id > last, `${where}: id ${id} after ${last}`)
    last = id
    const label = labelOf(frame)
    assert.ok(!labels.has(label), `${where}: ${label} twice`)
    labels.add(label)
    named.set(id, label)
  }
  return named
}

/** Each service's output lines, by its address. */
const logs = new Map<string, string[]>()

/** What the services logged, for a failure's message: each message counted, the last lines. */
function logged(): string {
  return [...logs]
    .map(([base, lines]) => {
      const counts = new Map<string, number>()
      for (const line of lines) {
        const msg = /"msg":"([^"]*)"/.exec(line)?.[1] ?? line.slice(0, 80)
        counts.set(msg, (counts.get(msg) ?? 0) + 1)
      }
      const last = lines.slice(-3).map((line) => line.slice(0, 300))
      return `${base}: ${JSON.stringify([...counts])}; last: ${last.join(' | ')}`
    })
    .join('\n')
}

/**
 * `npm start` on a port of its own, logging warnings only (a line per request would cost the
 * test process more than the writes); its address once it is ready.
 */
async function started(env: Record<string, string>): Promise<string> {
  const base = `http://127.0.0.1:${await freePort()}`
  const child = npmStart({ ...env, PORT: new URL(base).port, LOG_LEVEL: 'warn' })
  // Read, so that a full pipe never blocks the service; kept for a failure's message.
  const lines: string[] = []
  logs.set(base, lines)
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream as NodeJS.ReadableStream }).on('line', (line) => {
      lines.push(line)
    })
  }
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
    if (child.exitCode !== null) break
    const answer = await send(base, 'GET', '/health/ready').catch(() => undefined)
    if (answer?.status === 200) return base
    await pause(100)
  }
  throw new Error(`the service at ${base} did not start`)
}

describe('the change feed under load across processes', { skip }, () => {
  let cluster: PrivatePostgres
  let bases: string[]
  let streams: Feed[]
  before(async () => {
    cluster = await privatePostgres()
    const env = { DATABASE_URL: cluster.url }
    const redis = { REDIS_URL, REDIS_KEY_PREFIX: freshPrefix() }
    // One first, so that the others find the schema migrated.
    const first = await started(env)
    const others = await Promise.all([started(env), started({ ...env, ...redis, WORKERS: '2' })])
    bases = [first, ...others]
    streams = await Promise.all([first, others[1] as string].map((b) => openFeed(`${b}/events`)))
  })
  after(async () => {
    for (const stream of streams ?? []) stream.close()
    await cluster?.remove()
  })

  /**
   * A failure's message: when each lost write was sent and answered (ms after `since`), by
   * which service, where its event is in the log, and what the services logged.
   */
  async function explained(lost: string[], when: Outcome['when'], since: number) {
    const writes = lost.map((label) => {
      const { base, sent, answered } = when.get(label) ?? { base: -1, sent: 0, answered: 0 }
      return { label, base, sent: sent - since, answered: answered - since }
    })
    return `the writes: ${JSON.stringify(writes)}; in the log: ${await whereInLog(cluster.url, lost)}\n${logged()}`
  }

  /**
   * What both streams carry once they carry `labels` and reach the same last id: one sequence,
   * the same on both. A write the test gave up on (no answer in 5 s while PostgreSQL restarts)
   * can still be done by the service after every acknowledged one, so its event may reach one
   * stream before the other; waiting for the same last id keeps that from reading as a gap.
   */
  async function carried(labels: Set<string>) {
    await Promise.all(streams.map((stream) => carrying(stream, labels)))
    const lastId = (feed: Feed) => Number(feed.events().at(-1)?.id ?? 0)
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
      const last = Math.max(...streams.map(lastId))
      await Promise.all(
        streams.map((feed) => feed.until((events) => Number(events.at(-1)?.id) >= last, 5000)),
      )
      if (streams.every((feed) => lastId(feed) === last)) break
    }
    const [a, b] = streams.map((stream) => stream.events())
    const onA = sequence(a as Frame[], 'stream on the first')
    const onB = sequence(b as Frame[], 'stream on the WORKERS=2 service')
    const differ = (one: Map<number, string>, other: Map<number, string>) =>
      [...one].filter(([id, label]) => other.get(id) !== label).map(([id]) => id)
    assert.deepEqual(
      { onlyOnA: differ(onA, onB), onlyOnB: differ(onB, onA) },
      { onlyOnA: [], onlyOnB: [] },
      `both streams carry the identical sequence (resumed ${streams.map((s) => s.resumed)} times)`,
    )
    return onA
  }

  test('every acknowledged write has its event on both streams, once, and nothing else', async (t) => {
    const { when, acknowledged, unanswered } = await write(bases, 'steady', PHASE_MS)
    const named = await carried(acknowledged)
    const labels = new Set(named.values())
    const lost = [...acknowledged].filter((label) => !labels.has(label))
    t.diagnostic(
      `${acknowledged.size} writes acknowledged, ${unanswered.size} not; lost ${lost.length}; streams resumed ${streams.map((s) => s.resumed)} times`,
    )
    assert.deepEqual(
      lost,
      [],
      `every acknowledged write has its event; ${await explained(lost, when, 0)}`,
    )
    assert.deepEqual(
      [...labels].filter((label) => !acknowledged.has(label)),
      [],
      'no event of a write that was not acknowledged',
    )
    assert.ok(acknowledged.size > 100, `only ${acknowledged.size} writes`)
  })

  test('the same with PostgreSQL crashed in the middle; ids seen before name the same events after', async (t) => {
    const before = new Map(streams[0]?.events().map((frame) => [Number(frame.id), labelOf(frame)]))
    const writing = write(bases, 'crash', PHASE_MS)
    await pause(PHASE_MS / 2)
    const seenAtCrash = new Map(
      streams[0]?.events().map((frame) => [Number(frame.id), labelOf(frame)]),
    )
    const crashed = Date.now()
    await cluster.crash()
    const back = Date.now() - crashed
    const { when, acknowledged, unanswered } = await writing
    const named = await carried(acknowledged)
    const labels = new Set(named.values())
    const lost = [...acknowledged].filter((label) => !labels.has(label))
    t.diagnostic(
      `${acknowledged.size} writes acknowledged, ${unanswered.size} not (refused or cut by the crash); lost ${lost.length}; ${seenAtCrash.size - before.size} events seen in this phase before the crash; streams resumed ${streams.map((s) => s.resumed)} times`,
    )
    assert.deepEqual(
      lost,
      [],
      `every acknowledged write has its event; PostgreSQL back ${back} ms after the crash; ${await explained(lost, when, crashed)}`,
    )
    for (const label of labels) {
      if (label.startsWith('crash-')) {
        assert.ok(acknowledged.has(label) || unanswered.has(label), `${label} was written`)
      }
    }
    assert.ok(seenAtCrash.size > before.size, 'events were seen before the crash')
    // A replay from the start, on the third service, names every id as the streams saw it.
    const replay = await openFeed(`${bases[1]}/events?after=0`)
    const replayed = sequence(await carrying(replay, labels), 'replay')
    replay.close()
    for (const [id, label] of named) assert.equal(replayed.get(id), label, `id ${id}`)
  })
})
