// /openapi.json describes surfaces B (`/api`) and C (`/todos`) in both TODOS_VARIANT values: each
// operation with its tag, summary, description and example body, every status it can answer
// with its exact body (E3 JSON, E2 for the priority create, plain text, empty), each path's 405
// (`x-method-not-allowed`) and the empty 404 under `/api` (`x-unknown-paths`); and the
// conformance checker holds B's and C's answers to it.
import assert, { AssertionError } from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Validator } from '@seriousme/openapi-schema-validator'
import type { FastifyInstance } from 'fastify'
import type { TodosVariant } from '../../../src/config.js'
import { conformanceChecker, type SeenResponse, serversAsText } from '../../support/conformance.js'
import { testApp } from '../../support/helpers.js'

type Json = Record<string, unknown>

const B_TAG = 'B: compact tasks'
const C_TAG = 'C: todos'
const JSON_MEDIA = 'application/json'
const TEXT = 'text/plain'

/** Every operation, its statuses, and the media types of each (none: an empty body). */
type Operations = Record<string, Record<string, string[]>>

const STORE = { 500: [JSON_MEDIA], 503: [JSON_MEDIA] }
/** The HTTP parser's refusals (E1 JSON), listed on an operation with no 4xx of its own. */
const PARSER = { 408: [JSON_MEDIA], 431: [JSON_MEDIA] }
const BODY_READER = { 400: [JSON_MEDIA, TEXT], 413: [TEXT], 415: [TEXT], 422: [TEXT] }
/** An `Idempotency-Key` refused: another body (422), in flight (409); a bad key is a 400. */
const KEY = { 409: [JSON_MEDIA], 422: [JSON_MEDIA] }

/** Conditional requests (decisions.md 8): 304 on an item's GET, 412 on its guarded writes. */
const NOT_MODIFIED = { 304: [] }
const CHANGED = { 412: [JSON_MEDIA] }

const SURFACE_B: Operations = {
  'GET /api/health': { 200: [JSON_MEDIA], ...PARSER },
  'GET /api/tugas': { 200: [JSON_MEDIA], ...PARSER, ...STORE },
  'POST /api/tugas': {
    201: [JSON_MEDIA],
    ...BODY_READER,
    ...KEY,
    422: [TEXT, JSON_MEDIA],
    ...STORE,
  },
  'GET /api/tugas/{id}': {
    200: [JSON_MEDIA],
    ...NOT_MODIFIED,
    400: [JSON_MEDIA],
    404: [JSON_MEDIA],
    ...STORE,
  },
  'PUT /api/tugas/{id}': {
    200: [JSON_MEDIA],
    ...BODY_READER,
    404: [JSON_MEDIA],
    ...CHANGED,
    ...STORE,
  },
  'DELETE /api/tugas/{id}': {
    204: [],
    400: [JSON_MEDIA],
    404: [JSON_MEDIA],
    ...CHANGED,
    ...STORE,
  },
}

const C_SHARED: Operations = {
  'GET /todos': { 200: [JSON_MEDIA], ...PARSER, ...STORE },
  'GET /todos/{id}': {
    200: [JSON_MEDIA],
    ...NOT_MODIFIED,
    400: [JSON_MEDIA],
    404: [JSON_MEDIA],
    ...STORE,
  },
  'PUT /todos/{id}': {
    200: [JSON_MEDIA],
    400: [JSON_MEDIA],
    404: [JSON_MEDIA],
    ...CHANGED,
    413: [JSON_MEDIA],
    ...STORE,
  },
  'DELETE /todos/{id}': {
    204: [],
    400: [JSON_MEDIA],
    404: [JSON_MEDIA],
    ...CHANGED,
    ...STORE,
  },
}

const SURFACE_C: Record<TodosVariant, Operations> = {
  basic: {
    ...C_SHARED,
    'POST /todos': {
      201: [JSON_MEDIA],
      400: [JSON_MEDIA],
      413: [JSON_MEDIA],
      ...KEY,
      ...STORE,
    },
  },
  priority: {
    ...C_SHARED,
    'POST /todos': {
      201: [JSON_MEDIA],
      400: [JSON_MEDIA],
      413: [JSON_MEDIA],
      415: [JSON_MEDIA],
      ...KEY,
      ...STORE,
    },
  },
}

function object(value: unknown, what: string): Json {
  assert.ok(
    typeof value === 'object' && value !== null && !Array.isArray(value),
    `${what} is not an object`,
  )
  return value as Json
}

function operation(document: Json, key: string): Json {
  const [method = '', path = ''] = key.split(' ')
  const item = object(object(document.paths, 'paths')[path], `paths[${path}]`)
  return object(item[method.toLowerCase()], key)
}

// Answers that carry an item have an ETag (decisions.md 8): the document requires it on them.
const jsonHeaders = {
  'content-type': 'application/json; charset=utf-8',
  etag: '"AAAAAAAAAAAAAAAAAAAAAA"',
}
const textHeaders = { 'content-type': 'text/plain; charset=utf-8' }
const reply = (statusCode: number, body: unknown, headers: Json = jsonHeaders): SeenResponse => ({
  statusCode,
  headers,
  body: typeof body === 'string' ? body : JSON.stringify(body),
})
const compactTask = { id: 1, judul: 'Belajar Rust', selesai: false }
const todo = { id: 1, title: 'Beli susu', done: false, created_at: '2026-11-23T09:30:00.000Z' }

for (const variant of ['basic', 'priority'] as const) {
  describe(`/openapi.json describes surfaces B and C, TODOS_VARIANT=${variant}`, () => {
    let app: FastifyInstance
    let document: Json
    let check: ReturnType<typeof conformanceChecker>
    const expected: Operations = { ...SURFACE_B, ...SURFACE_C[variant] }

    before(async () => {
      app = await testApp({ config: { todosVariant: variant }, closedBy: 'caller' })
      document = object((await app.inject({ url: '/openapi.json' })).json(), 'the document')
      check = conformanceChecker(document)
    })
    after(() => app.close())

    const accepts = (method: string, url: string, response: SeenResponse) =>
      assert.doesNotThrow(() => check({ method, url }, response), `${method} ${url} conforms`)
    const rejects = (method: string, url: string, response: SeenResponse, why: RegExp) =>
      assert.throws(
        () => check({ method, url }, response),
        (error: unknown) => {
          assert.ok(error instanceof AssertionError, String(error))
          assert.match(error.message, why)
          return true
        },
      )

    test('is valid OpenAPI 3.1.0 and names the variant', async () => {
      const result = await new Validator().validate(structuredClone(document))
      assert.equal(result.valid, true, `not valid OpenAPI: ${JSON.stringify(result.errors)}`)
      assert.match(
        String(object(document.info, 'info').description),
        new RegExp(`TODOS_VARIANT=${variant}`),
      )
    })

    test('lists every operation of B and C, at the root, with exactly its statuses and media types', () => {
      const paths = object(document.paths, 'paths')
      const served = Object.entries(paths)
        .filter(([path]) => path.startsWith('/api/') || path.startsWith('/todos'))
        .flatMap(([path, item]) =>
          Object.keys(object(item, path))
            .filter((key) => !key.startsWith('x-'))
            .map((method) => `${method.toUpperCase()} ${path}`),
        )
      assert.deepEqual(served.sort(), Object.keys(expected).sort())
      for (const [key, statuses] of Object.entries(expected)) {
        const op = operation(document, key)
        assert.deepEqual(
          serversAsText(op.servers),
          ['{origin} origin=http://localhost'],
          `${key} is served at the root`,
        )
        const responses = object(op.responses, `${key} responses`)
        assert.deepEqual(Object.keys(responses).sort(), Object.keys(statuses).sort(), key)
        for (const [status, media] of Object.entries(statuses)) {
          const content = object(responses[status], `${key} ${status}`).content
          assert.deepEqual(
            Object.keys((content ?? {}) as Json).sort(),
            [...media].sort(),
            `${key} ${status} media types`,
          )
        }
      }
      const create = operation(document, 'POST /todos').operationId
      assert.equal(create, variant === 'basic' ? 'createTodo' : 'createPriorityTodo')
    })

    test('each operation has its surface tag, a summary, a description, and an example body', () => {
      const tags = (document.tags as Json[]).map((tag) => tag.name)
      assert.deepEqual(tags, [
        'A: tasks',
        B_TAG,
        C_TAG,
        'D: supporting',
        'Events',
        'Webhooks',
        'E: description',
        'Health',
        'Metrics',
      ])
      for (const tag of document.tags as Json[]) assert.equal(typeof tag.description, 'string')
      for (const key of Object.keys(expected)) {
        const op = operation(document, key)
        assert.deepEqual(op.tags, [key.includes(' /api/') ? B_TAG : C_TAG], key)
        for (const field of ['summary', 'description', 'operationId']) {
          assert.ok(typeof op[field] === 'string' && op[field] !== '', `${key} has no ${field}`)
        }
        if (!/^(POST|PUT) /.test(key)) {
          assert.equal(op.requestBody, undefined, `${key} takes no body`)
          continue
        }
        const body = object(object(op.requestBody, `${key} requestBody`).content, `${key} body`)
        object(object(body[JSON_MEDIA], `${key} JSON body`).example, `${key} example`)
      }
    })

    test('every 201 has Location, every 503 Retry-After, every path its 405 with Allow', () => {
      for (const key of Object.keys(expected)) {
        const responses = object(operation(document, key).responses, key)
        for (const [status, header] of [
          ['201', 'Location'],
          ['503', 'Retry-After'],
        ] as const) {
          if (responses[status] === undefined) continue
          const headers = object(object(responses[status], status).headers, `${key} ${status}`)
          object(headers[header], `${key} ${status} ${header}`)
        }
      }
      const paths = object(document.paths, 'paths')
      for (const path of [
        '/api/health',
        '/api/tugas',
        '/api/tugas/{id}',
        '/todos',
        '/todos/{id}',
      ]) {
        const notAllowed = object(object(paths[path], path)['x-method-not-allowed'], `${path} 405`)
        const allow = object(object(notAllowed.headers, `${path} 405 headers`).Allow, 'Allow')
        assert.equal(allow.required, true)
        if (path.startsWith('/api')) assert.equal(notAllowed.content, undefined, `${path}: empty`)
        else {
          const text = object(object(notAllowed.content, path)[TEXT], `${path} text`)
          assert.deepEqual(object(text.schema, 'schema').enum, ['Method Not Allowed'])
        }
      }
      const unknown = object(object(document['x-unknown-paths'], 'x-unknown-paths')['/api'], '/api')
      assert.equal(unknown.content, undefined, 'an unknown path under /api has an empty body')
    })

    test('the checker holds surface B to its exact answers', () => {
      const created = { ...jsonHeaders, location: '/api/tugas/1' }
      accepts('POST', '/api/tugas', reply(201, compactTask, created))
      accepts('POST', '/api/tugas', reply(400, { error: 'judul tidak boleh kosong' }))
      accepts(
        'POST',
        '/api/tugas',
        reply(400, 'Failed to parse the request body as JSON', textHeaders),
      )
      accepts(
        'PUT',
        '/api/tugas/1',
        reply(
          422,
          'Failed to deserialize the JSON body into the target type: missing field `selesai`',
          textHeaders,
        ),
      )
      accepts('PUT', '/api/tugas/abc', reply(400, { error: 'Id "abc" bukan angka yang valid' }))
      accepts('GET', '/api/tugas/%20', reply(400, { error: 'Id " " bukan angka yang valid' }))
      accepts('GET', '/api/tugas/9', reply(404, { error: 'Tugas dengan id 9 tidak ditemukan' }))
      accepts('GET', '/api/nope', reply(404, '', {}))
      accepts('GET', '/api', reply(404, '', {}))
      accepts('PATCH', '/api/tugas', reply(405, '', { allow: 'GET, HEAD, POST' }))
      accepts(
        'GET',
        '/api/tugas',
        reply(
          503,
          { error: 'layanan sedang tidak tersedia' },
          { ...jsonHeaders, 'retry-after': '1' },
        ),
      )

      rejects('POST', '/api/tugas', reply(201, compactTask), /Location/)
      rejects('POST', '/api/tugas', reply(400, 'Bad request', textHeaders), /text\/plain schema/)
      rejects('POST', '/api/tugas', reply(400, { error: 'judul salah' }), /schema/)
      rejects('POST', '/api/tugas', reply(422, { error: 'x' }), /schema/)
      rejects('PUT', '/api/tugas/1', reply(422, { error: 'x' }), /content-type/)
      // The Idempotency-Key refusals, in E3 (decisions.md 8).
      accepts('POST', '/api/tugas', reply(400, { error: 'Idempotency-Key tidak valid' }))
      accepts(
        'POST',
        '/api/tugas',
        reply(422, { error: 'Idempotency-Key dipakai untuk permintaan lain' }),
      )
      accepts(
        'POST',
        '/api/tugas',
        reply(409, { error: 'permintaan dengan Idempotency-Key ini sedang diproses' }),
      )
      rejects('PUT', '/api/tugas/1', reply(400, { error: 'Idempotency-Key tidak valid' }), /schema/)
      rejects('GET', '/api/tugas/1', reply(400, { error: 'judul tidak boleh kosong' }), /schema/)
      rejects(
        'GET',
        '/api/nope',
        reply(404, { error: { kode: 'TIDAK_ADA', pesan: 'p' } }),
        /not empty/,
      )
      rejects('PATCH', '/api/tugas', reply(405, 'x', { allow: 'GET, HEAD, POST' }), /not empty/)
      rejects(
        'GET',
        '/api/tugas',
        reply(503, { error: 'layanan sedang tidak tersedia' }),
        /Retry-After/,
      )
    })

    test('the checker holds surface C to its exact answers', () => {
      const created = { ...jsonHeaders, location: '/todos/1' }
      const priorityTodo = { id: 1, title: 'Rapat', priority: 2 }
      if (variant === 'basic') {
        accepts('POST', '/todos', reply(201, todo, created))
        accepts('POST', '/todos', reply(400, { error: 'title wajib diisi' }))
        rejects('POST', '/todos', reply(201, priorityTodo, created), /schema/)
        accepts('POST', '/todos', reply(400, { error: 'Idempotency-Key tidak valid' }))
        accepts(
          'POST',
          '/todos',
          reply(422, { error: 'Idempotency-Key dipakai untuk permintaan lain' }),
        )
        rejects('POST', '/todos', reply(409, { error: 'x' }), /schema/)
        rejects(
          'POST',
          '/todos',
          reply(415, { error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'm' } }),
          /415/,
        )
      } else {
        accepts('POST', '/todos', reply(201, priorityTodo, created))
        const fields = { title: 'title is required: text of at least 3 bytes' }
        accepts(
          'POST',
          '/todos',
          reply(400, { error: { code: 'VALIDATION_ERROR', message: 'm', fields } }),
        )
        accepts(
          'POST',
          '/todos',
          reply(415, { error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'm' } }),
        )
        rejects('POST', '/todos', reply(201, todo, created), /schema/)
        rejects('POST', '/todos', reply(400, { error: 'title wajib diisi' }), /schema/)
      }
      accepts('PUT', '/todos/x', reply(400, { error: 'id harus angka' }))
      accepts('PUT', '/todos/1', reply(413, { error: 'body melebihi batas 1048576 byte' }))
      accepts('GET', '/todos/-1', reply(404, { error: 'tugas tidak ditemukan' }))
      accepts(
        'PATCH',
        '/todos',
        reply(405, 'Method Not Allowed', { ...textHeaders, allow: 'GET, HEAD, POST' }),
      )
      accepts('GET', '/todos/1/x', reply(404, { error: { kode: 'TIDAK_ADA', pesan: 'p' } }))

      rejects('GET', '/todos/1', reply(400, { error: 'title wajib diisi' }), /schema/)
      rejects(
        'PATCH',
        '/todos/1',
        reply(405, 'Nope', { ...textHeaders, allow: 'DELETE, GET, HEAD, PUT' }),
        /schema/,
      )
      rejects(
        'PATCH',
        '/todos/1',
        reply(405, '', { allow: 'DELETE, GET, HEAD, PUT' }),
        /content-type/,
      )
      rejects('GET', '/todos/1/x', reply(404, { error: 'tugas tidak ditemukan' }), /E1/)
    })
  })
}
