// Entity tags and the If-Match / If-None-Match fields (RFC 9110 8.8.3, 13.1.1, 13.1.2), as
// src/http/conditional.ts reads and compares them.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import {
  type EntityTag,
  ifMatchHolds,
  ifNoneMatchMatches,
  parseEntityTags,
  strongTag,
} from '../../src/http/conditional.js'

describe('strongTag', () => {
  test('a quoted 22-character base64url hash, the same for the same text, another for another', () => {
    const tag = strongTag('{"id":1}')
    assert.match(tag, /^"[A-Za-z0-9_-]{22}"$/)
    assert.equal(strongTag('{"id":1}'), tag)
    assert.notEqual(strongTag('{"id":1} '), tag)
    assert.notEqual(strongTag(''), tag)
    // The text's UTF-8 is hashed. The serializers escape a lone surrogate (six characters,
    // `\ud800`), so two representations never share their bytes through U+FFFD.
    assert.notEqual(strongTag('"\\ud800"'), strongTag('"\ufffd"'))
  })
})

describe('parseEntityTags', () => {
  const strong = (opaque: string): EntityTag => ({ weak: false, opaque })
  const weak = (opaque: string): EntityTag => ({ weak: true, opaque })

  test('*, one tag, weak tags, lists with white space and empty members', () => {
    assert.equal(parseEntityTags('*'), '*')
    assert.equal(parseEntityTags(' \t* '), '*')
    assert.deepEqual(parseEntityTags('"a"'), [strong('"a"')])
    assert.deepEqual(parseEntityTags('W/"a"'), [weak('"a"')])
    assert.deepEqual(parseEntityTags('"a", W/"b" ,"c"'), [
      strong('"a"'),
      weak('"b"'),
      strong('"c"'),
    ])
    assert.deepEqual(parseEntityTags(' , "a",, ,\t"b" ,'), [strong('"a"'), strong('"b"')])
    assert.deepEqual(parseEntityTags('""'), [strong('""')])
    assert.deepEqual(parseEntityTags('W/""'), [weak('""')])
  })

  test('a comma or W/ inside the quotes belongs to the tag', () => {
    assert.deepEqual(parseEntityTags('"a,b", "W/c"'), [strong('"a,b"'), strong('"W/c"')])
    assert.deepEqual(parseEntityTags('"*"'), [strong('"*"')])
  })

  test('no members at all (an empty value, commas only) is the empty list', () => {
    assert.deepEqual(parseEntityTags(''), [])
    assert.deepEqual(parseEntityTags('  '), [])
    assert.deepEqual(parseEntityTags(',, ,'), [])
  })

  test('obs-text (bytes 0x80 to 0xFF as Node reads them) may be inside the quotes', () => {
    assert.deepEqual(parseEntityTags('"caf\u00e9"'), [strong('"caf\u00e9"')])
  })

  test('anything else is not a valid value', () => {
    for (const value of [
      'a',
      '"a',
      'a"',
      '"a"b',
      '"a" "b"',
      '"a"W/"b"',
      'w/"a"',
      'W/ "a"',
      'W/a',
      'W/',
      '*, "a"',
      '"a", *',
      '**',
      '"a b"',
      '"a\tb"',
      '"a\u0000b"',
      '"a\u007fb"',
      '"a""b"',
      "'a'",
      '"\u0100"',
      '"😀"',
    ]) {
      assert.equal(parseEntityTags(value), undefined, JSON.stringify(value))
    }
  })

  // What a list is made of, to render it in any of the allowed ways and parse it back.
  const etagc = fc.oneof(
    fc.constantFrom('A', 'z', '0', '-', '_', ',', '/', 'W', '*', '!', '#', '~', '\u0080', '\u00ff'),
    fc.integer({ min: 0x23, max: 0x7e }).map((code) => String.fromCharCode(code)),
  )
  const entityTag = fc
    .tuple(fc.boolean(), fc.string({ unit: etagc, maxLength: 12 }))
    .map(([weak, inner]): EntityTag => ({ weak, opaque: `"${inner}"` }))
  const ows = fc.constantFrom('', ' ', '\t', '  ', ' \t')
  const member = fc.tuple(fc.option(entityTag, { nil: undefined }), ows, ows)

  test('any list of tags, written with any white space and empty members, reads back as itself', () => {
    fc.assert(
      fc.property(fc.array(member, { maxLength: 8 }), (members) => {
        const text = members
          .map(([tag, before, after]) =>
            tag === undefined ? before : `${before}${tag.weak ? 'W/' : ''}${tag.opaque}${after}`,
          )
          .join(',')
        const tags = members.flatMap(([tag]) => (tag === undefined ? [] : [tag]))
        assert.deepEqual(parseEntityTags(text), tags, JSON.stringify(text))
      }),
      { numRuns: 500 },
    )
  })

  test('any text at all: no throw; a list that parses reads back the same written plainly', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: etagc })),
        (text) => {
          const parsed = parseEntityTags(text)
          if (parsed === undefined || parsed === '*') return
          const plain = parsed.map((tag) => `${tag.weak ? 'W/' : ''}${tag.opaque}`).join(', ')
          assert.deepEqual(parseEntityTags(plain), parsed)
        },
      ),
      { numRuns: 500 },
    )
  })
})

describe('If-Match: the strong comparison', () => {
  const tag = strongTag('x')
  test('holds for *, the tag, or a list holding the tag', () => {
    for (const field of ['*', tag, `"a", ${tag}`, `W/"a", ${tag}, W/${tag}`, ` ${tag} `]) {
      assert.equal(ifMatchHolds(field, tag), true, field)
    }
  })
  test('fails for the weak tag, other tags, the empty list, and a value that is not a list', () => {
    for (const field of [`W/${tag}`, '"a"', '', ',', `${tag}, *`, tag.slice(1, -1), `w/${tag}`]) {
      assert.equal(ifMatchHolds(field, tag), false, field)
    }
  })
})

describe('If-None-Match: the weak comparison', () => {
  const tag = strongTag('x')
  test('matches *, the tag, its weak form, or a list holding either', () => {
    for (const field of ['*', tag, `W/${tag}`, `"a", W/${tag}`, `W/"a",${tag}`]) {
      assert.equal(ifNoneMatchMatches(field, tag), true, field)
    }
  })
  test('does not match other tags, the empty list, or a value that is not a list', () => {
    for (const field of ['"a"', 'W/"a"', '', ',', `${tag}, *`, tag.slice(1, -1), `w/${tag}`]) {
      assert.equal(ifNoneMatchMatches(field, tag), false, field)
    }
  })
})
