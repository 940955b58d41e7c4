// The Accept header (RFC 9110 section 12.5.1) and the two choices made from it: the task list
// version by media type (Part 2, Header versioning, rules 1 to 3) and the products version by the
// `version` parameter (Part 2, Products: "the text after `version=` up to the next semicolon,
// trimmed").
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { parseAccept } from '../../src/http/accept.js'
import { headerValue as acceptHeader } from '../../src/http/headers.js'
import { requestedVersion } from '../../src/surfaces/supporting/products/routes.js'
import { chooseVersion } from '../../src/surfaces/tugas/list-routes.js'

const V2 = 'application/vnd.tugas.v2+json'

/** A range as parseAccept gives it, parameters as a plain object for deepEqual. */
function plain(header: string | undefined) {
  return parseAccept(header).map(({ mediaType, parameters, q }) => ({
    mediaType,
    parameters: { ...parameters },
    q,
  }))
}

describe('parseAccept', () => {
  test('no header, an empty one, or only separators: no ranges', () => {
    assert.deepEqual(parseAccept(undefined), [])
    assert.deepEqual(parseAccept(''), [])
    assert.deepEqual(parseAccept('   '), [])
    assert.deepEqual(parseAccept(' , ,, '), [])
  })

  test('one range: type/subtype, no parameters, weight 1', () => {
    assert.deepEqual(plain('application/json'), [
      { mediaType: 'application/json', parameters: {}, q: 1 },
    ])
    assert.deepEqual(plain('*/*'), [{ mediaType: '*/*', parameters: {}, q: 1 }])
    assert.deepEqual(plain('application/*'), [{ mediaType: 'application/*', parameters: {}, q: 1 }])
  })

  test('a list keeps the order sent, whitespace around elements ignored', () => {
    assert.deepEqual(
      plain(' text/html ,application/xhtml+xml,  application/xml;q=0.9 , */*;q=0.8 '),
      [
        { mediaType: 'text/html', parameters: {}, q: 1 },
        { mediaType: 'application/xhtml+xml', parameters: {}, q: 1 },
        { mediaType: 'application/xml', parameters: {}, q: 0.9 },
        { mediaType: '*/*', parameters: {}, q: 0.8 },
      ],
    )
  })

  test('parameters: names and values, whitespace around them trimmed, q kept apart', () => {
    assert.deepEqual(plain('application/json;version=2'), [
      { mediaType: 'application/json', parameters: { version: '2' }, q: 1 },
    ])
    assert.deepEqual(plain('application/json ; charset=utf-8 ; version = 2 ; q=0.5'), [
      { mediaType: 'application/json', parameters: { charset: 'utf-8', version: '2' }, q: 0.5 },
    ])
    assert.deepEqual(plain('application/json;version= 2 '), [
      { mediaType: 'application/json', parameters: { version: '2' }, q: 1 },
    ])
    // An empty value is a value.
    assert.deepEqual(plain('application/json;version='), [
      { mediaType: 'application/json', parameters: { version: '' }, q: 1 },
    ])
  })

  test('quoted values: quotes removed, commas and semicolons inside them do not split', () => {
    assert.deepEqual(plain('application/json;version="2"'), [
      { mediaType: 'application/json', parameters: { version: '2' }, q: 1 },
    ])
    assert.deepEqual(plain('text/plain; a="x,y;z"; b=1, application/json;q=0.5'), [
      { mediaType: 'text/plain', parameters: { a: 'x,y;z', b: '1' }, q: 1 },
      { mediaType: 'application/json', parameters: {}, q: 0.5 },
    ])
    // A media type written inside a quoted value is not a range.
    assert.deepEqual(plain(`text/html; note="${V2}, application/json"`), [
      { mediaType: 'text/html', parameters: { note: `${V2}, application/json` }, q: 1 },
    ])
    // A backslash escapes the next character inside quotes, `\"` included.
    assert.deepEqual(plain('text/plain; a="say \\"hi, there\\""; b=2'), [
      { mediaType: 'text/plain', parameters: { a: 'say "hi, there"', b: '2' }, q: 1 },
    ])
  })

  test('q: 0 to 1 with up to three decimals; the name is case-insensitive', () => {
    const weight = (header: string) => parseAccept(header)[0]?.q
    assert.equal(weight('a/b;q=0'), 0)
    assert.equal(weight('a/b;q=0.'), 0)
    assert.equal(weight('a/b;q=0.000'), 0)
    assert.equal(weight('a/b;q=0.001'), 0.001)
    assert.equal(weight('a/b;q=0.5'), 0.5)
    assert.equal(weight('a/b;q=0.75'), 0.75)
    assert.equal(weight('a/b;q=1'), 1)
    assert.equal(weight('a/b;q=1.000'), 1)
    assert.equal(weight('a/b;Q=0'), 0)
    assert.equal(weight('a/b; q = 0.3 '), 0.3)
    // q is the weight, not a parameter.
    assert.deepEqual(parseAccept('a/b;q=0.5')[0]?.parameters, {})
  })

  test('an invalid weight is ignored: the weight stays 1', () => {
    for (const q of ['bad', '', '-1', '-0', '1.5', '2', '0.0001', '1.001', '.5', '1e-1', '0x1']) {
      const [range] = parseAccept(`application/json;q=${q}`)
      assert.equal(range?.q, 1, `q=${q}`)
      assert.equal(range?.mediaType, 'application/json', `q=${q}`)
    }
    assert.equal(parseAccept('application/json;q')[0]?.q, 1)
  })

  test('the media type and parameter names are lowercased; values are kept as sent', () => {
    assert.deepEqual(plain('Application/Vnd.Tugas.V2+JSON; Charset=UTF-8; VERSION=Two'), [
      { mediaType: V2, parameters: { charset: 'UTF-8', version: 'Two' }, q: 1 },
    ])
    assert.deepEqual(plain('TEXT/HTML'), [{ mediaType: 'text/html', parameters: {}, q: 1 }])
  })

  test('a malformed range is left out; the well-formed ones around it are kept', () => {
    for (const bad of [
      'json',
      'application',
      'application/',
      '/json',
      'application/json/extra',
      'appli cation/json',
      'application/js on',
      '"application/json"',
      ';q=1',
      '/',
      'application/json(x)',
    ]) {
      assert.deepEqual(plain(bad), [], bad)
      assert.deepEqual(
        plain(`text/html, ${bad}, application/json;q=0.2`).map((r) => r.mediaType),
        ['text/html', 'application/json'],
        bad,
      )
    }
  })

  test('malformed parameters are skipped, the range kept', () => {
    assert.deepEqual(plain('application/json;charset;version=2;=x;a b=1;;'), [
      { mediaType: 'application/json', parameters: { version: '2' }, q: 1 },
    ])
  })

  test('a parameter given twice keeps its first value', () => {
    assert.deepEqual(plain('application/json;version=1;version=2;Version=3'), [
      { mediaType: 'application/json', parameters: { version: '1' }, q: 1 },
    ])
  })

  test('__proto__ and other Object.prototype names are ordinary parameters', () => {
    const [range] = parseAccept('application/json;__proto__=x;constructor=y;version=2')
    assert.ok(range)
    const { parameters } = range
    assert.equal(Object.getPrototypeOf(parameters), Object.prototype)
    assert.ok(Object.hasOwn(parameters, '__proto__'))
    assert.equal(Object.getOwnPropertyDescriptor(parameters, '__proto__')?.value, 'x')
    assert.equal(parameters.constructor, 'y')
    assert.equal(parameters.version, '2')
    assert.deepEqual(Object.keys(parameters), ['__proto__', 'constructor', 'version'])
    // Nothing leaked into the prototype every object shares.
    assert.equal(({} as Record<string, unknown>).x, undefined)
    assert.equal(Object.hasOwn(Object.prototype, 'x'), false)
    assert.equal(requestedVersion('application/json;__proto__=2'), 'v1')
    assert.equal(requestedVersion('application/json;__proto__=1;version=2'), 'v2')
  })

  test('acceptHeader: several Accept lines read as one list', () => {
    assert.equal(acceptHeader(undefined), undefined)
    assert.equal(acceptHeader('text/html'), 'text/html')
    assert.deepEqual(
      parseAccept(acceptHeader(['text/html', `${V2};q=0.5`])).map((r) => [r.mediaType, r.q]),
      [
        ['text/html', 1],
        [V2, 0.5],
      ],
    )
  })
})

describe('chooseVersion: the task list version by Accept (Part 2 rules 1 to 3)', () => {
  const cases: [accept: string | undefined, expected: 'v1' | 'v2' | undefined][] = [
    // Rule 1: a range naming the v2 media type.
    [V2, 'v2'],
    ['APPLICATION/VND.TUGAS.V2+JSON', 'v2'],
    ['Application/Vnd.Tugas.V2+Json', 'v2'],
    [`${V2}; charset=utf-8`, 'v2'],
    [`${V2};version=1`, 'v2'],
    [`${V2};q=0.001`, 'v2'],
    [`${V2};q=bad`, 'v2'],
    [`text/html, ${V2}`, 'v2'],
    [`application/json, ${V2};q=0.1`, 'v2'],
    [`application/json;q=1, ${V2};q=0.5, */*`, 'v2'],
    [`${V2};q=0, ${V2}`, 'v2'],
    // Rule 2: otherwise a range whose media type contains `json`.
    ['application/json', 'v1'],
    ['application/json;version=2', 'v1'],
    ['application/json; charset=utf-8', 'v1'],
    ['APPLICATION/JSON', 'v1'],
    ['application/problem+json', 'v1'],
    ['text/json', 'v1'],
    ['application/vnd.tugas.v3+json', 'v1'],
    ['application/vnd.tugas.v1+json', 'v1'],
    ['text/html, application/json;q=0.1', 'v1'],
    [`${V2};q=0, application/json`, 'v1'],
    [`${V2};Q=0, application/json`, 'v1'],
    [`${V2};q=0.000, text/json`, 'v1'],
    ['*/*, application/json;q=0.2', 'v1'],
    // Rule 3: nothing names JSON.
    [undefined, undefined],
    ['', undefined],
    ['*/*', undefined],
    ['application/*', undefined],
    ['text/html', undefined],
    ['text/html, application/xml;q=0.9, */*;q=0.8', undefined],
    ['application/vnd.tugas.v2+xml', undefined],
    ['application/json;q=0', undefined],
    [`${V2};q=0`, undefined],
    [`${V2};q=0, application/json;q=0`, undefined],
    // `json` inside a quoted parameter value or a parameter is not a JSON media type.
    [`text/html; note="${V2}"`, undefined],
    ['text/html; note="a, application/json"', undefined],
    ['text/html;format=json', undefined],
    // Malformed ranges name nothing.
    ['json', undefined],
    ['application/json/x, text/html', undefined],
  ]
  for (const [accept, expected] of cases) {
    test(`${JSON.stringify(accept)} gives ${expected ?? 'none (406)'}`, () => {
      assert.equal(chooseVersion(accept), expected)
    })
  }
})

describe('requestedVersion: the products version by the Accept version parameter', () => {
  const cases: [accept: string | undefined, expected: 'v1' | 'v2'][] = [
    // Part 2's example.
    ['application/json;version=2', 'v2'],
    ['application/json; version=2', 'v2'],
    ['application/json;version= 2 ', 'v2'],
    ['application/json;version=2 ;charset=utf-8', 'v2'],
    ['application/json;charset=utf-8;version=2', 'v2'],
    ['application/json;Version=2', 'v2'],
    ['application/json;VERSION=2', 'v2'],
    ['application/json;version="2"', 'v2'],
    ['application/json;version=" 2 "', 'v2'],
    ['application/json;version=2;q=0.5', 'v2'],
    ['application/json;version=2;q=bad', 'v2'],
    ['*/*;version=2', 'v2'],
    ['APPLICATION/JSON;VERSION=2', 'v2'],
    // Any other value, or none: v1.
    [undefined, 'v1'],
    ['', 'v1'],
    ['*/*', 'v1'],
    ['application/json', 'v1'],
    ['text/html', 'v1'],
    ['application/json;version=1', 'v1'],
    ['application/json;version=', 'v1'],
    ['application/json;version=20', 'v1'],
    ['application/json;version=2.0', 'v1'],
    ['application/json;version=02', 'v1'],
    ['application/json;version=v2', 'v1'],
    ['application/json;version=two', 'v1'],
    ['application/json;versions=2', 'v1'],
    ['application/json;v=2', 'v1'],
    ['application/json;x-version=2', 'v1'],
    [`${V2}`, 'v1'],
    // A range of weight 0 is not acceptable: its version does not count.
    ['application/json;version=2;q=0', 'v1'],
    ['application/json;version=2;q=0.0', 'v1'],
    ['application/json;q=0;version=2', 'v1'],
    ['application/json;version=2;Q=0', 'v1'],
    // Several ranges: the first acceptable range that has a version parameter decides.
    ['application/json, application/json;version=2', 'v2'],
    ['text/html, application/json;version=2;q=0.1', 'v2'],
    ['application/json;version=1, application/json;version=2', 'v1'],
    ['application/json;version=2, application/json;version=1', 'v2'],
    ['application/json;version=2;q=0, application/json;version=1', 'v1'],
    ['application/json;version=1;q=0, application/json;version=2', 'v2'],
    ['application/json;version=2;q=0, application/json', 'v1'],
    // Quoted separators do not start a new parameter or range.
    ['application/json;note="a;version=1";version=2', 'v2'],
    ['application/json;note="x, text/plain;version=2"', 'v1'],
    ['application/json;note="x, y;version=1", text/plain;version=2', 'v2'],
    // The first value of a repeated parameter counts.
    ['application/json;version=2;version=1', 'v2'],
    ['application/json;version=1;version=2', 'v1'],
  ]
  for (const [accept, expected] of cases) {
    test(`${JSON.stringify(accept)} gives ${expected}`, () => {
      assert.equal(requestedVersion(accept), expected)
    })
  }
})
