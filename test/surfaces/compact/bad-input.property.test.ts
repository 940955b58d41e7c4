// Property-based tests: whatever a client throws at surface B (/api): any method, any path under
// /api/, any id, any Content-Type, any body (JSON of any type, objects with tricky keys, raw text
// and bytes), the answer is a status surface B may give, in surface B's form (E3 JSON, plain text
// from the body reader, or an empty body), it is the answer the spec's rules give for that
// request (computed here, independently of the app, from a model of the stored tasks), and
// nothing leaks into Object.prototype.
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

const STATUSES = new Set([200, 201, 204, 400, 404, 405, 413, 415, 422])
const PLAIN = 'text/plain; charset=utf-8'
const JUDUL_MAX = 140

const KOSONG = 'judul tidak boleh kosong'
const TERLALU_PANJANG = 'judul tidak boleh lebih dari 140 karakter'
const idBukanAngka = (raw: string) => `Id "${raw}" bukan angka yang valid`
const tidakDitemukan = (raw: string) => `Tugas dengan id ${raw} tidak ditemukan`

/** The methods each registered path serves; every other method is its 405. */
const ALLOW = {
  health: 'GET, HEAD',
  list: 'GET, HEAD, POST',
  item: 'DELETE, GET, HEAD, PUT',
} as const

interface Task {
  id: number
  judul: string
  selesai: boolean
}

// ---------------------------------------------------------------------------------------------
// What the spec says about a request, computed without the app

/** Which surface B resource a URL, as the client sent it, names. */
type Target =
  | { kind: 'health' }
  | { kind: 'list' }
  | { kind: 'item'; raw: string }
  | { kind: 'unknown' }

function targetOf(url: string): Target {
  const path = url.split('?', 1)[0] ?? ''
  assert.ok(path.startsWith('/api/'), `not a surface B URL: ${url}`)
  // Each segment is read alone; one that cannot be decoded is its own text (docs/compact.md#rules),
  // so `/api/tugas/%zz` is an item whose id `%zz` is no number.
  const segments = path.slice('/api/'.length).split('/').map(kit.segmentAsRead)
  const [first, second, ...rest] = segments
  if (rest.length > 0) return { kind: 'unknown' }
  if (second === undefined && first === 'health') return { kind: 'health' }
  if (second === undefined && first === 'tugas') return { kind: 'list' }
  if (second !== undefined && first === 'tugas') return { kind: 'item', raw: second }
  return { kind: 'unknown' }
}

/**
 * Ids are unsigned integers, digits only (docs/compact.md#rules); one that no task can have (0,
 * past the largest id, 500 digits) is well-formed and simply names no task.
 */
function idOf(raw: string): number | undefined {
  return /^[0-9]+$/.test(raw) ? Number(raw) : undefined
}

/** One acceptable answer. */
type Outcome =
  | { status: 200; kind: 'health' }
  | { status: 200; kind: 'list' }
  | { status: 200 | 201; kind: 'task'; task: Task }
  | { status: 204; kind: 'none'; deleted: number }
  | { status: 400 | 404; kind: 'e3'; messages: string[] }
  | { status: 400 | 413 | 415 | 422; kind: 'plain' }
  | { status: 404 | 405; kind: 'empty'; allow?: string }

interface Model {
  tasks: Map<number, Task>
  /** Tasks created so far: ids are assigned from 1, increasing. */
  created: number
}

/**
 * The answers the spec allows for `sent` given the stored tasks: Part 1 surface B, Part 2 E3 and
 * E4, the spec's decisions 2 and 6, and docs/decisions.md where the spec leaves a choice open.
 */
function expected(sent: kit.Sent, target: Target, model: Model): Outcome[] {
  const notFound = (raw: string, id: number): Outcome => ({
    status: 404,
    kind: 'e3',
    messages: [...new Set([tidakDitemukan(raw), tidakDitemukan(String(id))])],
  })
  switch (target.kind) {
    case 'unknown':
      return [{ status: 404, kind: 'empty' }]
    case 'health':
      if (sent.method !== 'GET') return [{ status: 405, kind: 'empty', allow: ALLOW.health }]
      return [{ status: 200, kind: 'health' }]
    case 'list':
      if (sent.method === 'GET') return [{ status: 200, kind: 'list' }]
      if (sent.method !== 'POST') return [{ status: 405, kind: 'empty', allow: ALLOW.list }]
      return bodyRead(sent, false, (judul) => ({
        status: 201,
        kind: 'task',
        task: { id: model.created + 1, judul, selesai: false },
      }))
    case 'item': {
      if (!['GET', 'PUT', 'DELETE'].includes(sent.method)) {
        return [{ status: 405, kind: 'empty', allow: ALLOW.item }]
      }
      // Rule 1: the id comes first, before the body reader.
      const id = idOf(target.raw)
      if (id === undefined) {
        return [{ status: 400, kind: 'e3', messages: [idBukanAngka(target.raw)] }]
      }
      const stored = model.tasks.get(id)
      if (sent.method === 'GET') {
        return [
          stored === undefined
            ? notFound(target.raw, id)
            : { status: 200, kind: 'task', task: stored },
        ]
      }
      // DELETE takes no body: whatever body or Content-Type it carries does not matter.
      if (sent.method === 'DELETE') {
        return [
          stored === undefined
            ? notFound(target.raw, id)
            : { status: 204, kind: 'none', deleted: id },
        ]
      }
      return bodyRead(sent, true, (judul, selesai) =>
        stored === undefined
          ? notFound(target.raw, id)
          : { status: 200, kind: 'task', task: { id, judul, selesai } },
      )
    }
  }
}

/**
 * Rule 2 (the body reader, plain text), then the `judul` rule (E3), then `then`. `+json` media
 * types may be read as JSON too (docs/decisions.md#json-content-types), or refused like any other
 * non-JSON type.
 */
function bodyRead(
  sent: kit.Sent,
  withSelesai: boolean,
  then: (judul: string, selesai: boolean) => Outcome,
): Outcome[] {
  const unsupported: Outcome = { status: 415, kind: 'plain' }
  const mediaType = kit.mediaTypeOf(sent.contentType)
  const structuredJson = mediaType !== undefined && /^application\/[^/]+\+json$/.test(mediaType)
  if (mediaType !== 'application/json' && !structuredJson) return [unsupported]
  const alternatives = structuredJson ? [unsupported] : []
  if (kit.bytesOf(sent.payload) > BODY_LIMIT)
    return [...alternatives, { status: 413, kind: 'plain' }]
  let body: unknown
  try {
    body = JSON.parse(kit.textOf(sent.payload))
  } catch {
    return [...alternatives, { status: 400, kind: 'plain' }]
  }
  const decoded = kit.isPlainObject(body) ? body : undefined
  const judul = decoded === undefined ? undefined : kit.own(decoded, 'judul')
  const selesai = decoded === undefined ? false : withSelesai ? kit.own(decoded, 'selesai') : false
  if (typeof judul !== 'string' || typeof selesai !== 'boolean') {
    return [...alternatives, { status: 422, kind: 'plain' }]
  }
  const trimmed = judul.trim()
  const length = kit.codePoints(trimmed)
  if (length === 0) return [...alternatives, { status: 400, kind: 'e3', messages: [KOSONG] }]
  if (length > JUDUL_MAX) {
    return [...alternatives, { status: 400, kind: 'e3', messages: [TERLALU_PANJANG] }]
  }
  return [...alternatives, then(trimmed, selesai)]
}

// ---------------------------------------------------------------------------------------------
// The checks every answer must pass

const assertNotPolluted = kit.pollutionCheck([
  'polluted',
  'judul',
  'selesai',
  'title',
  'done',
  'id',
  'x',
])

function isTask(value: unknown): value is Task {
  return (
    kit.isPlainObject(value) &&
    Number.isSafeInteger(value.id) &&
    (value.id as number) >= 1 &&
    typeof value.judul === 'string' &&
    typeof value.selesai === 'boolean'
  )
}

function listed(task: Task): Task {
  return { id: task.id, judul: task.judul, selesai: task.selesai }
}

function assertE3(answer: kit.Answer, what: string): string {
  const body = kit.e3Body(answer, what)
  assert.equal(typeof body.error, 'string', `E3 error is not a string: ${what}`)
  return body.error as string
}

function assertPlain(answer: kit.Answer, what: string): void {
  assert.equal(answer.headers['content-type'], PLAIN, `not plain text: ${what}`)
  assert.ok(answer.body.length > 0, `empty plain-text body: ${what}`)
}

function assertEmpty(answer: kit.Answer, what: string): void {
  assert.equal(answer.body, '', `body is not empty: ${what}`)
  assert.equal(answer.headers['content-type'], undefined, `content-type on an empty body: ${what}`)
}

/** Surface B's forms, from the status and path alone (the brief's shape rules). */
function assertShape(target: Target, answer: kit.Answer, what: string): void {
  const { statusCode } = answer
  assert.ok(statusCode < 500, `server error: ${what}`)
  assert.ok(STATUSES.has(statusCode), `status surface B never gives: ${what}`)
  switch (statusCode) {
    case 200:
    case 201: {
      const body = kit.parseJson(answer, what)
      if (target.kind === 'health') {
        assert.ok(kit.isPlainObject(body) && body.status === 'ok', `health is not ok: ${what}`)
      } else if (target.kind === 'list' && statusCode === 200) {
        assert.ok(Array.isArray(body) && body.every(isTask), `not an array of tasks: ${what}`)
      } else {
        assert.ok(isTask(body), `not a task: ${what}`)
      }
      if (statusCode === 201) {
        assert.equal(answer.headers.location, `/api/tugas/${(body as Task).id}`, what)
      }
      break
    }
    case 204:
      assert.equal(answer.body, '', `204 with a body: ${what}`)
      break
    case 400:
      // The id and judul rules answer E3 JSON; the body reader answers plain text.
      if (answer.headers['content-type'] === PLAIN) assertPlain(answer, what)
      else assertE3(answer, what)
      break
    case 404:
      if (target.kind === 'unknown') assertEmpty(answer, what)
      else assertE3(answer, what)
      break
    case 405:
      assertEmpty(answer, what)
      assert.ok(typeof answer.headers.allow === 'string' && answer.headers.allow !== '', what)
      break
    default:
      assertPlain(answer, what)
  }
}

/** Throws unless `answer` is `outcome`. */
function assertOutcome(outcome: Outcome, answer: kit.Answer, model: Model, what: string): void {
  assert.equal(answer.statusCode, outcome.status, what)
  switch (outcome.kind) {
    case 'health':
      assert.equal((kit.parseJson(answer, what) as { status: unknown }).status, 'ok', what)
      return
    case 'list': {
      const tasks = (kit.parseJson(answer, what) as Task[]).map(listed)
      const stored = [...model.tasks.values()].sort((a, b) => a.id - b.id).map(listed)
      assert.deepEqual(tasks, stored, `the list is not the stored tasks: ${what}`)
      return
    }
    case 'task':
      assert.deepEqual(listed(kit.parseJson(answer, what) as Task), outcome.task, what)
      return
    case 'none':
      assert.equal(answer.body, '', what)
      return
    case 'e3': {
      const message = assertE3(answer, what)
      assert.ok(outcome.messages.includes(message), `message ${JSON.stringify(message)}: ${what}`)
      return
    }
    case 'plain':
      assertPlain(answer, what)
      return
    case 'empty':
      assertEmpty(answer, what)
      if (outcome.allow !== undefined) assert.equal(answer.headers.allow, outcome.allow, what)
  }
}

function remember(outcome: Outcome, model: Model): void {
  if (outcome.kind === 'task') {
    if (outcome.status === 201) model.created++
    model.tasks.set(outcome.task.id, outcome.task)
  }
  if (outcome.kind === 'none') model.tasks.delete(outcome.deleted)
}

/** Surface B's rules over a model of the stored tasks; its apps have the default settings. */
const surfaceB: ItemSurface<Model> = {
  collection: '/api/tugas',
  config: {},
  model: () => ({ tasks: new Map(), created: 0 }),
  oracle: (model, inject): Oracle<kit.Sent, Target, Outcome> => ({
    inject,
    describe: (sent, url, answer) => kit.describeRequest(sent, url, answer, 200),
    targetOf,
    assertShape: (_sent, target, answer, what) => assertShape(target, answer, what),
    expected: (sent, target) => expected(sent, target, model),
    assertOutcome: (outcome, _sent, answer, what) => assertOutcome(outcome, answer, model, what),
    remember: (outcome) => remember(outcome, model),
    assertNotPolluted,
  }),
  seedBody: (i) => ({ judul: `Tugas ${i}` }),
  assertNotPolluted,
}

const apps = new ItemApps()

// ---------------------------------------------------------------------------------------------
// Arbitraries

/** Any id a client might put in the path (`anyIdOf`), with these numbers in disguise. */
const anyId = anyIdOf(
  ...kit.SIGNED_IDS,
  ...kit.NOT_DIGIT_IDS,
  ...kit.EDGE_IDS,
  '%zz',
  '%',
  '%E9',
  '%C3%A9',
  '%2F',
  '1%2F2',
  ...kit.ODD_IDS,
  encodeURIComponent('１'),
)

/** Paths under /api/ that name nothing (and a few random ones that may, by chance). */
const unknownPath = fc.oneof(
  fc.constantFrom(
    '/api/',
    '/api/nope',
    '/api/TUGAS',
    '/api/Health',
    '/api/health/',
    '/api/health/1',
    '/api/tugas/1/',
    '/api/tugas/1/x',
    '/api/tugas//1',
    '/api/tugas%2F1',
    '/api/tugas/1/komentar',
    '/api/%zz',
    '/api/%zz/1',
    '/api/tugas%zz',
    '/api/tugas%zz/1',
    '/api/tugas/1/%zz',
    '/api/tugas/%zz/',
    '/api/tugas/%zz/x',
    '/api/health%',
    '/api/health/%zz',
    '/api/__proto__',
    '/api/constructor/prototype',
  ),
  // Not a dot segment: the injector, like any client without --path-as-is, resolves `/api/..`
  // to `/`, which is no surface B URL.
  fc
    .string()
    .filter((text) => text !== '.' && text !== '..')
    .map((text) => `/api/${encodeURIComponent(text)}`),
  kit.undecodableIds.map((segment) => `/api/${segment}`),
  kit.undecodableIds.map((segment) => `/api/tugas/1/${segment}`),
  fc.oneof(...kit.longIds).map((segment) => `/api/${segment}/tugas`),
  kit.belowItem('/api/tugas', plausibleId),
  kit.belowItem('/api/tugas', fc.oneof(kit.undecodableIds, ...kit.longIds)),
)

/**
 * Every path of surface B: the registered ones (any id) and unknown ones; a few with an escaped
 * letter in a named segment next to an undecodable one (only the latter is read literally).
 */
const anyPath = fc.oneof(
  fc.constantFrom(
    '/api/health',
    '/api/tugas',
    '/api/tug%61s/%zz',
    '/api/tug%61s/1',
    '/api/%74ugas/%c0%ae',
    '/api/heal%74h',
  ),
  anyId.map((id) => `/api/tugas/${id}`),
  unknownPath,
)

const contentType = kit.contentTypeFrom(
  ...kit.JSONISH_TYPES,
  'application/vnd.api+json',
  ...kit.NEAR_JSON_TYPES,
  'text/plain; charset=utf-8',
  ...kit.OTHER_TYPES,
)

const whitespace = fc.constantFrom(' ', '\t', '\n', '\r', '\u00a0', '\u2003', '\u3000', '\u2028')

/**
 * Characters of a `judul`, one code point each (ASCII, emoji outside the BMP, combining marks,
 * CJK), so that counts land on the 140 boundary; a few multi-code-point emoji too.
 */
const judulChar = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom('😀', '𝔸', 'é', '\u0301', '\u0308', '中', 'ß', '\u200b'),
  },
  { weight: 1, arbitrary: fc.constantFrom('👍🏽', '🇮🇩', '👨‍👩‍👧', 'e\u0301') },
  { weight: 1, arbitrary: whitespace },
)

const padding = fc.array(whitespace, { maxLength: 4 }).map((chars) => chars.join(''))

/** A `judul` near every boundary: empty, short, around 140 code points, far beyond. */
const judulText = fc
  .tuple(
    padding,
    fc
      .oneof(
        { weight: 2, arbitrary: fc.integer({ min: 0, max: 10 }) },
        { weight: 3, arbitrary: fc.integer({ min: 128, max: 144 }) },
        { weight: 1, arbitrary: fc.integer({ min: 0, max: 300 }) },
      )
      .chain((count) => fc.array(judulChar, { minLength: count, maxLength: count })),
    padding,
  )
  .map(([before, chars, after]) => before + chars.join('') + after)

const whitespaceOnly = fc.array(whitespace, { maxLength: 20 }).map((chars) => chars.join(''))

/** A value of any JSON type, with the strings and flags a task cares about mixed in. */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  judulText,
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', ' ', null, true, false, 0, -1, 1.5, 'true', 'false', [], {}),
  fc.constantFrom({ polluted: 'yes' }, { judul: 'dari prototipe', selesai: true }),
)

/** Keys that name fields (of this and other surfaces), and keys of the prototype machinery. */
const trickyKey = kit.trickyKeyFrom(
  'judul',
  'selesai',
  'title',
  'done',
  'priority',
  'due_date',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'id',
  'polluted',
)

const trickyObjectText = kit.trickyObjectTextOf(trickyKey, anyValue)

/** Bodies likely to pass the body reader, so the judul rule and existence get exercised. */
const taskLikeText = fc
  .tuple(
    fc.oneof({ weight: 4, arbitrary: judulText }, anyValue),
    fc.oneof({ weight: 4, arbitrary: fc.boolean() }, anyValue),
    fc.boolean(),
    trickyObjectText,
  )
  .map(([judul, selesai, extra, tricky]) => {
    const fields = `"judul":${JSON.stringify(judul) ?? 'null'},"selesai":${JSON.stringify(selesai) ?? 'null'}`
    return extra && tricky !== '{}' ? `{${tricky.slice(1, -1)},${fields}}` : `{${fields}}`
  })

/** Bodies that are JSON text: any JSON value, any object, objects with tricky keys. */
const jsonBody = fc.oneof(
  taskLikeText,
  kit.jsonValueText,
  kit.objectText,
  trickyObjectText,
  // Up to about 2 KB.
  fc
    .tuple(judulText, fc.nat({ max: 2048 }))
    .map(([judul, size]) => JSON.stringify({ judul, selesai: false, pad: 'x'.repeat(size) })),
)

/** Bodies that are anything at all, usually not JSON. */
const rawBody = kit.rawBodyOf('judul', { textMax: 2048, bytesMax: 2048 })

const anyBody = kit.anyBodyOf(jsonBody, rawBody)

// ---------------------------------------------------------------------------------------------

describe('surface B under bad input', () => {
  sharedProperties(apps, surfaceB, {
    anyPath,
    anyId,
    contentType,
    jsonBody,
    anyBody,
    itemLike: taskLikeText,
  })

  test('unknown paths under /api/ are 404 with an empty body, whatever the request', () =>
    apps.run(surfaceB, { seeded: 0 }, async (h) => {
      await fc.assert(
        fc.asyncProperty(
          kit.method,
          unknownPath,
          contentType,
          anyBody,
          async (m, url, type, payload) => {
            await h.send({ method: m, url, contentType: type, payload })
          },
        ),
        PARAMETERS,
      )
    }))

  test('judul: 1 to 140 code points after trimming is stored trimmed; more, or none, is 400', () =>
    apps.run(surfaceB, 'any', async (h) => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof({ weight: 4, arbitrary: judulText }, { weight: 1, arbitrary: whitespaceOnly }),
          fc.boolean(),
          async (judul, selesai) => {
            const trimmed = judul.trim()
            const length = kit.codePoints(trimmed)
            const created = await h.send({
              method: 'POST',
              url: '/api/tugas',
              contentType: 'application/json',
              payload: JSON.stringify({ judul }),
            })
            if (length === 0) {
              assert.equal(created.statusCode, 400)
              assert.deepEqual(created.json, { error: KOSONG })
              return
            }
            if (length > JUDUL_MAX) {
              assert.equal(created.statusCode, 400)
              assert.deepEqual(created.json, { error: TERLALU_PANJANG })
              return
            }
            assert.equal(created.statusCode, 201)
            const { id } = created.json as Task
            assert.equal((created.json as Task).judul, trimmed)
            const read = await h.send({ method: 'GET', url: `/api/tugas/${id}` })
            assert.equal((read.json as Task).judul, trimmed, 'stored trimmed')
            // PUT applies the same rule to the replacement.
            const replaced = await h.send({
              method: 'PUT',
              url: `/api/tugas/${id}`,
              contentType: 'application/json',
              payload: JSON.stringify({ judul: ` ${judul} `, selesai }),
            })
            assert.equal(replaced.statusCode, 200)
            assert.deepEqual(replaced.json, { id, judul: trimmed, selesai })
          },
        ),
        PARAMETERS,
      )
    }))
})

describe('surface B edge cases', () => {
  test('a body over 1 MiB is 413 plain text on POST and PUT', () =>
    overTheLimit(
      apps,
      surfaceB,
      JSON.stringify({ judul: 'abc', selesai: true, pad: 'x'.repeat(BODY_LIMIT) }),
    ))

  test('a judul inherited through a __proto__ key does not count', () =>
    apps.run(surfaceB, 'any', async (h) => {
      const { statusCode } = await h.send({
        method: 'POST',
        url: '/api/tugas',
        contentType: 'application/json',
        payload:
          '{"__proto__":{"judul":"dari prototipe"},"constructor":{"prototype":{"judul":"x"}}}',
      })
      assert.equal(statusCode, 422)
    }))
})

describe('surface B: conditional headers under bad input', () => {
  test('any If-Match and If-None-Match (lists, *, weak tags, broken values) on /api/tugas/<id>', () =>
    conditionalHeaders(apps, surfaceB, {
      created: { judul: 'Tugas baru' },
      replacements: ['{"judul":"Satu","selesai":true}', '{"judul":"Dua","selesai":false}'],
    }))
})
