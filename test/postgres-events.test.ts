// The change feed across processes (decisions.md 9, "Order"): two services (`npm start`, dist/)
// on one PostgreSQL database, each written to in concurrent bursts, each with a stream open.
// Both streams carry the identical sequence, strictly increasing, with the event of every
// acknowledged write exactly once; resuming from any id gives the identical tail; after
// SIGKILL of both and a restart, every event is still there, in the same order.
// Runs dist/: `npm run build` first (`npm test` does).
import assert from 'node:assert/strict'
import type { ChildProcess } from 'node:child_process'
import { describe, test } from 'node:test'
import { freshSchemaUrls, skipWithoutPostgres } from './support/postgres.js'
import { listening, npmStart, send } from './support/processes.js'
import { type Frame, openStream } from './support/sse.js'

const skip = await skipWithoutPostgres()

/** One service on the database, and its address. */
async function service(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = npmStart(env)
  return { child, url: await listening(child, []) }
}

const killGroup = (child: ChildProcess) => {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
  } catch {
    // Already gone.
  }
}

/** What a write acknowledged must have published: its type and subject. */
type Expected = string

describe('events across two processes on one database', { skip }, () => {
  test('one sequence on both, every acknowledged write once, resumable, and kept across SIGKILL', async () => {
    const { url: databaseUrl, directUrl } = await freshSchemaUrls()
    const env = { DATABASE_URL: databaseUrl, DATABASE_DIRECT_URL: directUrl, LOG_LEVEL: 'info' }
    const [a, b] = await Promise.all([service(env), service(env)])
    const bases = [a.url, b.url]
    const streams = await Promise.all(bases.map((base) => openStream(`${base}/events`)))

    const expected: Expected[] = []
    // Three rounds of 20 concurrent writes on each process at once: creates, then updates and
    // comments of what was created, on the other process.
    let created: number[] = []
    for (let round = 0; round < 3; round += 1) {
      const writes = bases.flatMap((base, side) =>
        Array.from({ length: 20 }, async (_, n) => {
          const previous = created[(n + side * 20) % Math.max(created.length, 1)]
          if (round > 0 && previous !== undefined && n % 2 === 0) {
            const answer = await send(base, 'PATCH', `/tugas/${previous}`, {
              body: { status: 'selesai' },
            })
            if (answer.status === 200) expected.push(`tugas.updated ${previous}`)
            return undefined
          }
          if (round > 0 && previous !== undefined && n % 3 === 0) {
            const answer = await send(base, 'POST', `/tugas/${previous}/komentar`, {
              body: { isi: `dari ${side}` },
            })
            const { id } = JSON.parse(answer.body) as { id: number }
            if (answer.status === 201) expected.push(`komentar.created ${previous}/komentar/${id}`)
            return undefined
          }
          const answer = await send(base, 'POST', '/tugas', { body: { title: `r${round} ${n}` } })
          assert.equal(answer.status, 201)
          const { id } = JSON.parse(answer.body) as { id: number }
          expected.push(`tugas.created ${id}`)
          return id
        }),
      )
      created = (await Promise.all(writes)).filter((id): id is number => id !== undefined)
    }

    const seen = await Promise.all(
      streams.map(async (stream) =>
        (await stream.until((frames) => events(frames).length >= expected.length, 10_000)).slice(),
      ),
    )
    for (const stream of streams) stream.close()
    const [onA, onB] = seen.map(events) as [Frame[], Frame[]]
    assert.deepEqual(onA, onB, 'both processes send the identical sequence')
    const ids = onA.map((frame) => Number(frame.id))
    for (let at = 1; at < ids.length; at += 1) {
      assert.ok((ids[at] as number) > (ids[at - 1] as number), `ids increase at ${at}`)
    }
    const published = onA.map((frame) => {
      const event = JSON.parse(frame.data as string) as { type: string; subject: string }
      return `${event.type} ${event.subject}`
    })
    assert.deepEqual([...published].sort(), [...expected].sort(), 'each acknowledged write once')

    // Resuming from any id, on either process, gives the identical tail.
    for (const [at, frame] of onA.entries()) {
      const base = bases[at % 2] as string
      const resumed = await openStream(`${base}/events?after=${frame.id}`)
      const tail = onA.slice(at + 1)
      const frames = await resumed.until((all) => events(all).length >= tail.length)
      resumed.close()
      assert.deepEqual(events(frames), tail, `after ${frame.id}`)
    }

    // SIGKILL both, start one again: every event is there, in the same order.
    killGroup(a.child)
    killGroup(b.child)
    const again = await service(env)
    const replay = await openStream(`${again.url}/events?after=0`)
    const frames = await replay.until((all) => events(all).length >= onA.length)
    replay.close()
    killGroup(again.child)
    assert.deepEqual(events(frames), onA)
  })
})

/** The events of a stream's frames (not `retry`, not comments). */
function events(frames: Frame[]): Frame[] {
  return frames.filter((frame) => frame.data !== undefined)
}
