import assert from 'node:assert/strict'
import { test } from 'node:test'
import { releaseStartUpGarbage } from '../src/release-memory.js'

test('releaseStartUpGarbage collects, and leaves no gc() on the global object', () => {
  const garbage = Array.from({ length: 200_000 }, (_, i) => ({ i, text: `item ${i}` }))
  assert.equal(garbage.length, 200_000)
  garbage.length = 0
  releaseStartUpGarbage()
  releaseStartUpGarbage()
  assert.equal('gc' in globalThis, false)
})
