// The listeners of a log: `newest`, where a stream opened without `after` starts, never moves
// back, and nothing at or below it is passed on (on PostgreSQL a read can end after the newest
// id was moved past it while no one listened).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Listeners } from '../../src/events/listeners.js'
import type { StoredEvent } from '../../src/events/store.js'

const events = (...ids: number[]): StoredEvent[] =>
  ids.map((id) => ({ id, type: 'tugas.created', owner: undefined, json: '{}' }))

test('newest never moves back, and events at or below it are not passed on', () => {
  const listeners = new Listeners()
  const heard: number[][] = []
  listeners.subscribe((batch) => heard.push(batch.map((event) => event.id)))
  listeners.newest = 10
  listeners.newest = 4
  assert.equal(listeners.newest, 10)
  listeners.emit(events(5, 6, 7, 8))
  assert.equal(listeners.newest, 10)
  listeners.emit(events(9, 10, 11, 12))
  assert.equal(listeners.newest, 12)
  assert.deepEqual(heard, [[11, 12]])
})

/** Keeps the thread busy for `ms`: a hand-over as slow as writing to many streams. */
function busy(ms: number): void {
  const until = performance.now() + ms
  while (performance.now() < until) {}
}

test('after a slow hand-over, what arrives during four times as long goes out after it in one batch, in order', async () => {
  const listeners = new Listeners()
  const heard: { ids: number[]; at: number }[] = []
  listeners.subscribe((batch) => {
    heard.push({ ids: batch.map((event) => event.id), at: performance.now() })
    busy(50)
  })
  const start = performance.now()
  listeners.emit(events(1))
  // The hand-over is timed to the end of the ticks it queued.
  await new Promise((resolve) => setImmediate(resolve))
  // Within the pause: held, and counted as passed on (a stream opened now starts after them).
  listeners.emit(events(2, 3))
  listeners.emit(events(3, 4))
  assert.equal(listeners.newest, 4)
  assert.deepEqual(
    heard.map(({ ids }) => ids),
    [[1]],
  )
  while (heard.length < 2) await new Promise((resolve) => setTimeout(resolve, 5))
  assert.deepEqual(
    heard.map(({ ids }) => ids),
    [[1], [2, 3, 4]],
  )
  // The pause: four times the first hand-over (at least 50 ms), 200 ms at most, after it ended.
  assert.ok((heard[1]?.at ?? 0) - start >= 50 + 200, `handed over after ${heard[1]?.at}`)
})

test('fast hand-overs are never held: every batch goes out as it comes', () => {
  const listeners = new Listeners()
  const heard: number[][] = []
  listeners.subscribe((batch) => heard.push(batch.map((event) => event.id)))
  for (let id = 1; id <= 100; id += 1) listeners.emit(events(id))
  assert.equal(heard.length, 100)
  assert.deepEqual(heard.at(-1), [100])
})

test('what a listener leaves to the ticks it queues (a response writing to its socket) counts as the hand-over', async () => {
  const listeners = new Listeners()
  const heard: number[][] = []
  listeners.subscribe((batch) => {
    heard.push(batch.map((event) => event.id))
    process.nextTick(() => busy(50))
  })
  listeners.emit(events(1))
  await new Promise((resolve) => setImmediate(resolve))
  listeners.emit(events(2))
  listeners.emit(events(3))
  assert.deepEqual(heard, [[1]])
  while (heard.length < 2) await new Promise((resolve) => setTimeout(resolve, 5))
  assert.deepEqual(heard, [[1], [2, 3]])
})

test('the pause is 200 ms at most, however slow the hand-over was', async () => {
  const listeners = new Listeners()
  const heard: number[] = []
  listeners.subscribe(() => {
    heard.push(performance.now())
    if (heard.length === 1) busy(150)
  })
  listeners.emit(events(1))
  const ended = performance.now()
  await new Promise((resolve) => setImmediate(resolve))
  listeners.emit(events(2))
  while (heard.length < 2) await new Promise((resolve) => setTimeout(resolve, 5))
  // Four times 150 ms would be 600 ms.
  const pause = (heard[1] ?? 0) - ended
  assert.ok(pause >= 195 && pause < 550, `paused ${pause} ms`)
})

/**
 * Listeners that took `ms` to hand each batch over, after the first (event 1) has been: what
 * arrives now waits for the pause that follows it.
 */
async function afterSlowHandOver(ms: number) {
  const listeners = new Listeners()
  const heard: number[][] = []
  listeners.subscribe((batch) => {
    heard.push(batch.map((event) => event.id))
    busy(ms)
  })
  listeners.emit(events(1))
  await new Promise((resolve) => setImmediate(resolve))
  return { listeners, heard }
}

test('large events do not wait for the pause: past 64 KiB waiting, they go out at once', async () => {
  const { listeners, heard } = await afterSlowHandOver(50)
  const large = (id: number): StoredEvent => ({
    id,
    type: 'tugas.created',
    owner: undefined,
    json: 'x'.repeat(40 * 1024),
  })
  listeners.emit([large(2)])
  assert.deepEqual(heard, [[1]])
  listeners.emit([large(3)])
  assert.deepEqual(heard, [[1], [2, 3]])
})

test('a batch that arrives as the pause ends, between two looks at the clock, is handed over, not lost', async () => {
  const { listeners, heard } = await afterSlowHandOver(5)
  // The clock as a loaded machine can read it: the pause not over at the first look, over at
  // every look after (the thread was taken away in between).
  const now = performance.now
  let looks = 0
  performance.now = () => (looks++ === 0 ? 0 : Number.MAX_VALUE)
  try {
    listeners.emit(events(2, 3))
  } finally {
    performance.now = now
  }
  assert.deepEqual(heard, [[1], [2, 3]])
  listeners.emit(events(4))
  while (heard.length < 3) await new Promise((resolve) => setTimeout(resolve, 5))
  assert.deepEqual(heard, [[1], [2, 3], [4]])
  assert.equal(listeners.newest, 4)
})
