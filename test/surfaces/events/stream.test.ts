// EventStream on a log whose ids jump: the events between were forgotten (EVENTS_RETAIN) before
// this process read them, which on PostgreSQL happens when the retained window is shorter than
// the read; the stream tells its client with a reset instead of leaving a silent hole.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { MemoryEventLog } from '../../../src/events/memory-store.js'
import type { EventLog, StoredEvent } from '../../../src/events/store.js'
import type { NewEvent } from '../../../src/store/events.js'
import { EventStream } from '../../../src/surfaces/events/stream.js'
import { type Frame, parseFrames } from '../../support/sse.js'

const smallEvent = (id: number): StoredEvent => ({
  id,
  type: 'tugas.created',
  owner: undefined,
  json: JSON.stringify({ id: String(id) }),
})

/** A log that reads as `reads` says, and passes on the events of the ids given to `pass`. */
function fakeLog(reads: Partial<EventLog> = {}, event = smallEvent) {
  let listener: (events: StoredEvent[]) => void = () => {}
  const log: EventLog = {
    after: async () => [],
    bounds: async () => ({ oldest: undefined, newest: 0 }),
    subscribe(heard) {
      listener = heard
      return () => {}
    },
    publishedByType: new Map(),
    newest: 0,
    close: async () => {},
    ...reads,
  }
  return { log, pass: (...ids: number[]) => listener(ids.map(event)) }
}

/** A stream on `log` with every type, no credential, to a client that takes everything at once. */
const streamOn = (log: EventLog, after: number | undefined) =>
  new EventStream({
    log,
    types: undefined,
    identity: undefined,
    after,
    heartbeatMs: 60_000,
    response: { waiting: () => 0, abort: () => {} },
  })

test('a jump in the ids a live stream is passed is sent as a reset before the next event', async () => {
  const { log, pass } = fakeLog()
  const stream = streamOn(log, undefined)
  await stream.open()
  pass(1, 2)
  pass(5, 6)
  stream.close()
  let text = ''
  for await (const chunk of stream.body) text += chunk
  const frames: Frame[] = []
  parseFrames(text, frames)
  assert.deepEqual(
    frames.map((frame) => `${frame.event ?? frame.retry} ${frame.id ?? ''}`),
    [
      '2000 ',
      'tugas.created 1',
      'tugas.created 2',
      'reset 4',
      'tugas.created 5',
      'tugas.created 6',
    ],
  )
  assert.equal(frames[3]?.data, '{"oldest":"5"}')
})

/** Reads `stream`'s body to its end: the frames sent. */
async function framesOf(stream: EventStream): Promise<Frame[]> {
  let text = ''
  for await (const chunk of stream.body) text += chunk
  const frames: Frame[] = []
  parseFrames(text, frames)
  return frames
}

const task = (title: string): NewEvent => ({ type: 'tugas.created', subject: '1', data: { title } })

test('a stream opened without after is never sent an event published before it opened', async () => {
  const log = new MemoryEventLog(100)
  // Published, and not yet passed to the listeners (that waits for the next turn).
  log.publish(task('before'))
  const stream = streamOn(log, undefined)
  await stream.open()
  log.publish(task('after'))
  await new Promise((resolve) => setImmediate(resolve))
  stream.close()
  const events = (await framesOf(stream)).filter((frame) => frame.data !== undefined)
  assert.deepEqual(
    events.map((frame) => JSON.parse(frame.data as string).data.title),
    ['after'],
  )
})

test('a replay of 100,000 events leaves no close or error listener behind its waits for drain', async () => {
  const log = new MemoryEventLog(100_000)
  for (let n = 0; n < 100_000; n += 1) log.publish(task(`Tugas nomor ${n}`))
  const warnings: Error[] = []
  const warned = (warning: Error) => warnings.push(warning)
  process.on('warning', warned)
  const stream = streamOn(log, 0)
  await stream.open()
  const replayed = stream.replay()
  const listeners = () => stream.body.listenerCount('close') + stream.body.listenerCount('error')
  let most = 0
  let events = 0
  for await (const chunk of stream.body) {
    most = Math.max(most, listeners())
    events += (String(chunk).match(/^id: /gm) ?? []).length
    if (events >= 100_000) break
  }
  await replayed
  await new Promise((resolve) => setImmediate(resolve))
  process.off('warning', warned)
  assert.equal(events, 100_000)
  // The stream's own and the reader's, nothing per wait.
  assert.ok(most <= 6, `${most} close and error listeners`)
  assert.deepEqual(
    warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning'),
    [],
  )
})

test('events passed on during a replay count in bytes: past 1 MiB of UTF-8 they are read again', async () => {
  // 400,000 characters of three bytes each: under 1 MiB counted in UTF-16, over it in bytes.
  const wide = (id: number): StoredEvent => ({
    id,
    type: 'tugas.created',
    owner: undefined,
    json: JSON.stringify({ id: String(id), data: '€'.repeat(100_000) }),
  })
  let reads = 0
  let release: () => void = () => {}
  const released = new Promise<void>((resolve) => {
    release = resolve
  })
  const { log, pass } = fakeLog(
    {
      async after(after) {
        reads += 1
        if (reads === 1) await released
        return [1, 2, 3, 4].filter((id) => id > after).map(wide)
      },
      bounds: async () => ({ oldest: 1, newest: 0 }),
    },
    wide,
  )
  const stream = streamOn(log, 0)
  await stream.open()
  const replayed = stream.replay()
  pass(1, 2, 3, 4)
  release()
  const frames = framesOf(stream)
  await replayed
  stream.close()
  const ids = (await frames).filter((frame) => frame.data !== undefined).map((frame) => frame.id)
  assert.deepEqual(ids, ['1', '2', '3', '4'])
  // Held past 1 MiB of bytes: dropped, and the log read again for them.
  assert.ok(reads >= 2, `the log was read ${reads} time(s)`)
})
