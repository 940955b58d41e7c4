// Property-based tests: whatever a client throws at surface C (/todos), in both TODOS_VARIANT
// values: any method, any id, any Content-Type, any body (JSON of any type, objects with tricky
// keys, raw text and bytes), the answer is a status surface C may give, in surface C's form (E3
// `{ error }` with the exact texts of Part 2, plain-text 405, E2 on the priority variant's
// POST), it is the answer the spec's rules give for that request (computed here, independently
// of the app, from a model of the stored todos), and nothing leaks into Object.prototype.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import {
  anyIdOf,
  BODY_LIMIT,
  conditionalHeaders,
  ItemApps,
  type ItemSurface,
  type Oracle,
  overTheLimit,
  PARAMETERS,
  plausibleId,
  sharedProperties,
} from '../../support/bad-input.js'
import * as kit from '../../support/property-kit.js'

type Variant = 'basic' | 'priority'
const VARIANTS: Variant[] = ['basic', 'priority']

const STATUSES = new Set([200, 201, 204, 400, 404, 405, 413, 415])
const PLAIN = 'text/plain; charset=utf-8'
const PRIORITY_BODY_LIMIT = 1024
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/

const ID_HARUS_ANGKA = 'id harus angka'
const BUKAN_JSON = 'body bukan JSON yang valid'
const WAJIB = 'title wajib diisi'
const TIDAK_DITEMUKAN = 'tugas tidak ditemukan'
/** The exact texts of Part 2 for surface C's 400 and 404. */
const MESSAGES = new Set([ID_HARUS_ANGKA, BUKAN_JSON, WAJIB, TIDAK_DITEMUKAN])
const E2_CODES = new Set([
  'UNSUPPORTED_MEDIA_TYPE',
  'BODY_TOO_LARGE',
  'INVALID_JSON',
  'VALIDATION_ERROR',
])
const PRIORITY_FIELDS = new Set(['due_date', 'priority', 'title'])

const ALLOW = { list: 'GET, HEAD, POST', item: 'DELETE, GET, HEAD, PUT' } as const

interface StoredTodo {
  id: number
  title: string
  done: boolean
  /** Unknown until an answer shows it (the priority variant's 201 does not). */
  created_at?: string
}

// ---------------------------------------------------------------------------------------------
// What the spec says about a request, computed without the app

/** Which surface C resource a URL, as the client sent it, names. */
type Target = { kind: 'list' } | { kind: 'item'; raw: string } | { kind: 'elsewhere' }

function targetOf(url: string): Target {
  const path = url.split('?', 1)[0] ?? ''
  // Each segment is read alone; one that cannot be decoded is its own text
  // (docs/todos.md#todos_variantbasic-default): `/todos/%zz` is an item whose id `%zz` is no
  // number, `/todos%zz` and `/todos/%zz/x` name nothing.
  const [root, ...rest] = path.split('/').slice(1).map(kit.segmentAsRead)
  if (root !== 'todos' || rest.length > 1) return { kind: 'elsewhere' }
  const [raw] = rest
  return raw === undefined ? { kind: 'list' } : { kind: 'item', raw }
}

/**
 * Ids are integers, an optional sign and digits (docs/todos.md#todos_variantbasic-default); one
 * that no todo can have (0, negative, past the largest id, 500 digits) is well-formed and simply
 * names no todo.
 */
function idOf(raw: string): number | undefined {
  return /^[+-]?[0-9]+$/.test(raw) ? Number(raw) : undefined
}

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0
}

/** `YYYY-MM-DD` naming a day of the (proleptic) Gregorian calendar. */
function isCalendarDate(value: string): boolean {
  const match = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(value)
  if (match === null) return false
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number]
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month)
}

/**
 * The priority variant's field rules (Part 1 and Limits; decisions 6): the set of violated fields.
 * `due_date: null` may count as left out (docs/todos.md#todos_variantpriority) or as a violation:
 * both are returned.
 */
function priorityViolations(body: unknown): string[][] {
  const fields = kit.isPlainObject(body) ? body : {}
  const violated: string[] = []
  const title = kit.own(fields, 'title')
  if (typeof title !== 'string' || Buffer.byteLength(title.trim(), 'utf8') < 3) {
    violated.push('title')
  }
  const priority = kit.own(fields, 'priority')
  if (typeof priority !== 'number' || !Number.isInteger(priority) || priority < 1 || priority > 5) {
    violated.push('priority')
  }
  const dueDate = kit.own(fields, 'due_date')
  if (dueDate === null) return [violated.sort(), [...violated, 'due_date'].sort()]
  if (dueDate !== undefined && (typeof dueDate !== 'string' || !isCalendarDate(dueDate))) {
    violated.push('due_date')
  }
  return [violated.sort()]
}

/** One acceptable answer. */
type Outcome =
  | { status: 200; kind: 'list' }
  | { status: 200 | 201; kind: 'todo'; todo: StoredTodo }
  | { status: 201; kind: 'created'; created: { id: number; title: string; priority: number } }
  | { status: 204; kind: 'none'; deleted: number }
  /** E3 `{ error }`; `messages` undefined: any message. */
  | { status: 400 | 404 | 413 | 415; kind: 'e3'; messages?: string[] }
  | { status: 400 | 413 | 415; kind: 'e2'; code: string; fields?: string[] }
  | { status: 405; kind: 'not-allowed'; allow: string }
  | { status: 404; kind: 'e1' }

interface Model {
  variant: Variant
  todos: Map<number, StoredTodo>
  /** Todos created so far: ids are assigned from 1, increasing. */
  created: number
  /** When the test began: a todo's created_at is after it. */
  started: number
}

/**
 * The answers the spec allows for `sent` given the stored todos: Part 1 surface C, Part 2 E2 and
 * E3, the spec's decisions 2, 3 and 6, and docs/decisions.md where the spec leaves a choice open.
 */
function expected(sent: kit.Sent, target: Target, model: Model): Outcome[] {
  const notFound: Outcome = { status: 404, kind: 'e3', messages: [TIDAK_DITEMUKAN] }
  switch (target.kind) {
    case 'elsewhere':
      return [{ status: 404, kind: 'e1' }]
    case 'list':
      if (sent.method === 'GET') return [{ status: 200, kind: 'list' }]
      if (sent.method !== 'POST') return [{ status: 405, kind: 'not-allowed', allow: ALLOW.list }]
      if (model.variant === 'priority') return priorityCreate(sent, model)
      return basicBody(sent, (fields) => ({
        status: 201,
        kind: 'todo',
        todo: { id: model.created + 1, ...fields },
      }))
    case 'item': {
      if (!['GET', 'PUT', 'DELETE'].includes(sent.method)) {
        return [{ status: 405, kind: 'not-allowed', allow: ALLOW.item }]
      }
      // The id comes first, before the body.
      const id = idOf(target.raw)
      if (id === undefined) return [{ status: 400, kind: 'e3', messages: [ID_HARUS_ANGKA] }]
      const stored = model.todos.get(id)
      if (sent.method === 'GET') {
        return [stored === undefined ? notFound : { status: 200, kind: 'todo', todo: stored }]
      }
      // DELETE takes no body: whatever body or Content-Type it carries does not matter.
      if (sent.method === 'DELETE') {
        return [stored === undefined ? notFound : { status: 204, kind: 'none', deleted: id }]
      }
      return basicBody(sent, (fields) =>
        stored === undefined
          ? notFound
          : { status: 200, kind: 'todo', todo: { ...stored, ...fields } },
      )
    }
  }
}

/**
 * The basic body rules (create and replace): the body is read as JSON whatever its Content-Type,
 * even one that cannot be parsed at all; over 1 MiB is 413 (decisions 6);
 * not JSON is `body bukan JSON yang valid`; `title` missing, null or blank is `title wajib
 * diisi`. Where the spec names no text (a field of the wrong type, a body that is JSON but not
 * an object, `done: null`), either text is accepted.
 */
function basicBody(
  sent: kit.Sent,
  then: (fields: { title: string; done: boolean }) => Outcome,
): Outcome[] {
  if (kit.bytesOf(sent.payload) > BODY_LIMIT) return [{ status: 413, kind: 'e3' }]
  let body: unknown
  try {
    body = JSON.parse(kit.textOf(sent.payload))
  } catch {
    return [{ status: 400, kind: 'e3', messages: [BUKAN_JSON] }]
  }
  const either: Outcome = { status: 400, kind: 'e3', messages: [BUKAN_JSON, WAJIB] }
  if (!kit.isPlainObject(body)) return [either]
  const title = kit.own(body, 'title')
  const done = kit.own(body, 'done')
  const titleBlank =
    title === undefined || title === null || (typeof title === 'string' && title.trim() === '')
  const titleText = typeof title === 'string' && !titleBlank
  if (titleText && (done === undefined || typeof done === 'boolean')) {
    return [then({ title: title.trim(), done: done ?? false })]
  }
  if (titleText && done === null) {
    return [
      then({ title: title.trim(), done: false }),
      { status: 400, kind: 'e3', messages: [BUKAN_JSON] },
    ]
  }
  if (titleText) return [{ status: 400, kind: 'e3', messages: [BUKAN_JSON] }]
  if (titleBlank && (done === undefined || typeof done === 'boolean')) {
    return [{ status: 400, kind: 'e3', messages: [WAJIB] }]
  }
  return [either]
}

/** The priority variant's POST /todos: the five ordered steps of Part 1, all in E2. */
function priorityCreate(sent: kit.Sent, model: Model): Outcome[] {
  const unsupported: Outcome = { status: 415, kind: 'e2', code: 'UNSUPPORTED_MEDIA_TYPE' }
  if (!/^application\/json/i.test(sent.contentType ?? '')) return [unsupported]
  // A header that starts right but cannot be parsed (`application/json garbage`) may be refused.
  const alternatives = kit.mediaTypeOf(sent.contentType) === undefined ? [unsupported] : []
  if (kit.bytesOf(sent.payload) > PRIORITY_BODY_LIMIT) {
    return [...alternatives, { status: 413, kind: 'e2', code: 'BODY_TOO_LARGE' }]
  }
  let body: unknown
  try {
    body = JSON.parse(kit.textOf(sent.payload))
  } catch {
    return [...alternatives, { status: 400, kind: 'e2', code: 'INVALID_JSON' }]
  }
  return [
    ...alternatives,
    ...priorityViolations(body).map((fields): Outcome => {
      if (fields.length > 0) return { status: 400, kind: 'e2', code: 'VALIDATION_ERROR', fields }
      const valid = body as { title: string; priority: number }
      return {
        status: 201,
        kind: 'created',
        created: { id: model.created + 1, title: valid.title.trim(), priority: valid.priority },
      }
    }),
  ]
}

// ---------------------------------------------------------------------------------------------
// The checks every answer must pass

const assertNotPolluted = kit.pollutionCheck([
  'polluted',
  'title',
  'done',
  'priority',
  'due_date',
  'judul',
  'id',
  'x',
])

function isTimestamp(value: unknown): boolean {
  return typeof value === 'string' && RFC3339_UTC.test(value) && !Number.isNaN(Date.parse(value))
}

function isTodo(value: unknown): value is Required<StoredTodo> {
  return (
    kit.isPlainObject(value) &&
    Number.isSafeInteger(value.id) &&
    typeof value.title === 'string' &&
    typeof value.done === 'boolean' &&
    isTimestamp(value.created_at)
  )
}

/** E3: exactly `{ error: <string> }`; returns the message. */
function assertE3(answer: kit.Answer, what: string): string {
  const body = kit.e3Body(answer, what)
  assert.ok(typeof body.error === 'string' && body.error !== '', `E3 error is not text: ${what}`)
  return body.error
}

/** E2 with the map named `fields`: `{ error: { code, message, fields? } }`. */
function assertE2(
  answer: kit.Answer,
  what: string,
): { code: string; fields?: Record<string, unknown> } {
  const body = kit.parseJson(answer, what)
  assert.ok(kit.isPlainObject(body), `E2 body is not an object: ${what}`)
  assert.deepEqual(Object.keys(body), ['error'], `E2 body must have exactly the key error: ${what}`)
  const { error } = body
  assert.ok(kit.isPlainObject(error), `E2 error is not an object: ${what}`)
  const { code, message, fields, ...rest } = error
  assert.deepEqual(rest, {}, `E2 error with extra members: ${what}`)
  assert.ok(typeof code === 'string' && E2_CODES.has(code), `unknown E2 code: ${what}`)
  assert.ok(typeof message === 'string' && message !== '', `E2 message is not text: ${what}`)
  if (code === 'BODY_TOO_LARGE') assert.match(message, /1024/, `limit not named: ${what}`)
  if (code !== 'VALIDATION_ERROR') {
    assert.ok(!Object.hasOwn(error, 'fields'), `fields on ${code}: ${what}`)
    return { code }
  }
  assert.ok(kit.isPlainObject(fields), `VALIDATION_ERROR without fields: ${what}`)
  const keys = Object.keys(fields)
  assert.ok(keys.length > 0, `empty fields: ${what}`)
  assert.deepEqual(keys, [...keys].sort(), `fields keys not in alphabetical order: ${what}`)
  assert.ok(
    keys.every((key) => PRIORITY_FIELDS.has(key)),
    `fields names an unknown field: ${what}`,
  )
  assert.ok(
    Object.values(fields).every((reason) => typeof reason === 'string' && reason !== ''),
    `fields holds a reason that is not text: ${what}`,
  )
  return { code, fields }
}

function isPriorityPost(model: Model, sent: kit.Sent, target: Target): boolean {
  return model.variant === 'priority' && sent.method === 'POST' && target.kind === 'list'
}

/** Surface C's forms, from the status and path alone (the brief's shape rules). */
function assertShape(
  model: Model,
  sent: kit.Sent,
  target: Target,
  answer: kit.Answer,
  what: string,
) {
  const { statusCode } = answer
  assert.ok(statusCode < 500, `server error: ${what}`)
  assert.ok(STATUSES.has(statusCode), `status surface C never gives: ${what}`)
  if (target.kind === 'elsewhere') return
  switch (statusCode) {
    case 200:
    case 201: {
      const body = kit.parseJson(answer, what)
      if (isPriorityPost(model, sent, target)) {
        assert.ok(kit.isPlainObject(body), what)
        assert.deepEqual(Object.keys(body).sort(), ['id', 'priority', 'title'], what)
        assert.ok(Number.isSafeInteger(body.id) && typeof body.title === 'string', what)
        assert.ok(Number.isInteger(body.priority), what)
      } else if (target.kind === 'list' && statusCode === 200) {
        assert.ok(Array.isArray(body) && body.every(isTodo), `not an array of todos: ${what}`)
      } else {
        assert.ok(isTodo(body), `not a todo: ${what}`)
      }
      if (statusCode === 201) {
        assert.equal(answer.headers.location, `/todos/${(body as StoredTodo).id}`, what)
      }
      break
    }
    case 204:
      assert.equal(answer.body, '', `204 with a body: ${what}`)
      break
    case 405:
      assert.equal(answer.headers['content-type'], PLAIN, what)
      assert.equal(answer.body, 'Method Not Allowed', what)
      assert.ok(typeof answer.headers.allow === 'string' && answer.headers.allow !== '', what)
      break
    default:
      if (isPriorityPost(model, sent, target)) {
        assertE2(answer, what)
      } else {
        const message = assertE3(answer, what)
        if (statusCode === 400 || statusCode === 404) {
          assert.ok(MESSAGES.has(message), `not a Part 2 text: ${what}`)
        }
        assert.notEqual(statusCode, 415, `the basic routes never answer 415: ${what}`)
      }
  }
}

function assertTodo(actual: unknown, todo: StoredTodo, what: string): void {
  assert.ok(isTodo(actual), what)
  const { id, title, done, created_at } = actual
  assert.deepEqual({ id, title, done }, { id: todo.id, title: todo.title, done: todo.done }, what)
  if (todo.created_at !== undefined) {
    assert.equal(created_at, todo.created_at, `created_at changed: ${what}`)
  }
}

/** Throws unless `answer` is `outcome`. */
function assertOutcome(outcome: Outcome, answer: kit.Answer, model: Model, what: string): void {
  assert.equal(answer.statusCode, outcome.status, what)
  switch (outcome.kind) {
    case 'list': {
      const todos = kit.parseJson(answer, what) as unknown[]
      const stored = [...model.todos.values()].sort((a, b) => a.id - b.id)
      assert.equal(todos.length, stored.length, `the list is not the stored todos: ${what}`)
      stored.forEach((todo, i) => {
        assertTodo(todos[i], todo, what)
      })
      return
    }
    case 'todo':
      assertTodo(kit.parseJson(answer, what), outcome.todo, what)
      return
    case 'created':
      assert.deepEqual(kit.parseJson(answer, what), outcome.created, what)
      return
    case 'none':
      assert.equal(answer.body, '', what)
      return
    case 'e3': {
      const message = assertE3(answer, what)
      if (outcome.messages !== undefined) {
        assert.ok(outcome.messages.includes(message), `message ${JSON.stringify(message)}: ${what}`)
      }
      return
    }
    case 'e2': {
      const { code, fields } = assertE2(answer, what)
      assert.equal(code, outcome.code, what)
      if (outcome.fields !== undefined) {
        assert.deepEqual(Object.keys(fields ?? {}), outcome.fields, `violated fields: ${what}`)
      }
      return
    }
    case 'not-allowed':
      assert.equal(answer.headers['content-type'], PLAIN, what)
      assert.equal(answer.body, 'Method Not Allowed', what)
      assert.equal(answer.headers.allow, outcome.allow, what)
      return
    case 'e1': {
      const body = kit.parseJson(answer, what) as { error?: { kode?: unknown } }
      assert.equal(body.error?.kode, 'TIDAK_ADA', `not the service's 404: ${what}`)
    }
  }
}

function remember(outcome: Outcome, answer: kit.Answer, model: Model): void {
  if (outcome.kind === 'todo') {
    if (outcome.status === 201) model.created++
    const { id, title, done, created_at } = JSON.parse(answer.body) as Required<StoredTodo>
    model.todos.set(id, { id, title, done, created_at })
  }
  if (outcome.kind === 'created') {
    model.created++
    const { id, title } = outcome.created
    model.todos.set(id, { id, title, done: false })
  }
  if (outcome.kind === 'list') {
    // The priority variant's 201 shows no created_at: learn it from the first read.
    for (const todo of JSON.parse(answer.body) as Required<StoredTodo>[]) {
      const stored = model.todos.get(todo.id)
      if (stored !== undefined) stored.created_at ??= todo.created_at
    }
  }
  if (outcome.kind === 'none') model.todos.delete(outcome.deleted)
}

/** The 201 of a basic create: its created_at is now. */
function assertCreatedNow(answer: kit.Answer, model: Model, what: string): void {
  const stamp = Date.parse((JSON.parse(answer.body) as StoredTodo).created_at ?? '')
  assert.ok(
    stamp >= model.started - 1000 && stamp <= Date.now() + 1000,
    `created_at is not now: ${what}`,
  )
}

/** Surface C's rules, in `variant`, over a model of the stored todos. */
function surfaceC(variant: Variant): ItemSurface<Model> {
  return {
    collection: '/todos',
    config: { todosVariant: variant },
    model: () => ({ variant, todos: new Map(), created: 0, started: Date.now() }),
    begin(model) {
      model.started = Date.now()
    },
    oracle: (model, inject): Oracle<kit.Sent, Target, Outcome> => ({
      inject,
      describe: (sent, url, answer) =>
        `[${variant}] ${kit.describeRequest(sent, url, answer, 300)}`,
      targetOf,
      assertShape: (sent, target, answer, what) => assertShape(model, sent, target, answer, what),
      expected: (sent, target) => expected(sent, target, model),
      assertOutcome: (outcome, _sent, answer, what) => assertOutcome(outcome, answer, model, what),
      remember(outcome, answer, what) {
        if (outcome.kind === 'todo' && outcome.status === 201) {
          assertCreatedNow(answer, model, what)
        }
        remember(outcome, answer, model)
      },
      assertNotPolluted,
    }),
    seedBody: (i) => ({ title: `Todo ${i}`, priority: 3 }),
    assertNotPolluted,
  }
}

const SURFACES = { basic: surfaceC('basic'), priority: surfaceC('priority') }

const apps = new ItemApps()

// ---------------------------------------------------------------------------------------------
// Arbitraries

/** Any id a client might put in the path (`anyIdOf`), with these numbers in disguise. */
const anyId = anyIdOf(
  ...kit.SIGNED_IDS,
  '+-1',
  ...kit.NOT_DIGIT_IDS,
  '-99999999999999999999',
  ...kit.EDGE_IDS,
  '%2F',
  '1%2F2',
  '%zz',
  '%',
  '%E9',
  '%2B1%zz',
  ...kit.ODD_IDS,
  encodeURIComponent('１'),
)

/**
 * Paths below /todos that are not surface C's: the service's generic 404. A segment that cannot
 * be decoded is no id here: it is read as its own text, in a path of no endpoint.
 */
const otherPath = fc.oneof(
  fc.constantFrom(
    '/todos/1/',
    '/todos/1/x',
    '/todos//1',
    '/todos%2F1',
    '/todos%zz',
    '/todos%/1',
    '/todos/%zz/',
    '/todos/%zz/x',
    '/todos/1/%zz',
    '/todos/%/%',
    '/todos/1/__proto__',
  ),
  kit.belowItem('/todos', plausibleId),
  kit.belowItem('/todos', fc.oneof(kit.undecodableIds, ...kit.longIds)),
  kit.undecodableIds.map((segment) => `/todos/1/${segment}`),
)

const contentType = kit.contentTypeFrom(
  ...kit.JSONISH_TYPES,
  ...kit.NEAR_JSON_TYPES,
  ...kit.OTHER_TYPES,
)

/** Titles around the 3-byte minimum, blank ones, and ones that are not text. */
const titleValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    'abc',
    'ab',
    ' ab ',
    '  abc  ',
    'é',
    ' é ',
    'éa',
    '😀',
    '中',
    'a\u0301',
    '\u00a0ab\u00a0',
    '\u3000',
    '',
    '   ',
    '\t\n',
  ),
  fc.string({ maxLength: 10 }),
  fc.string({ unit: 'grapheme', maxLength: 5 }),
  fc.string({ unit: 'binary', maxLength: 5 }),
  fc.constantFrom(null, 0, 5, true, false, ['abc'], { title: 'abc' }),
)

const priorityValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer({ min: -2, max: 8 }),
  fc.integer(),
  fc.double(),
  fc.constantFrom(1.5, 0.5, 4.999, 5.000001, -0, 2 ** 53, '3', '', null, true, [], {}, [3]),
)

const year = fc.oneof(
  fc.integer({ min: 1, max: 9999 }),
  fc.integer({ min: 1, max: 99 }),
  fc.constantFrom(1900, 2000, 2023, 2024, 2100),
)
const pad = (n: number, width: number) => String(n).padStart(width, '0')

/** Real calendar dates, among them 29 February of leap years and years before 100. */
const realDate = fc
  .tuple(year, fc.integer({ min: 1, max: 12 }))
  .chain(([y, m]) =>
    fc
      .integer({ min: 1, max: daysInMonth(y, m) })
      .map((d) => `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`),
  )

/** `YYYY-MM-DD` shapes that are often not dates: month 0 or 13, day 0, 30 February. */
const dateShaped = fc
  .tuple(year, fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }))
  .map(([y, m, d]) => `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`)

const dueDateValue: fc.Arbitrary<unknown> = fc.oneof(
  realDate,
  dateShaped,
  fc.constantFrom(
    '2024-02-29',
    '2023-02-29',
    '2024-02-30',
    '2024-13-01',
    '2024-00-10',
    '2024-04-31',
    '1900-02-29',
    '2000-02-29',
    '2024-1-01',
    '2024-01-1',
    '24-01-01',
    '2024/01/01',
    '01-01-2024',
    '2024-01-01T00:00:00Z',
    ' 2024-01-01',
    '2024-01-01 ',
    '2024-01-01\n',
    '２０２４-01-01',
    '+2024-01-01',
    '',
  ),
  fc.string({ maxLength: 12 }),
  fc.constantFrom(null, 20240101, true, ['2024-01-01'], {}),
)

/** A value of any JSON type, with the strings and flags a todo cares about mixed in. */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  titleValue,
  priorityValue,
  dueDateValue,
  fc.constantFrom({ polluted: 'yes' }, { title: 'dari prototipe', done: true, priority: 1 }),
)

/** Keys that name fields (of this and other surfaces), and keys of the prototype machinery. */
const trickyKey = kit.trickyKeyFrom(
  'title',
  'done',
  'priority',
  'due_date',
  'created_at',
  'id',
  'judul',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'polluted',
)

const trickyObjectText = kit.trickyObjectTextOf(trickyKey, anyValue)

/**
 * Objects with each of `title`, `done`, `priority`, `due_date` present or not, of a likely or
 * a random type, with tricky entries and padding (up to about 2 KB) around them.
 */
const todoLikeText = fc
  .record({
    title: fc.option(fc.oneof({ weight: 3, arbitrary: titleValue }, anyValue), { nil: undefined }),
    done: fc.option(fc.oneof({ weight: 3, arbitrary: fc.boolean() }, anyValue), { nil: undefined }),
    priority: fc.option(fc.oneof({ weight: 3, arbitrary: priorityValue }, anyValue), {
      nil: undefined,
    }),
    due_date: fc.option(dueDateValue, { nil: undefined, freq: 2 }),
    tricky: fc.array(fc.tuple(trickyKey, anyValue), { maxLength: 3 }),
    pad: fc.option(fc.nat({ max: 2048 }), { nil: undefined, freq: 4 }),
  })
  .chain(({ tricky, pad: size, ...fields }) => {
    const entries: [string, unknown][] = Object.entries(fields).filter(
      (entry): entry is [string, unknown] => entry[1] !== undefined,
    )
    if (size !== undefined) entries.push(['pad', 'x'.repeat(size)])
    // The tricky entries go before or after the fields (after: they may override them).
    return fc
      .boolean()
      .map(
        (after) =>
          `{${(after ? [...entries, ...tricky] : [...tricky, ...entries]).map(kit.entryText).join(',')}}`,
      )
  })

/** Bodies that are JSON text: any JSON value, any object, objects with tricky keys. */
const jsonBody = fc.oneof(
  { weight: 3, arbitrary: todoLikeText },
  kit.jsonValueText,
  kit.objectText,
  trickyObjectText,
)

/** Bodies that are anything at all, usually not JSON. */
const rawBody = kit.rawBodyOf('title', { textMax: 2048, bytesMax: 2048 })

const anyBody = kit.anyBodyOf(jsonBody, rawBody)

/**
 * Every path of surface C: the list, items with any id, and paths below that are not C's; a few
 * with an escaped letter in `todos` next to an undecodable id (only the id is read literally).
 */
const anyPath = fc.oneof(
  { weight: 2, arbitrary: fc.constant('/todos') },
  { weight: 1, arbitrary: fc.constantFrom('/tod%6Fs', '/tod%6Fs/%zz', '/%74odos/2') },
  { weight: 3, arbitrary: anyId.map((id) => `/todos/${id}`) },
  { weight: 1, arbitrary: otherPath },
)

// ---------------------------------------------------------------------------------------------

for (const variant of VARIANTS) {
  const surface = SURFACES[variant]
  describe(`surface C (${variant}) under bad input`, () => {
    sharedProperties(apps, surface, {
      anyPath,
      anyId,
      contentType,
      jsonBody,
      anyBody,
      itemLike: todoLikeText,
    })

    test('a body over 1 MiB is 413 on POST and PUT', () =>
      overTheLimit(
        apps,
        surface,
        JSON.stringify({ title: 'abc', priority: 1, pad: 'x'.repeat(BODY_LIMIT) }),
      ))
  })
}

describe('surface C (priority): POST /todos field rules', () => {
  test('VALIDATION_ERROR names exactly the violated fields; otherwise 201 { id, title, priority }', () =>
    apps.run(SURFACES.priority, 'any', async (h) => {
      await fc.assert(
        fc.asyncProperty(
          fc.option(fc.oneof(fc.string({ minLength: 3, maxLength: 20 }), titleValue), {
            nil: undefined,
            freq: 8,
          }),
          fc.option(fc.oneof(fc.integer({ min: 1, max: 5 }), priorityValue), {
            nil: undefined,
            freq: 8,
          }),
          fc.option(fc.oneof(realDate, dateShaped, dueDateValue), { nil: undefined, freq: 3 }),
          kit.jsonContentType,
          async (title, priority, dueDate, type) => {
            const body = Object.fromEntries(
              Object.entries({ title, priority, due_date: dueDate }).filter(
                ([, value]) => value !== undefined,
              ),
            )
            const payload = JSON.stringify(body)
            // The expectation, from the rules alone.
            const parsed = JSON.parse(payload) as Record<string, unknown>
            const violated = priorityViolations(parsed)
            const answer = await h.send({
              method: 'POST',
              url: '/todos',
              contentType: type,
              payload,
            })
            if (answer.statusCode === 201) {
              assert.ok(
                violated.some((fields) => fields.length === 0),
                payload,
              )
              assert.deepEqual(answer.json, {
                id: (answer.json as { id: number }).id,
                title: (parsed.title as string).trim(),
                priority: parsed.priority,
              })
              return
            }
            assert.equal(answer.statusCode, 400, payload)
            const { error } = answer.json as { error: { code: string; fields: object } }
            assert.equal(error.code, 'VALIDATION_ERROR', payload)
            assert.ok(
              violated.some(
                (fields) => JSON.stringify(Object.keys(error.fields)) === JSON.stringify(fields),
              ),
              `fields ${Object.keys(error.fields)} for ${payload}`,
            )
          },
        ),
        PARAMETERS,
      )
    }))

  test('a due_date that is a real calendar date passes; one that is not is refused', () =>
    apps.run(SURFACES.priority, 'any', async (h) => {
      await fc.assert(
        fc.asyncProperty(fc.oneof(realDate, dateShaped), async (dueDate) => {
          const answer = await h.send({
            method: 'POST',
            url: '/todos',
            contentType: 'application/json',
            payload: JSON.stringify({ title: 'Rapat', priority: 2, due_date: dueDate }),
          })
          assert.equal(answer.statusCode, isCalendarDate(dueDate) ? 201 : 400, dueDate)
        }),
        PARAMETERS,
      )
    }))
})

describe('surface C: conditional headers under bad input', () => {
  test('any If-Match and If-None-Match (lists, *, weak tags, broken values) on /todos/<id>', () =>
    conditionalHeaders(apps, SURFACES.basic, {
      created: { title: 'Todo baru' },
      replacements: ['{"title":"Satu","done":true}', '{"title":"Dua"}'],
    }))
})
