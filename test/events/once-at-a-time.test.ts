// The runner behind the sequencer's numbering and the webhooks' records: one run at a time,
// one more for any number of asks meanwhile, and that one no sooner than the gap after the
// start of the run before.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { OnceAtATime } from '../../src/events/once-at-a-time.js'

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms))

/** A runner with `gapMs` whose runs note when each started. */
function noting(gapMs: number) {
  const starts: number[] = []
  const once = new OnceAtATime(async () => {
    starts.push(performance.now())
  }, gapMs)
  return { once, starts }
}

test('asks while it runs make one more run, not one each', async () => {
  let runs = 0
  const once = new OnceAtATime(async () => {
    runs += 1
    await sleep(20)
  })
  once.ask()
  once.ask()
  once.ask()
  await once.idle()
  assert.equal(runs, 2)
})

test('the run after an ask meanwhile starts no sooner than the gap after the one before', async () => {
  const { once, starts } = noting(60)
  once.ask()
  once.ask()
  await once.idle()
  assert.equal(starts.length, 2)
  const [first, second] = starts as [number, number]
  assert.ok(second - first >= 55, `${Math.round(second - first)} ms apart`)
})

test('with no ask meanwhile there is no wait: the next ask runs at once', async () => {
  const { once, starts } = noting(1000)
  once.ask()
  await once.idle()
  const asked = performance.now()
  once.ask()
  await once.idle()
  assert.equal(starts.length, 2)
  assert.ok((starts[1] as number) - asked < 100, 'the second run waited for the gap')
})
