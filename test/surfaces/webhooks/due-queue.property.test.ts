// The pending deliveries' due-time index: after any run of adds, removals and reschedules, the
// first due are those a plain sort of the items gives, and asking for them changes nothing.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { type Due, DueQueue } from '../../../src/surfaces/webhooks/due-queue.js'

const step = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), dueAt: fc.integer({ min: 0, max: 20 }) }),
  fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }),
  fc.record({
    kind: fc.constant('reschedule' as const),
    pick: fc.nat(),
    dueAt: fc.integer({ min: 0, max: 20 }),
  }),
  fc.record({
    kind: fc.constant('firstDue' as const),
    now: fc.integer({ min: 0, max: 20 }),
    count: fc.integer({ min: 0, max: 8 }),
  }),
)

const soonest = (a: Due, b: Due) => a.dueAt - b.dueAt || a.key - b.key

test('the first due are those a sort gives, soonest then first queued', () => {
  fc.assert(
    fc.property(fc.array(step, { maxLength: 80 }), (steps) => {
      const queue = new DueQueue<Due>()
      const model: Due[] = []
      let nextKey = 1
      for (const one of steps) {
        if (one.kind === 'add') {
          const item = { key: nextKey++, dueAt: one.dueAt }
          queue.add(item)
          model.push(item)
        } else if (one.kind === 'firstDue') {
          const expected = model
            .filter((item) => item.dueAt <= one.now)
            .sort(soonest)
            .slice(0, one.count)
          assert.deepEqual(queue.firstDue(one.now, one.count), expected)
          assert.deepEqual(queue.firstDue(one.now, one.count), expected)
        } else if (model.length > 0) {
          const item = model[one.pick % model.length] as Due
          if (one.kind === 'remove') {
            queue.remove(item)
            model.splice(model.indexOf(item), 1)
          } else queue.reschedule(item, one.dueAt)
        }
        assert.equal(queue.size, model.length)
      }
      assert.deepEqual([...queue.items()].sort(soonest), [...model].sort(soonest))
      assert.deepEqual(queue.firstDue(Number.POSITIVE_INFINITY, model.length), model.sort(soonest))
    }),
    { numRuns: 300 },
  )
})
