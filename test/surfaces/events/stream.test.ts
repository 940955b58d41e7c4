// EventStream on a log whose ids jump: the events between were forgotten (EVENTS_RETAIN) before
// this process read them, which on PostgreSQL happens when the retained window is shorter than
// the read; the stream tells its client with a reset instead of leaving a silent hole.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { EventLog, StoredEvent } from '../../../src/surfaces/events/store.js'
import { EventStream } from '../../../src/surfaces/events/stream.js'
import { type Frame, parseFrames } from '../../support/sse.js'

function fakeLog() {
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
  }
  const event = (id: number): StoredEvent => ({
    id,
    type: 'tugas.created',
    owner: undefined,
    json: JSON.stringify({ id: String(id) }),
  })
  return { log, pass: (...ids: number[]) => listener(ids.map(event)) }
}

test('a jump in the ids a live stream is passed is sent as a reset before the next event', async () => {
  const { log, pass } = fakeLog()
  const stream = new EventStream({
    log,
    types: undefined,
    identity: undefined,
    after: undefined,
    heartbeatMs: 60_000,
    response: { waiting: () => 0, abort: () => {} },
  })
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
