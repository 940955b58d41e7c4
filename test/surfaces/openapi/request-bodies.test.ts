// Every request body /openapi.json describes is one a tool can build requests from as is
// (docs/openapi.md#request-bodies), in each of the 24 configurations of test/support/variants.ts:
// - every operation with a body has an example, valid against its schema, and the service
//   answers that example, sent in document order to a fresh demo service, with the lowest
//   success the operation documents (the demo data's task 1; B's and C's item 1 is their
//   create's example);
// - the schema states exactly the rule the service checks: random bodies (padded, blank and long
//   text, astral characters and lone surrogates, nulls, wrong types, numbers around the bounds,
//   missing and extra fields) are accepted by the service (2xx; POST /users' 409 for a taken
//   email passed the body rules) exactly when the schema, read by Ajv with its formats, says
//   valid (but for the rules no JSON Schema states: see `accepted`). A mismatch prints the
//   body.
// Configurations that add no new body operation are left out of the sending (TUGAS_VERSIONING
// and PRODUK_VERSIONING change no body); every answer is also checked against the document.
import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { isDeepStrictEqual } from 'node:util'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import fc from 'fast-check'
import { replayViolations } from '../../../src/surfaces/webhooks/rules.js'
import {
  type BodyOperation,
  bodyOperations,
  type Configuration,
  distinctBodyOperations,
  freshApp,
  nameOf,
  sending,
} from '../../support/body-operations.js'
import { pointerToken } from '../../support/conformance.js'
import { call } from '../../support/helpers.js'

type Json = Record<string, unknown>

/** Runs of each operation's property: about 2,000 requests in all, a few seconds. */
const RUNS = 150

/** The validators of one document's body schemas, Ajv's formats (`date`) included. */
function validators(document: Json): (operation: BodyOperation) => ValidateFunction {
  const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false })
  addFormats.default(ajv)
  ajv.addSchema(document, 'document')
  return ({ schemaPointer }) =>
    ajv.compile({ $ref: `document#/${schemaPointer.map(pointerToken).join('/')}` })
}

const errorsOf = (validate: ValidateFunction) =>
  (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message}`).join('; ')

let documents: Json[] = []
let configurations: Configuration[] = []

before(async () => {
  documents = []
  configurations = await distinctBodyOperations(documents)
})

describe('every request body has an example the service accepts', () => {
  test('in all 24 configurations, each body operation has an example valid against its schema', () => {
    assert.equal(documents.length, 24)
    for (const document of documents) {
      const validate = validators(document)
      for (const operation of bodyOperations(document)) {
        assert.notEqual(operation.example, undefined, `${operation.name} has no example`)
        const check = validate(operation)
        assert.ok(check(operation.example), `${operation.name} example: ${errorsOf(check)}`)
      }
    }
  })

  test('sent in document order to a fresh service, each example gets the documented success', async (t) => {
    assert.ok(configurations.length > 1)
    for (const configuration of configurations) {
      await t.test(nameOf(configuration.variants), async () => {
        const app = await freshApp(configuration)
        for (const operation of bodyOperations(configuration.document)) {
          const answer = await call(app, sending(operation, operation.example))
          const sent = `${operation.name} ${JSON.stringify(operation.example)}`
          assert.equal(answer.statusCode, operation.success, `${sent} answered ${answer.body}`)
        }
      })
    }
  })
})

// ---------------------------------------------------------------------------------------------
// Random bodies, shaped by the schema they are sent against

/** White space String.prototype.trim removes (`\s`), in and outside ASCII. */
const SPACES = [' ', '\t', '\n', '\r', '\v', '\f', '\u00a0', '\u2028', '\u3000', '\ufeff']
/**
 * Characters that are not white space: of 1 to 4 bytes of UTF-8, lone surrogates (3 bytes, one
 * code point each), a zero-width space (not `\s`), NUL, an at-sign.
 */
const CHARS = [
  'a',
  'Z',
  '7',
  '@',
  '.',
  'é',
  'ß',
  '中',
  '€',
  '😀',
  '\ud800',
  '\udc00',
  '\u200b',
  '\0',
]

const space = fc.constantFrom(...SPACES)
const char = fc.constantFrom(...CHARS)
/** Any code point, a lone surrogate too (fast-check's unit `binary` costs a second to set up). */
const anyCodePoint = fc.integer({ min: 0, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp))
/** No padding two times in three, else 1 to 3 spaces. */
const padding = fc.oneof(
  { weight: 2, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.string({ unit: space, minLength: 1, maxLength: 3 }) },
)

/** The lengths worth trying for a string schema: around each bound it states, and short ones. */
function lengthsOf(schema: Json): number[] {
  const quantified = [...String(schema.pattern ?? '').matchAll(/\{(\d+),(\d*)\}/g)]
    .flatMap((match) => match.slice(1))
    .filter((bound) => bound !== '')
  const bounds = [schema.minLength, schema.maxLength, ...quantified].filter(
    (bound) => bound !== undefined,
  )
  return [
    ...new Set(
      bounds
        .flatMap((bound) => [-1, 0, 1, 2, 3].map((d) => Number(bound) + d))
        .filter((n) => n >= 0),
    ),
  ]
}

/**
 * Text around a string schema's bounds, padded or not, blank, of any characters; a date or an
 * email, mostly where the schema asks for one.
 */
function textFor(schema: Json): fc.Arbitrary<string> {
  const length = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(0, ...lengthsOf(schema)) },
    { weight: 1, arbitrary: fc.nat({ max: 6 }) },
  )
  const core = fc.oneof(
    fc.tuple(char, length).map(([c, n]) => c.repeat(n)),
    fc.string({ unit: fc.oneof(char, space), maxLength: 12 }),
    fc.tuple(char, length, char).map(([a, n, b]) => `${a}${' '.repeat(Math.max(0, n - 2))}${b}`),
    fc.string({ unit: anyCodePoint, maxLength: 6 }),
  )
  const year = fc.nat({ max: 2400 }).map((y) => String(y).padStart(4, '0'))
  const twoDigits = (max: number) => fc.nat({ max }).map((n) => String(n).padStart(2, '0'))
  const date = fc.oneof(
    fc.tuple(year, twoDigits(13), twoDigits(32)).map((parts) => parts.join('-')),
    year.map((y) => `${y}-02-29`),
  )
  const email = fc.tuple(core, core).map(([local, domain]) => `${local}@${domain}`)
  const typical =
    schema.format === 'date' ? date : String(schema.pattern ?? '').includes('@') ? email : core
  const text = fc.oneof(
    { weight: 3, arbitrary: typical },
    { weight: 1, arbitrary: fc.oneof(core, date, email, fc.constant('')) },
  )
  return fc.tuple(padding, text, padding).map((parts) => parts.join(''))
}

/** Numbers in and around the range a number schema states, and any number. */
function numberFor(schema: Json): fc.Arbitrary<number> {
  const minimum = typeof schema.minimum === 'number' ? schema.minimum : -10
  const maximum = typeof schema.maximum === 'number' ? schema.maximum : 10
  const near = [minimum, maximum].flatMap((n) => [n - 1, n - 0.5, n, n + 1])
  return fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: minimum, max: Math.min(maximum, minimum + 20) }) },
    { weight: 2, arbitrary: fc.constantFrom(0, -1, 2.5, 1e21, ...near) },
    { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  )
}

const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, 1, '', 'teks', [], {}, ['teks'], { a: 1 }),
  fc.string({ maxLength: 6 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
)

const typesOf = (schema: Json): string[] => [schema.type ?? []].flat() as string[]

/** Mostly values of the field's own type (its enum, its bounds), else anything at all. */
function valueFor(schema: Json): fc.Arbitrary<unknown> {
  const types = typesOf(schema)
  const own: fc.Arbitrary<unknown>[] = []
  if (Array.isArray(schema.enum)) {
    own.push(fc.constantFrom(...schema.enum, ...schema.enum.map((v) => String(v).toUpperCase())))
  } else if (types.includes('string')) own.push(textFor(schema))
  if (types.includes('integer') || types.includes('number')) own.push(numberFor(schema))
  if (types.includes('boolean')) own.push(fc.boolean())
  if (types.includes('null')) own.push(fc.constant(null))
  return own.length === 0
    ? anyValue
    : fc.oneof({ weight: 4, arbitrary: fc.oneof(...own) }, { weight: 1, arbitrary: anyValue })
}

/** The schema `schema` refers to (`$ref` into `document`), or itself. */
function resolved(schema: unknown, document: Json): Json {
  const ref = (schema as Json)?.$ref
  if (typeof ref !== 'string') return (schema ?? {}) as Json
  return ref
    .slice(2)
    .split('/')
    .reduce<Json>(
      (at, token) => at[token.replaceAll('~1', '/').replaceAll('~0', '~')] as Json,
      document,
    )
}

/** Field names that are in no body schema: ignored wherever they are sent. */
const EXTRA_FIELDS = ['extra', 'id', 'password', 'selesai', 'catatan']

/**
 * Bodies for the schema of `operation`: objects with each field left out one time in eight, and
 * sometimes an extra field; or a value that is not an object.
 */
function bodiesFor(operation: BodyOperation, document: Json): fc.Arbitrary<unknown> {
  const schema = resolved(
    operation.schemaPointer.reduce<unknown>((at, key) => (at as Json)[key], document),
    document,
  )
  const properties = (schema.properties ?? {}) as Record<string, unknown>
  const fields = Object.entries(properties).map(
    ([name, field]) =>
      [name, fc.option(valueFor(resolved(field, document)), { nil: undefined, freq: 8 })] as const,
  )
  const extras = EXTRA_FIELDS.filter((name) => !Object.hasOwn(properties, name))
  const extra = fc.option(fc.tuple(fc.constantFrom(...extras), anyValue), {
    nil: undefined,
    freq: 3,
  })
  const object = fc
    .tuple(fc.tuple(...fields.map(([, value]) => value)), extra)
    .map(([values, added]) => {
      const body: Json = {}
      for (const [i, [name]] of fields.entries()) {
        if (values[i] !== undefined) body[name] = values[i]
      }
      if (added !== undefined) body[added[0]] = added[1]
      return body
    })
  const notObject = fc.constantFrom(null, [], [{}], 'teks', 1, true)
  return fc.oneof({ weight: 12, arbitrary: object }, { weight: 1, arbitrary: notObject })
}

/**
 * Whether the service took the body as far as its schema can say: a 2xx, a registration refused
 * only for its email, or a replay refused only because `until` is below `after` (a comparison
 * of two fields, which JSON Schema cannot state; the schema says it in words).
 */
function accepted(statusCode: number, body: string): boolean {
  if (statusCode >= 200 && statusCode < 300) return true
  if (statusCode !== 409 && statusCode !== 400) return false
  // Parsed only where it must be JSON: surface B's 400 is text.
  const error = body.startsWith('{') ? JSON.parse(body).error : undefined
  if (statusCode === 409) return error?.code === 'EMAIL_TELAH_DIPAKAI'
  return (
    statusCode === 400 &&
    error?.code === 'VALIDATION_ERROR' &&
    isDeepStrictEqual(error.details, { until: replayViolations.belowAfter })
  )
}

describe('each body schema states exactly the rule the service checks', () => {
  test('random bodies: the service accepts exactly those the schema says are valid', async (t) => {
    for (const configuration of configurations) {
      const app = await freshApp(configuration)
      // Each example first, in document order: surfaces B and C get their item 1.
      for (const operation of bodyOperations(configuration.document)) {
        await call(app, sending(operation, operation.example))
      }
      const validate = validators(configuration.document)
      for (const operation of configuration.operations) {
        const check = validate(operation)
        const name = `${nameOf(configuration.variants)}: ${operation.name}`
        await t.test(name, () =>
          fc.assert(
            fc.asyncProperty(bodiesFor(operation, configuration.document), async (body) => {
              const valid = check(body)
              const answer = await call(app, sending(operation, body))
              assert.equal(
                accepted(answer.statusCode, answer.body),
                valid,
                `${name} ${JSON.stringify(body)}: ` +
                  `the schema says ${valid ? 'valid' : `invalid (${errorsOf(check)})`}, the ` +
                  `service answered ${answer.statusCode} ${answer.body}`,
              )
            }),
            { numRuns: RUNS, includeErrorInReport: true },
          ),
        )
      }
    }
  })
})
