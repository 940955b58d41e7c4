import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { codePointLength, field, isPlainObject } from '../../src/text.js'

describe('codePointLength', () => {
  test('counts code points, not UTF-16 units or bytes', () => {
    assert.equal(codePointLength(''), 0)
    assert.equal(codePointLength('abc'), 3)
    assert.equal(codePointLength('é'), 1)
    assert.equal(codePointLength('😀'), 1)
    assert.equal(codePointLength('a😀b😀'), 4)
    assert.equal(codePointLength('👍🏽'), 2, 'an emoji with a skin tone is two code points')
    assert.equal(codePointLength('😀'.repeat(80)), [...'😀'.repeat(80)].length)
  })

  test('a lone surrogate is one code point, as the spread operator counts it', () => {
    for (const text of ['\ud800', '\udc00', 'a\ud83d', '\ud83d\ud83d\ude00', '\ude00\ud83d']) {
      assert.equal(codePointLength(text), [...text].length, JSON.stringify(text))
    }
  })
})

describe('body helpers', () => {
  test('isPlainObject: objects only, not arrays or null', () => {
    assert.equal(isPlainObject({}), true)
    assert.equal(isPlainObject([]), false)
    assert.equal(isPlainObject(null), false)
    assert.equal(isPlainObject('x'), false)
  })

  test('field reads own properties only', () => {
    const parsed = JSON.parse('{"__proto__": {"title": "inherited"}, "status": "belum"}')
    assert.equal(field(parsed, 'title'), undefined)
    assert.equal(field(parsed, 'status'), 'belum')
    assert.equal(field({}, 'constructor'), undefined)
    assert.equal(field({}, 'toString'), undefined)
  })
})
