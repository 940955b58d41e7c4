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
