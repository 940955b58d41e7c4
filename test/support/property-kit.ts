// Shared pieces of the surfaces' property-based bad-input tests: body helpers, the
// prototype-pollution check, the request/answer plumbing, and the arbitraries the surfaces have
// in common. What each surface expects stays in its own test file.
import assert from 'node:assert/strict'
import type { IncomingMessage } from 'node:http'
import fc from 'fast-check'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'

// ---------------------------------------------------------------------------------------------
// Bodies and fields

/** The media type of a Content-Type header (RFC 9110 syntax), lowercased; undefined if none. */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined
  const token = "[\\w!#$%&'*+.^`|~-]+"
  const match = new RegExp(`^\\s*(${token}/${token})\\s*$`).exec(contentType.split(';', 1)[0] ?? '')
  return match?.[1]?.toLowerCase()
}

/** The body as the server reads it: the bytes sent, decoded as UTF-8. */
export function textOf(payload: string | Buffer | undefined): string {
  if (payload === undefined) return ''
  return (typeof payload === 'string' ? Buffer.from(payload) : payload).toString('utf8')
}

export function bytesOf(payload: string | Buffer | undefined): number {
  if (payload === undefined) return 0
  return typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Own fields only: a body's inherited members (`constructor`, `toString`) are not fields. */
export function own(body: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(body, name) ? body[name] : undefined
}

export function codePoints(text: string): number {
  return [...text].length
}

export function headersFor(type: string | undefined): Record<string, string> {
  return type === undefined ? {} : { 'content-type': type }
}

// ---------------------------------------------------------------------------------------------
// Prototype pollution

const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort()

/**
 * A check that nothing leaked into Object.prototype: none of `probeKeys` is inherited by a fresh
 * object, and Object.prototype has the same own names as when this module was loaded.
 */
export function pollutionCheck(probeKeys: readonly string[]): () => void {
  return () => {
    const probe = {} as Record<string, unknown>
    assert.equal(Object.getPrototypeOf(probe), Object.prototype)
    for (const key of probeKeys) {
      assert.equal(probe[key], undefined, `Object.prototype.${key} was polluted`)
    }
    assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), prototypeKeys)
  }
}

// ---------------------------------------------------------------------------------------------
// Requests, answers and the harness plumbing

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS'
export const METHODS: Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

export interface Sent {
  method: Method
  url: string
  contentType?: string | undefined
  payload?: string | Buffer | undefined
}

export interface Answer {
  statusCode: number
  headers: Record<string, unknown>
  body: string
}

/**
 * The URL of `response`'s request as the client sent it, after light-my-request's URL parser
 * (which may normalise dot segments, escape characters outside ASCII, drop a fragment): what the
 * models read. Not `req.url`: the service's `rewriteUrl` makes every undecodable segment literal
 * there (`/api/tugas/%zz` becomes `/api/tugas/%25zz`), and Fastify keeps the URL before the
 * rewrite in `req.originalUrl`. A model reading the rewritten URL would take the server's word
 * for how an undecodable segment is read.
 */
export function urlAsSent(response: LightMyRequestResponse, sentUrl: string): string {
  const req: IncomingMessage & { originalUrl?: string } = response.raw.req
  return req.originalUrl ?? req.url ?? sentUrl
}

/**
 * A path segment as the service reads it (docs/decisions.md#undecodable-path-segments):
 * percent-decoded, or, when it cannot be decoded (`%zz`, `%`, the invalid UTF-8 `%c0%ae`),
 * literally, the text that was sent. The router reads each segment alone: a broken escape in one
 * leaves the others decoded.
 */
export function segmentAsRead(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/** How a harness sends a request: `app.inject`, or `call` to check it against the document too. */
export type Injector = (
  app: FastifyInstance,
  options: InjectOptions & { url: string },
) => Promise<LightMyRequestResponse>

/** Sends `sent` through `send`; returns the answer and the URL as sent (see `urlAsSent`). */
export async function inject(
  app: FastifyInstance,
  sent: Sent,
  send: Injector = (target, options) => target.inject(options),
): Promise<{ answer: Answer; url: string }> {
  const response = await send(app, {
    method: sent.method,
    url: sent.url,
    headers: headersFor(sent.contentType),
    ...(sent.payload === undefined ? {} : { payload: sent.payload }),
  })
  const answer: Answer = {
    statusCode: response.statusCode,
    headers: response.headers,
    body: response.body,
  }
  return { answer, url: urlAsSent(response, sent.url) }
}

export function describeRequest(sent: Sent, url: string, answer: Answer, bodyChars: number) {
  const payload =
    sent.payload === undefined
      ? 'no body'
      : `body ${JSON.stringify(textOf(sent.payload).slice(0, 200))} (${bytesOf(sent.payload)} bytes)`
  return `${sent.method} ${sent.url} (received as ${url}; content-type ${JSON.stringify(
    sent.contentType,
  )}; ${payload}) answered ${answer.statusCode} ${JSON.stringify(answer.headers['content-type'])} ${answer.body.slice(0, bodyChars)}`
}

/**
 * The first of `outcomes` that `check` accepts; if none does, throws the failure of the one
 * with the answer's status, or else says which statuses were expected.
 */
export function matchOutcome<O extends { status: number }>(
  outcomes: O[],
  answer: Answer,
  what: string,
  check: (outcome: O) => void,
): O {
  const failures: unknown[] = []
  const matched = outcomes.find((outcome) => {
    try {
      check(outcome)
      return true
    } catch (error) {
      failures.push(error)
      return false
    }
  })
  if (matched === undefined) {
    const same = outcomes.findIndex(({ status }) => status === answer.statusCode)
    if (same >= 0) throw failures[same]
    assert.fail(`expected ${outcomes.map(({ status }) => status).join(' or ')}: ${what}`)
  }
  return matched
}

/** The answer with its body parsed, where it is JSON. */
export function withJson(answer: Answer): Answer & { json: unknown } {
  let json: unknown
  if (String(answer.headers['content-type']).startsWith('application/json')) {
    json = JSON.parse(answer.body)
  }
  return { ...answer, json }
}

export function parseJson(answer: Answer, what: string): unknown {
  assert.match(String(answer.headers['content-type']), /^application\/json/, `not JSON: ${what}`)
  try {
    return JSON.parse(answer.body)
  } catch {
    assert.fail(`body does not parse as JSON: ${what}`)
  }
}

/** An E3 body with exactly the key `error`; the caller checks the message. */
export function e3Body(answer: Answer, what: string): Record<string, unknown> {
  const body = parseJson(answer, what)
  assert.ok(isPlainObject(body), `E3 body is not an object: ${what}`)
  assert.deepEqual(Object.keys(body), ['error'], `E3 body must have exactly the key error: ${what}`)
  return body
}

/** Runs `run` with `app`, closes it, then checks for pollution. */
export async function withApp(
  app: FastifyInstance,
  run: () => Promise<void>,
  assertNotPolluted: () => void,
): Promise<void> {
  try {
    await run()
  } finally {
    await app.close()
  }
  assertNotPolluted()
}

// ---------------------------------------------------------------------------------------------
// Arbitraries

export const method = fc.constantFrom(...METHODS)

/** Ids as integers: near zero, and of any size. */
export const numericIds = [
  fc.integer({ min: -1000, max: 1000 }).map(String),
  fc.integer().map(String),
] as const

/**
 * The arbitrary `make` returns, made on first use: the same values from the same seed, the same
 * shrinking. The first string of unit `binary` fast-check makes in a process costs about a
 * second (it maps every code point back to its index); every test file imports this module
 * (helpers.ts and conformance.ts do), most of them to generate nothing.
 */
class Deferred<T> extends fc.Arbitrary<T> {
  #made: fc.Arbitrary<T> | undefined

  constructor(private readonly make: () => fc.Arbitrary<T>) {
    super()
  }

  get #arbitrary(): fc.Arbitrary<T> {
    this.#made ??= this.make()
    return this.#made
  }

  generate(mrng: fc.Random, biasFactor: number | undefined): fc.Value<T> {
    return this.#arbitrary.generate(mrng, biasFactor)
  }

  canShrinkWithoutContext(value: unknown): value is T {
    return this.#arbitrary.canShrinkWithoutContext(value)
  }

  shrink(value: T, context: unknown): fc.Stream<fc.Value<T>> {
    return this.#arbitrary.shrink(value, context)
  }
}

/** `fc.string({ unit: 'binary' })`, made on first use (see `Deferred`). */
export const binaryString = new Deferred(() => fc.string({ unit: 'binary' }))

/** Ids in the forms of integers that are not plain digits: zero-padded, signed, `+` escaped. */
export const SIGNED_IDS = ['0', '00', '007', '-0', '-1', '+1', '%2B1']

/** Ids that are numbers but not integers in digits, and one past every integer type. */
export const NOT_DIGIT_IDS = ['1.5', '1.0', '1e3', '1E3', '0x10', '99999999999999999999']

/** Ids on either side of the largest safe integer, and with a NUL or a space, escaped. */
export const EDGE_IDS = ['9007199254740991', '9007199254740992', '%00', '%20', '%201', '1%20']

/** Ids as any text, percent-encoded. */
export const encodedIds = [
  fc.string().map(encodeURIComponent),
  fc.string({ unit: 'grapheme' }).map(encodeURIComponent),
  binaryString.map(encodeURIComponent),
] as const

const digit = fc.constantFrom(...'0123456789')
const manyDigits = fc.string({ unit: digit, minLength: 90, maxLength: 500 })

/**
 * Ids of 90 to 500 characters (any length reaches its route, docs/decisions.md#ids-in-paths):
 * digits (past every integer range), digits with a sign, a small number zero-padded (its value
 * names an item), and any text, percent-encoded.
 */
export const longIds = [
  manyDigits,
  fc.tuple(fc.constantFrom('-', '+'), manyDigits).map(([sign, digits]) => sign + digits),
  fc
    .tuple(fc.integer({ min: 89, max: 499 }), fc.integer({ min: 0, max: 9 }))
    .map(([zeros, value]) => '0'.repeat(zeros) + value),
  fc.string({ minLength: 90, maxLength: 500 }).map(encodeURIComponent),
] as const

/** Escapes that cannot be percent-decoded: bad hex, cut short, invalid UTF-8, surrogates. */
export const BROKEN_ESCAPES = [
  '%',
  '%z',
  '%zz',
  '%g0',
  '%c0%ae',
  '%e0%a4%a',
  '%ff',
  '%80',
  '%ed%a0%80',
  '%f8%88%80%80%80',
]

/** One printable ASCII character that is no hex digit and keeps the path's shape. */
const nonHex = fc
  .string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 })
  .filter((char) => !/[0-9A-Fa-f/\\?#]/.test(char))

/**
 * Ids that cannot be percent-decoded: an encoded prefix, a broken escape, an encoded suffix
 * (one that cannot complete the escape: it starts with no hex digit).
 */
export const undecodableIds = fc
  .tuple(
    fc.oneof(fc.string({ maxLength: 8 }).map(encodeURIComponent), fc.integer().map(String)),
    fc.oneof(
      fc.constantFrom(...BROKEN_ESCAPES),
      fc.tuple(nonHex, nonHex).map(([a, b]) => `%${a}${b}`),
    ),
    fc
      .string({ maxLength: 8 })
      .map(encodeURIComponent)
      .filter((suffix) => !/^[0-9A-Fa-f]/.test(suffix)),
  )
  .map(([prefix, broken, suffix]) => prefix + broken + suffix)

/** Ids that are words, dot segments, or the names of the prototype machinery. */
export const ODD_IDS = ['NaN', 'Infinity', '__proto__', 'constructor', '..', '.']

/** Paths below an item: `${prefix}/<id>/<any text>`. */
export function belowItem(prefix: string, id: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .tuple(id, fc.string({ minLength: 1 }))
    .map(([value, text]) => `${prefix}/${value}/${encodeURIComponent(text)}`)
}

/** A Content-Type from `types`, or any ASCII text. */
export function contentTypeFrom(...types: (string | undefined)[]) {
  return fc.oneof(fc.constantFrom(...types), fc.string({ unit: 'grapheme-ascii' }))
}

/** Content types that are JSON or nearly so, parameters and case included. */
export const JSONISH_TYPES = [
  undefined,
  'application/json',
  'application/json; charset=utf-8',
  'application/json;charset=UTF-8',
  'APPLICATION/JSON',
  'application/json;',
  'application/merge-patch+json',
]

/** Content types that look like JSON but are not, and plain text. */
export const NEAR_JSON_TYPES = [
  'application/jsonx',
  'application/json garbage',
  'application/json, text/plain',
  'text/plain',
]

/** Content types that are plainly something else, empty, or broken. */
export const OTHER_TYPES = [
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  '',
  ' ',
  ';',
  '/',
  'undefined',
]

export const jsonContentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'Application/JSON',
)

/** Keys that name fields (`keys`), or any short text. */
export function trickyKeyFrom(...keys: string[]): fc.Arbitrary<string> {
  return fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 8 }))
}

/** One `"key":value` member of JSON text (a value JSON cannot hold becomes null). */
export const entryText = ([key, value]: [string, unknown]) =>
  `${JSON.stringify(key)}:${JSON.stringify(value) ?? 'null'}`

/**
 * JSON text of an object with tricky keys, written by hand so `__proto__` is an ordinary key in
 * the text and keys may repeat (JSON.parse keeps the last).
 */
export function trickyObjectTextOf(
  key: fc.Arbitrary<string>,
  value: fc.Arbitrary<unknown>,
): fc.Arbitrary<string> {
  return fc
    .array(fc.tuple(key, value), { maxLength: 6 })
    .map((entries) => `{${entries.map(entryText).join(',')}}`)
}

/** JSON text of any JSON value. */
export const jsonValueText = fc.jsonValue().map((value) => JSON.stringify(value))

/** JSON text of any object. */
export const objectText = fc.object().map((value) => JSON.stringify(value) ?? 'null')

/**
 * Bodies that are anything at all, usually not JSON; `field` names the field in the broken
 * JSON and form samples, `textMax` bounds the binary-ASCII text, `bytesMax` the raw bytes.
 */
export function rawBodyOf(
  field: string,
  { textMax, bytesMax }: { textMax?: number; bytesMax: number },
): fc.Arbitrary<string | Buffer> {
  return fc.oneof(
    fc.string(),
    fc.string({ unit: 'grapheme' }),
    fc.string({ unit: 'binary' }),
    fc.string(
      textMax === undefined
        ? { unit: 'binary-ascii' }
        : { unit: 'binary-ascii', maxLength: textMax },
    ),
    fc.json().map((text) => text.slice(0, Math.max(0, text.length - 1))),
    fc.constantFrom(
      '',
      ' ',
      'null',
      '{',
      '[',
      '"',
      `{"${field}":`,
      `${field}=abc`,
      '\u0000',
      '\ufeff{}',
    ),
    fc.uint8Array({ maxLength: bytesMax }).map((bytes) => Buffer.from(bytes)),
  )
}

/** No body (one time in five), or a JSON or raw one. */
export function anyBodyOf(
  jsonBody: fc.Arbitrary<string>,
  rawBody: fc.Arbitrary<string | Buffer>,
): fc.Arbitrary<string | Buffer | undefined> {
  return fc.option(fc.oneof(jsonBody, rawBody), { nil: undefined, freq: 5 })
}

// ---------------------------------------------------------------------------------------------
// Conditional requests: If-Match and If-None-Match values

/** One member of a generated list: the item's current tag, another tag, or an empty member. */
interface TagMember {
  kind: 'current' | 'other' | 'empty'
  weak: boolean
  /** White space around the member. */
  before: string
  after: string
}

/**
 * The shape of an `If-Match` / `If-None-Match` value, written out once the item's current tag is
 * known (`conditionValue`): `*`; a list of tags around it; such a list broken (a member without
 * quotes, `w/`, `*` among tags, a space inside the quotes, two tags without a comma); or any text.
 */
export type ConditionShape =
  | { form: 'any'; before: string; after: string }
  | { form: 'list'; members: TagMember[] }
  | { form: 'broken'; members: TagMember[]; breakage: number; at: number }
  | { form: 'text'; text: string }

const ows = fc.constantFrom('', ' ', '\t', '  ')
const tagMember = fc.record(
  {
    kind: fc.constantFrom('current' as const, 'other' as const, 'empty' as const),
    weak: fc.boolean(),
    before: ows,
    after: ows,
  },
  { noNullPrototype: true },
)

export const conditionShape: fc.Arbitrary<ConditionShape> = fc.oneof(
  fc.record({ form: fc.constant('any' as const), before: ows, after: ows }),
  fc.record({ form: fc.constant('list' as const), members: fc.array(tagMember, { maxLength: 5 }) }),
  fc.record({
    form: fc.constant('broken' as const),
    members: fc.array(tagMember, { maxLength: 4 }),
    breakage: fc.nat(),
    at: fc.nat(),
  }),
  fc.record({
    form: fc.constant('text' as const),
    text: fc.oneof(
      fc.string({ unit: 'grapheme-ascii', maxLength: 30 }),
      fc.string({
        unit: fc.constantFrom('"', 'W', '/', ',', ' ', '*', 'a', '\u00ff'),
        maxLength: 20,
      }),
    ),
  }),
)

/** A condition value written out, with what it says of the current tag where that is known. */
export interface ConditionValue {
  value: string
  /** If-Match holds: `*`, or the current tag by the strong comparison. Undefined: any text. */
  strong: boolean | undefined
  /** If-None-Match matches: `*`, or the current tag by the weak comparison. */
  weak: boolean | undefined
}

const OTHER_OPAQUE = '"AAAAAAAAAAAAAAAAAAAAAA"'

/** Ways to break a list of tags; each makes the whole value invalid, so it matches nothing. */
const BREAKAGES = [
  (tag: string) => tag.slice(1, -1),
  (tag: string) => `w/${tag}`,
  // `*` alone is valid: among tags it is not.
  () => `*,${OTHER_OPAQUE}`,
  () => '"a b"',
  (tag: string) => `${tag} ${OTHER_OPAQUE}`,
  (tag: string) => `W/ ${tag}`,
]

/** `shape` written out around `tag`, the item's current strong tag. */
export function conditionValue(shape: ConditionShape, tag: string): ConditionValue {
  const member = ({ kind, weak, before, after }: TagMember) =>
    kind === 'empty'
      ? before
      : `${before}${weak ? 'W/' : ''}${kind === 'current' ? tag : OTHER_OPAQUE}${after}`
  const holds = (members: TagMember[], strong: boolean) =>
    members.some((m) => m.kind === 'current' && (!strong || !m.weak))
  switch (shape.form) {
    case 'any':
      return { value: `${shape.before}*${shape.after}`, strong: true, weak: true }
    case 'list':
      return {
        value: shape.members.map(member).join(','),
        strong: holds(shape.members, true),
        weak: holds(shape.members, false),
      }
    case 'broken': {
      const parts = shape.members.map(member)
      const broken = BREAKAGES[shape.breakage % BREAKAGES.length] as (tag: string) => string
      parts.splice(shape.at % (parts.length + 1), 0, broken(tag))
      return { value: parts.join(','), strong: false, weak: false }
    }
    case 'text':
      return { value: shape.text, strong: undefined, weak: undefined }
  }
}
