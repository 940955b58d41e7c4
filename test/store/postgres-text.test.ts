import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { fromText, toText } from '../../src/store/postgres/text.js'

describe('text as PostgreSQL stores it', () => {
  test('every string comes back exactly, lone surrogates and U+0000 included', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary' }),
          fc.string({
            unit: fc.constantFrom('\\', '0', 'u', 'd', '8', '\u0000', '\ud800', '\udc00', 'a'),
          }),
        ),
        (value) => {
          const stored = toText(value)
          assert.ok(!stored.includes('\u0000'), 'no U+0000 is stored')
          assert.doesNotThrow(() => encodeURIComponent(stored), 'no unpaired surrogate is stored')
          assert.equal(fromText(stored), value)
        },
      ),
      { numRuns: 2000 },
    )
  })

  test('other text is stored as it is; equal strings stay equal, different ones different', () => {
    for (const value of ['Belajar REST', 'éclair 😀', '', 'a/b?c'])
      assert.equal(toText(value), value)
    assert.equal(toText('C:\\tugas'), 'C:\\\\tugas')
    assert.equal(toText('a\u0000b'), 'a\\0b')
    assert.equal(toText('a\ud800b'), 'a\\ud800b')
    assert.notEqual(toText('a\\0b'), toText('a\u0000b'))
    assert.notEqual(toText('\\ud800'), toText('\ud800'))
  })
})
