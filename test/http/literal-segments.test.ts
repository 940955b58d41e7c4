import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { literalUndecodableSegments } from '../../src/server/literal-segments.js'

describe('literalUndecodableSegments', () => {
  test('a URL that decodes, or has no escape at all, is returned as it is', () => {
    for (const url of ['/', '/tugas/1', '/tugas/%41', '/a%2Fb/c%20d?x=%zz', '/%e2%82%ac', '*']) {
      assert.equal(literalUndecodableSegments(url), url)
    }
  })

  test('each segment that cannot be decoded has its % made literal, so it decodes to itself', () => {
    const cases: [string, string][] = [
      ['/todos/%', '/todos/%25'],
      ['/todos/%zz', '/todos/%25zz'],
      ['/todos/%c0%ae', '/todos/%25c0%25ae'],
      ['/api/tugas/%41%zz', '/api/tugas/%2541%25zz'],
      ['/pesanan/%zz/bayar', '/pesanan/%25zz/bayar'],
      ['/%41/%zz/%42', '/%41/%25zz/%42'],
    ]
    for (const [url, literal] of cases) {
      assert.equal(literalUndecodableSegments(url), literal)
      const segments = literal.split('/').map(decodeURIComponent)
      assert.deepEqual(
        segments.filter((_, i) => url.split('/')[i] !== literal.split('/')[i]),
        url.split('/').filter((segment, i) => segment !== literal.split('/')[i]),
      )
    }
  })

  test('the query string and fragment are left as they are', () => {
    assert.equal(literalUndecodableSegments('/todos/%zz?q=%zz'), '/todos/%25zz?q=%zz')
    assert.equal(literalUndecodableSegments('/todos/%zz#%zz'), '/todos/%25zz#%zz')
    assert.equal(literalUndecodableSegments('/todos/%zz#a?%zz'), '/todos/%25zz#a?%zz')
  })

  test('an absolute-form target keeps its scheme and authority', () => {
    assert.equal(
      literalUndecodableSegments('http://localhost/todos/%zz'),
      'http://localhost/todos/%25zz',
    )
  })
})
