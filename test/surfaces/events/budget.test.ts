// EVENTS_BUFFER_BYTES: the bytes waiting for every stream of a process together. Past it, the
// streams holding the most are dropped; what a stream said it held is asked again first, since
// its client may have read since.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { type Holder, StreamBudget } from '../../../src/surfaces/events/budget.js'

function holder(name: string, holding: number, dropped: string[]) {
  const one = {
    holding,
    drop: () => dropped.push(name),
  } satisfies Holder
  return one
}

/** The check a note past the limit asks for, on the next turn of the event loop. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

test('past the limit the streams holding the most are dropped, to under seven eighths of it', async () => {
  const dropped: string[] = []
  const budget = new StreamBudget(1000)
  const small = holder('small', 100, dropped)
  const middle = holder('middle', 400, dropped)
  const large = holder('large', 450, dropped)
  for (const one of [small, middle, large]) budget.note(one, one.holding)
  assert.deepEqual(dropped, [])
  const larger = holder('larger', 500, dropped)
  budget.note(larger, larger.holding)
  assert.deepEqual(dropped, [])
  await nextTurn()
  // 1,450 in all: the largest goes, 950 is still over 875, so the next largest too.
  assert.deepEqual(dropped, ['larger', 'large'])
  assert.equal(budget.total, 500)
})

test('what a stream said it held is asked again before any is dropped', async () => {
  const dropped: string[] = []
  const budget = new StreamBudget(1000)
  const reader = holder('reader', 900, dropped)
  budget.note(reader, reader.holding)
  // Its client has read since.
  reader.holding = 0
  const other = holder('other', 500, dropped)
  budget.note(other, other.holding)
  await nextTurn()
  assert.deepEqual(dropped, [])
  assert.equal(budget.total, 500)
})

test('a stream gone no longer counts', async () => {
  const dropped: string[] = []
  const budget = new StreamBudget(1000)
  const gone = holder('gone', 900, dropped)
  budget.note(gone, gone.holding)
  budget.forget(gone)
  const other = holder('other', 900, dropped)
  budget.note(other, other.holding)
  await nextTurn()
  assert.deepEqual(dropped, [])
  assert.equal(budget.total, 900)
})
