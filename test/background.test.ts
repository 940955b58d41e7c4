// The background work's order: jobs started one after the other as given, closed in the reverse
// order, a job whose start failed closed with those before it and the rest never started.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Background, type Job } from '../src/background.js'

function job(name: string, seen: string[], fails = false): Job {
  return {
    async start() {
      seen.push(`start ${name}`)
      await new Promise((resolve) => setImmediate(resolve))
      if (fails) throw new Error(`${name} cannot start`)
    },
    async close() {
      seen.push(`close ${name}`)
    },
  }
}

test('started in order, each after the one before has started; closed in reverse, once', async () => {
  const seen: string[] = []
  const background = new Background([
    job('feed', seen),
    job('folds', seen),
    job('deliveries', seen),
  ])
  await background.start()
  await background.close()
  await background.close()
  assert.deepEqual(seen, [
    'start feed',
    'start folds',
    'start deliveries',
    'close deliveries',
    'close folds',
    'close feed',
  ])
})

test('a start that fails: thrown, the rest never started, the started ones and it closed', async () => {
  const seen: string[] = []
  const background = new Background([
    job('feed', seen),
    job('folds', seen, true),
    job('deliveries', seen),
  ])
  await assert.rejects(background.start(), /folds cannot start/)
  await background.close()
  assert.deepEqual(seen, ['start feed', 'start folds', 'close folds', 'close feed'])
})
