import assert, { AssertionError } from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Validator } from '@seriousme/openapi-schema-validator'
import type { FastifyInstance } from 'fastify'
import { conformanceChecker, type SeenResponse } from '../../support/conformance.js'
import { testApp } from '../../support/helpers.js'

type Json = Record<string, unknown>

function object(value: unknown, what: string): Json {
  assert.ok(
    typeof value === 'object' && value !== null && !Array.isArray(value),
    `${what} is not an object`,
  )
  return value as Json
}

async function fetchDocument(app: FastifyInstance): Promise<Json> {
  const response = await app.inject({ method: 'GET', url: '/openapi.json' })
  assert.equal(response.statusCode, 200)
  assert.match(String(response.headers['content-type']), /^application\/json\b/)
  return object(response.json(), 'the document')
}

function operation(document: Json, path: string, method: string): Json {
  const item = object(object(document.paths, 'paths')[path], `paths[${path}]`)
  return object(item[method], `${method.toUpperCase()} ${path}`)
}

function schema(document: Json, name: string): Json {
  const schemas = object(object(document.components, 'components').schemas, 'components.schemas')
  return object(schemas[name], `components.schemas.${name}`)
}

/** Every surface A operation and the statuses it can answer, success and errors. */
const OPERATIONS: [method: string, path: string, statuses: number[]][] = [
  ['get', '/tugas', [200, 422]],
  ['post', '/tugas', [201, 400, 413, 415, 422, 500]],
  ['get', '/tugas/{id}', [200, 404]],
  ['put', '/tugas/{id}', [200, 400, 404, 413, 415, 422, 500]],
  ['patch', '/tugas/{id}', [200, 400, 404, 413, 415, 422, 500]],
  ['delete', '/tugas/{id}', [204, 404]],
  ['get', '/tugas/{id}/komentar', [200, 404]],
  ['post', '/tugas/{id}/komentar', [201, 400, 404, 413, 415, 422]],
  ['get', '/tugas/{id}/komentar/{kid}', [200, 404]],
]

describe('GET /openapi.json', () => {
  let app: FastifyInstance
  let document: Json

  before(async () => {
    app = await testApp({ closedBy: 'caller' })
    document = await fetchDocument(app)
  })
  after(() => app.close())

  test('is a valid OpenAPI 3.1.0 document', async () => {
    const validator = new Validator()
    const result = await validator.validate(structuredClone(document))
    assert.equal(
      result.valid,
      true,
      `the document is not valid OpenAPI: ${JSON.stringify(result.errors, null, 2)}`,
    )
    assert.equal(document.openapi, '3.1.0')
  })

  test('has info and the server prefix /v1', () => {
    const info = object(document.info, 'info')
    for (const key of ['title', 'version', 'description']) {
      assert.equal(typeof info[key], 'string', `info.${key} is not a string`)
    }
    assert.ok(Array.isArray(document.servers), 'servers is not an array')
    assert.ok(
      document.servers.some((server) => object(server, 'a server').url === '{origin}/v1'),
      'no server has url {origin}/v1',
    )
  })

  test('publishes Tugas, TugasBaru and Error', () => {
    const tugas = schema(document, 'Tugas')
    assert.deepEqual([...(tugas.required as string[])].sort(), ['id', 'status', 'title'])
    const tugasProperties = object(tugas.properties, 'Tugas.properties')
    const title = object(tugasProperties.title, 'Tugas.title')
    assert.equal(title.type, 'string')
    assert.equal(title.minLength, 3)
    assert.equal(title.maxLength, 80)
    const status = object(tugasProperties.status, 'Tugas.status')
    assert.deepEqual([...(status.enum as string[])].sort(), ['belum', 'selesai'])
    assert.equal(object(tugasProperties.id, 'Tugas.id').type, 'integer')

    const baru = schema(document, 'TugasBaru')
    assert.deepEqual(baru.required, ['title'])
    const baruProperties = object(baru.properties, 'TugasBaru.properties')
    assert.ok(Object.hasOwn(baruProperties, 'status'), 'TugasBaru has no optional status')
    assert.ok(!Object.hasOwn(baruProperties, 'id'), 'TugasBaru accepts an id')

    const error = schema(document, 'Error')
    assert.deepEqual(error.required, ['error'])
    const inner = object(object(error.properties, 'Error.properties').error, 'Error.error')
    assert.equal(inner.type, 'object')
    assert.deepEqual([...(inner.required as string[])].sort(), ['kode', 'pesan'])
    const innerProperties = object(inner.properties, 'Error.error.properties')
    assert.equal(object(innerProperties.kode, 'kode').type, 'string')
    assert.equal(object(innerProperties.pesan, 'pesan').type, 'string')
  })

  for (const [method, path, statuses] of OPERATIONS) {
    test(`documents ${method.toUpperCase()} ${path} with ${statuses.join(', ')}`, () => {
      const responses = object(operation(document, path, method).responses, 'responses')
      for (const status of statuses) {
        const response = object(responses[status], `${method} ${path} response ${status}`)
        const content = response.content as Json | undefined
        if (status === 204) {
          assert.equal(content, undefined, `${method} ${path} 204 documents a body`)
          continue
        }
        const media = object(content?.['application/json'], `${method} ${path} ${status} JSON`)
        if (status >= 400) {
          assert.deepEqual(
            media.schema,
            { $ref: '#/components/schemas/Error' },
            `${method} ${path} ${status} is not an E1 error`,
          )
        }
        if (status === 201) {
          const headers = object(response.headers, `${method} ${path} 201 headers`)
          object(headers.Location, `${method} ${path} 201 Location header`)
        }
      }
    })
  }

  test('every 201 documents a Location header', () => {
    const paths = object(document.paths, 'paths')
    let created = 0
    for (const [path, item] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(object(item, path))) {
        // Extensions (a path's x-method-not-allowed) are no operations.
        if (method.startsWith('x-')) continue
        const responses = object(object(op, `${method} ${path}`).responses, 'responses')
        if (responses['201'] === undefined) continue
        created++
        const headers = object(object(responses['201'], '201').headers, `${method} ${path} 201`)
        assert.ok(Object.hasOwn(headers, 'Location'), `${method} ${path} 201 has no Location`)
      }
    }
    // POST /tugas, POST /tugas/{id}/komentar, POST /api/tugas, POST /todos, POST /users,
    // POST /pesanan, POST /kredensial, POST /webhooks.
    assert.equal(created, 8)
  })

  test('the id parameters are integers', () => {
    for (const [method, path] of OPERATIONS) {
      for (const name of path.match(/\{(\w+)\}/g) ?? []) {
        const parameters = operation(document, path, method).parameters as Json[]
        const parameter = parameters.find((p) => p.in === 'path' && `{${p.name}}` === name)
        assert.ok(parameter, `${method} ${path} does not declare ${name}`)
        assert.equal(parameter.required, true)
        assert.equal(object(parameter.schema, `${name} schema`).type, 'integer')
      }
    }
  })

  test('every path parameter of every surface is an integer; B to D document the 400 of any other', () => {
    const paths = object(document.paths, 'paths')
    let checked = 0
    for (const [path, item] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(object(item, path))) {
        if (method.startsWith('x-')) continue
        const parameters = (object(op, `${method} ${path}`).parameters ?? []) as Json[]
        for (const parameter of parameters.filter((p) => p.in === 'path')) {
          const where = `${method.toUpperCase()} ${path} {${parameter.name}}`
          assert.equal(object(parameter.schema, where).type, 'integer', where)
          // Surface A's routes match digits only: any other segment is the generic 404.
          if (!path.startsWith('/tugas/')) {
            assert.ok(Object.hasOwn(object(object(op, where).responses, where), '400'), where)
          }
          checked++
        }
      }
    }
    // A: 7 operations, one with {kid}; B: 3; C: 3; D: a user, an order and its payment, a
    // product, a document's GET and DELETE, a credential's GET and DELETE; a webhook's GET,
    // DELETE, deliveries and replay.
    assert.equal(checked, 8 + 3 + 3 + 6 + 2 + 4)
  })
})

describe('the document follows the configuration', () => {
  function batasDefault(document: Json): unknown {
    const parameters = operation(document, '/tugas', 'get').parameters as Json[]
    const batas = parameters.find((p) => p.name === 'batas' && p.in === 'query')
    assert.ok(batas, 'GET /tugas does not declare batas')
    return object(batas.schema, 'batas schema').default
  }

  test('the default batas is 10 by default', async () => {
    const app = await testApp()
    try {
      assert.equal(batasDefault(await fetchDocument(app)), 10)
    } finally {
      await app.close()
    }
  })

  test('TUGAS_BATAS_DEFAULT=7 shows 7, and the list answers with batas 7', async () => {
    const app = await testApp({ config: { tugasBatasDefault: 7 } })
    try {
      assert.equal(batasDefault(await fetchDocument(app)), 7)
      const page = await app.inject({ method: 'GET', url: '/tugas?halaman=1' })
      assert.equal(page.statusCode, 200)
      assert.equal(page.json().meta.batas, 7)
    } finally {
      await app.close()
    }
  })
})

describe('the conformance checker', () => {
  let app: FastifyInstance
  let check: ReturnType<typeof conformanceChecker>

  before(async () => {
    app = await testApp({ closedBy: 'caller' })
    check = conformanceChecker(await fetchDocument(app))
  })
  after(() => app.close())

  // Item answers carry an ETag (decisions.md 8): the document requires it on them.
  const etag = '"AAAAAAAAAAAAAAAAAAAAAA"'
  const jsonHeaders = { 'content-type': 'application/json; charset=utf-8', etag }
  const reply = (statusCode: number, body: unknown, headers: Json = jsonHeaders): SeenResponse => ({
    statusCode,
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  const task = { id: 1, title: 'Belajar REST', status: 'belum' }
  const notFound = { error: { kode: 'TIDAK_ADA', pesan: 'endpoint not found' } }

  function rejects(method: string, url: string, response: SeenResponse, why: RegExp) {
    assert.throws(
      () => check({ method, url }, response),
      (error: unknown) => {
        assert.ok(error instanceof AssertionError, `not an AssertionError: ${String(error)}`)
        assert.ok(error.message.includes(`${method} ${url}`), `message names no request`)
        assert.ok(error.message.includes(String(response.statusCode)), 'message names no status')
        assert.match(error.message, why)
        return true
      },
    )
  }

  test('accepts conforming responses', () => {
    check({ method: 'GET', url: '/tugas/1' }, reply(200, task))
    check({ method: 'GET', url: '/v1/tugas/1?x=1' }, reply(200, task))
    // Segments are percent-decoded one by one, as the router does.
    check({ method: 'GET', url: '/%761/tug%61s/%31' }, reply(200, task))
    check({ method: 'GET', url: '/tugas' }, reply(200, [task]))
    check({ method: 'DELETE', url: '/tugas/1' }, reply(204, '', {}))
    check({ method: 'GET', url: '/tugas/abc' }, reply(404, notFound))
    check({ method: 'OPTIONS', url: '/tugas' }, reply(404, notFound))
    check(
      { method: 'POST', url: '/tugas' },
      reply(201, task, { ...jsonHeaders, location: '/tugas/1' }),
    )
    // The document itself is an operation of it, checked like any other.
    const served = { openapi: '3.1.0', info: { title: 't', version: '1' }, servers: [], paths: {} }
    check({ method: 'GET', url: '/openapi.json' }, reply(200, { ...served, components: {} }))
    // HEAD: not checked.
    check({ method: 'HEAD', url: '/tugas/1' }, reply(200, ''))
  })

  test("the service's own endpoints are checked: the document, the page, the metrics", () => {
    rejects('GET', '/openapi.json', reply(200, {}), /schema/)
    const html = { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "'self'" }
    check({ method: 'GET', url: '/docs' }, reply(200, '<!doctype html>', html))
    const json = { ...html, 'content-type': 'application/json; charset=utf-8' }
    rejects('GET', '/docs', reply(200, '<!doctype html>', json), /content-type/)
    const text = { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }
    check({ method: 'GET', url: '/metrics' }, reply(200, '# HELP tugas_x x\n', text))
    rejects('GET', '/metrics', reply(200, 'tugas_x 1\n', text), /schema/)
    rejects('GET', '/metrics', reply(503, 'metrics unavailable: 1 worker\n', text), /Retry-After/)
  })

  test('fails a body that does not match the schema', () => {
    rejects('GET', '/tugas/1', reply(200, { id: 'x' }), /schema/)
    rejects('GET', '/v1/tugas/1', reply(200, { ...task, status: 'lain' }), /schema/)
    rejects('GET', '/tugas', reply(200, { data: [task] }), /schema/)
    rejects('GET', '/tugas/1', reply(404, { error: { kode: 'TIDAK_ADA' } }), /schema/)
  })

  test('fails an undocumented status', () => {
    rejects('GET', '/tugas/1', reply(418, { error: { kode: 'TEKO', pesan: 'teko' } }), /418/)
    rejects('DELETE', '/tugas/1', reply(200, task), /not documented/)
  })

  test('fails a wrong content type, a non-JSON body, a missing Location, a 204 body', () => {
    rejects(
      'GET',
      '/tugas/1',
      reply(200, task, { 'content-type': 'text/plain', etag }),
      /content-type/,
    )
    rejects('GET', '/tugas/1', reply(200, '{"id":', jsonHeaders), /not valid JSON/)
    rejects('POST', '/tugas', reply(201, task), /Location/)
    rejects('DELETE', '/tugas/1', reply(204, 'x', {}), /body is not empty/)
  })

  test('an operation with its own servers matches only there', () => {
    // Surface D is documented at the root (servers: /), not under the /v1 prefix.
    check({ method: 'GET', url: '/produk/1' }, reply(200, { id: 1, nama: 'B', harga: 1, stok: 1 }))
    check({ method: 'GET', url: '/v1/users' }, reply(404, notFound))
    rejects(
      'GET',
      '/v1/users',
      reply(200, { data: [], meta: { page: 1, total: 0 } }),
      /not documented/,
    )
  })

  test('another method on a documented path: 405 with the documented methods in Allow, or the E1 404', () => {
    const notAllowed = { error: { code: 'METHOD_NOT_ALLOWED', message: 'm' } }
    check(
      { method: 'PUT', url: '/users/1' },
      reply(405, notAllowed, { ...jsonHeaders, allow: 'GET, HEAD' }),
    )
    // The body is the path's x-method-not-allowed.
    rejects('PUT', '/users/1', reply(405, {}, { ...jsonHeaders, allow: 'GET, HEAD' }), /schema/)
    check({ method: 'PUT', url: '/tugas/1' }, reply(404, notFound))
    rejects('PUT', '/users/1', reply(405, {}, { ...jsonHeaders, allow: 'GET' }), /Allow/)
    rejects('PUT', '/users/1', reply(405, {}, { ...jsonHeaders, allow: 'GET, HEAD, PUT' }), /Allow/)
    rejects('PUT', '/users/1', reply(200, {}), /405 or 404 was expected/)
  })

  test('a segment that is not an integer id reaches the operation, which must refuse it', () => {
    const invalidId = { error: { code: 'INVALID_ID', message: 'id "abc" is not an integer' } }
    check({ method: 'GET', url: '/users/abc' }, reply(400, invalidId, jsonHeaders))
    check({ method: 'GET', url: '/users/-1' }, reply(404, invalidId, jsonHeaders))
    rejects('GET', '/users/abc', reply(200, { data: {} }), /not documented.*4xx/)
    rejects('GET', '/users/abc', reply(418, invalidId), /not documented/)
  })

  test('fails an undocumented path or method that is not the E1 404', () => {
    rejects('GET', '/tugas/abc', reply(200, task), /not documented/)
    rejects('GET', '/tugas%2F1', reply(200, task), /not documented/)
    rejects('GET', '/tugas/1.5', reply(200, task), /not documented/)
    rejects('GET', '/nope', reply(404, { error: 'not found' }), /E1/)
    rejects('GET', '/nope', reply(404, { error: { kode: 'X', pesan: 'p' } }), /TIDAK_ADA/)
    rejects('OPTIONS', '/tugas', reply(204, '', {}), /405 or 404 was expected/)
    rejects('GET', '/v1/openapi.json', reply(200, { openapi: '3.1.0' }), /not documented/)
  })
})
