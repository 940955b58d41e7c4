// /openapi.json in every configuration that changes it (decisions.md 3: "`/openapi.json`
// describes what the running configuration actually serves"; Part 2: "The self-description
// document declares the server prefix `/v1`"): TUGAS_VERSIONING x PRODUK_VERSIONING x
// USERS_VARIANT. Each document is valid OpenAPI 3.1, lists exactly the operations served, with
// the forms of this mode, and the responses the service really gives in this mode conform to it.
import assert, { AssertionError } from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Validator } from '@seriousme/openapi-schema-validator'
import { Ajv2020 } from 'ajv/dist/2020.js'
import type { FastifyInstance } from 'fastify'
import type { ProdukVersioning, TugasVersioning, UsersVariant } from '../../../src/config.js'
import {
  conformanceChecker,
  type SeenResponse,
  serverPath,
  serversAsText,
} from '../../support/conformance.js'
import { call, json, testApp } from '../../support/helpers.js'

type Json = Record<string, unknown>

const V2 = 'application/vnd.tugas.v2+json'
const TUGAS_MODES = ['none', 'path', 'header'] as const
const PRODUK_MODES = ['none', 'header'] as const
const USERS_VARIANTS = ['enveloped', 'flat'] as const

interface Combo {
  tugasVersioning: TugasVersioning
  produkVersioning: ProdukVersioning
  usersVariant: UsersVariant
}
const COMBOS: Combo[] = TUGAS_MODES.flatMap((tugasVersioning) =>
  PRODUK_MODES.flatMap((produkVersioning) =>
    USERS_VARIANTS.map((usersVariant) => ({ tugasVersioning, produkVersioning, usersVariant })),
  ),
)
const name = (combo: Combo) =>
  `TUGAS_VERSIONING=${combo.tugasVersioning} PRODUK_VERSIONING=${combo.produkVersioning} USERS_VARIANT=${combo.usersVariant}`

/** Surface A, described under the document's server `/v1` (GET /tugas apart). */
const SURFACE_A = [
  'POST /tugas',
  'GET /tugas/{id}',
  'PUT /tugas/{id}',
  'PATCH /tugas/{id}',
  'DELETE /tugas/{id}',
  'GET /tugas/{id}/komentar',
  'POST /tugas/{id}/komentar',
  'GET /tugas/{id}/komentar/{kid}',
]
/** Served at the root: the v2 task list, surfaces B and C, surface D with the product versions. */
const AT_ROOT = [
  'GET /v2/tugas',
  'GET /api/health',
  'GET /api/tugas',
  'POST /api/tugas',
  'GET /api/tugas/{id}',
  'PUT /api/tugas/{id}',
  'DELETE /api/tugas/{id}',
  // POST /todos in either TODOS_VARIANT (basic here).
  'GET /todos',
  'POST /todos',
  'GET /todos/{id}',
  'PUT /todos/{id}',
  'DELETE /todos/{id}',
  'GET /users',
  'POST /users',
  'GET /users/{id}',
  'POST /pesanan',
  'GET /pesanan/{id}',
  'POST /pesanan/{id}/bayar',
  'GET /produk',
  'GET /produk/{id}',
  'GET /v1/produk',
  'GET /v2/produk',
  'GET /dokumen',
  'GET /dokumen/{id}',
  'DELETE /dokumen/{id}',
  'GET /profil',
  'GET /panel-admin',
  'GET /laporan',
  'GET /laporan-penjualan',
  // Credentials managed at run time (decisions.md 10).
  'POST /kredensial',
  'GET /kredensial',
  'GET /kredensial/{id}',
  'DELETE /kredensial/{id}',
  // The change feed and the webhooks (decisions.md 9).
  'GET /events',
  'POST /webhooks',
  'GET /webhooks',
  'GET /webhooks/{id}',
  'DELETE /webhooks/{id}',
  'GET /webhooks/{id}/deliveries',
  // Replaying a subscription's events (decisions.md 11).
  'POST /webhooks/{id}/replay',
  // The service's own: this document, the page on it, the AsyncAPI document of the events
  // (decisions.md 11), readiness (decisions.md 7), metrics.
  'GET /openapi.json',
  'GET /docs',
  'GET /asyncapi.json',
  'GET /health/ready',
  'GET /metrics',
]

/**
 * The operations a configuration serves. Every mode has the same `METHOD path` set: GET /tugas
 * exists in each (Part 1 list, the v1 list at `/v1` only, or the Accept-chosen list) and
 * /v1/produk, /v2/produk are additive; the forms differ, as the tests below check.
 */
const EXPECTED_OPERATIONS = [...SURFACE_A, 'GET /tugas', ...AT_ROOT].sort()

function object(value: unknown, what: string): Json {
  assert.ok(
    typeof value === 'object' && value !== null && !Array.isArray(value),
    `${what} is not an object`,
  )
  return value as Json
}

function operation(document: Json, method: string, path: string): Json {
  const item = object(object(document.paths, 'paths')[path], `paths[${path}]`)
  return object(item[method.toLowerCase()], `${method} ${path}`)
}

const statuses = (document: Json, method: string, path: string) =>
  Object.keys(object(operation(document, method, path).responses, `${method} ${path} responses`))

function operationsOf(document: Json): string[] {
  const found: string[] = []
  for (const [path, item] of Object.entries(object(document.paths, 'paths'))) {
    for (const method of Object.keys(object(item, path))) {
      if (['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'].includes(method)) {
        found.push(`${method.toUpperCase()} ${path}`)
      }
    }
  }
  return found.sort()
}

async function fetchDocument(app: FastifyInstance): Promise<Json> {
  const response = await app.inject({ method: 'GET', url: '/openapi.json' })
  assert.equal(response.statusCode, 200)
  assert.match(String(response.headers['content-type']), /^application\/json\b/)
  return object(response.json(), 'the document')
}

// Answers that carry an item have an ETag (decisions.md 8): the document requires it on them.
const jsonHeaders = {
  'content-type': 'application/json; charset=utf-8',
  etag: '"AAAAAAAAAAAAAAAAAAAAAA"',
}
const reply = (statusCode: number, body: unknown, headers: Json = jsonHeaders): SeenResponse => ({
  statusCode,
  headers,
  body: JSON.stringify(body),
})
const task = { id: 1, title: 'Belajar REST', status: 'selesai' }
const page = { data: [task], meta: { halaman: 1, batas: 10, total: 1, totalHalaman: 1 } }
const e1 = (kode: string) => ({ error: { kode, pesan: 'p' } })
const e2 = (code: string) => ({ error: { code, message: 'm' } })
const product = { id: 1, nama: 'Buku', harga: 50000, stok: 12 }
const productsV2 = {
  data: [{ id: 1, nama: 'Buku', harga: 50000 }],
  meta: { versi: '2', jumlah: 1 },
}
const user = { id: 1, name: 'A', email: 'a@x.id', created_at: '2026-01-01T00:00:00.000Z' }

type Checker = ReturnType<typeof conformanceChecker>

function accepts(check: Checker, method: string, url: string, response: SeenResponse) {
  assert.doesNotThrow(
    () => check({ method, url }, response),
    `${method} ${url} ${response.statusCode} ${response.body} should conform`,
  )
}

function rejects(check: Checker, method: string, url: string, response: SeenResponse) {
  assert.throws(
    () => check({ method, url }, response),
    AssertionError,
    `${method} ${url} ${response.statusCode} ${response.body} should not conform`,
  )
}

for (const combo of COMBOS) {
  describe(`/openapi.json with ${name(combo)}`, () => {
    let app: FastifyInstance
    let document: Json
    let check: Checker

    before(async () => {
      app = await testApp({ config: combo, closedBy: 'caller' })
      document = await fetchDocument(app)
      check = conformanceChecker(document)
    })
    after(() => app.close())

    test('is a valid OpenAPI 3.1.0 document, with the server prefix /v1', async () => {
      const result = await new Validator().validate(structuredClone(document))
      assert.equal(result.valid, true, `not valid OpenAPI: ${JSON.stringify(result.errors)}`)
      assert.equal(document.openapi, '3.1.0')
      assert.ok(Array.isArray(document.servers), 'servers is not an array')
      assert.ok(
        document.servers.some((server) => object(server, 'a server').url === '{origin}/v1'),
        `no server {origin}/v1: ${JSON.stringify(document.servers)}`,
      )
    })

    test('lists exactly the operations served', () => {
      assert.deepEqual(operationsOf(document), EXPECTED_OPERATIONS)
    })

    test('every documented operation is served at its server (not the generic 404)', async () => {
      const fresh = await testApp({ config: combo })
      try {
        const generic = await fresh.inject({ url: '/no-such-endpoint' })
        assert.equal(generic.statusCode, 404)
        for (const key of EXPECTED_OPERATIONS) {
          const [method = '', path = ''] = key.split(' ')
          const servers = (operation(document, method, path).servers ?? document.servers) as Json[]
          const served = serverPath(object(servers[0], `${key} server`))
          assert.ok(served !== undefined, `${key}: ${JSON.stringify(servers[0])} has no path`)
          const prefix = served.replace(/\/$/, '')
          // A stream never ends, so an inject of it would never return: it is asked for with a
          // malformed id, its 400 enough to show it is served (test/surfaces/events streams it).
          const stream = key === 'GET /events' ? '?after=x' : ''
          const url = `${prefix}${path.replace(/\{[^}]+\}/g, '1')}${stream}`
          const response = await call(fresh, {
            method: method as 'GET',
            url,
            headers: { ...json, accept: 'application/json' },
            payload: method === 'GET' || method === 'DELETE' ? undefined : '{}',
          })
          const what = `${key} at ${url}: ${response.statusCode} ${response.body}`
          assert.notEqual(response.statusCode, 405, what)
          assert.notEqual(response.body, generic.body, what)
        }
      } finally {
        await fresh.close()
      }
    })

    test('surface A under /v1; /v2/tugas and surface D with the operation server /', () => {
      for (const key of [...SURFACE_A, 'GET /tugas']) {
        const [method = '', path = ''] = key.split(' ')
        const servers = operation(document, method, path).servers
        if (key === 'GET /tugas' && combo.tugasVersioning === 'path') {
          // Only /v1/tugas answers the v1 form; the root GET /tugas is the 404.
          assert.deepEqual(serversAsText(servers), ['{origin}/v1 origin=http://localhost'], key)
        } else {
          assert.equal(servers, undefined, `${key} inherits the document's /v1`)
        }
      }
      for (const key of AT_ROOT) {
        const [method = '', path = ''] = key.split(' ')
        assert.deepEqual(
          serversAsText(operation(document, method, path).servers),
          ['{origin} origin=http://localhost'],
          key,
        )
      }
      for (const [path, item] of Object.entries(object(document.paths, 'paths'))) {
        assert.equal(object(item, path).servers, undefined, `${path} has path-level servers`)
      }
    })

    test('GET /tugas is documented in the form of this mode', () => {
      const codes = statuses(document, 'GET', '/tugas')
      switch (combo.tugasVersioning) {
        case 'none':
          assert.deepEqual(codes.sort(), ['200', '422', '500', '503'])
          accepts(check, 'GET', '/tugas', reply(200, [task]))
          accepts(check, 'GET', '/v1/tugas?halaman=1', reply(200, page))
          accepts(
            check,
            'GET',
            '/tugas',
            reply(422, { error: { ...e1('VALIDASI_GAGAL').error, detail: ['x'] } }),
          )
          rejects(check, 'GET', '/tugas', reply(200, [{ id: 1, nama: 'x' }]))
          rejects(check, 'GET', '/tugas', reply(406, e1('FORMAT_TIDAK_DUKUNG')))
          break
        case 'path':
          // No 4xx of its own: the HTTP parser's refusals (408, 431) are listed.
          assert.deepEqual(codes.sort(), ['200', '408', '431', '500', '503'])
          accepts(check, 'GET', '/v1/tugas', reply(200, [{ id: 1, nama: 'Belajar REST' }]))
          rejects(check, 'GET', '/v1/tugas', reply(200, [task]))
          rejects(check, 'GET', '/v1/tugas', reply(200, [{ id: 1, nama: 'x', title: 'x' }]))
          rejects(check, 'GET', '/v1/tugas', reply(200, page))
          // The root GET /tugas is undocumented: only the service's E1 404 conforms there.
          accepts(check, 'GET', '/tugas', reply(404, e1('TIDAK_ADA')))
          rejects(check, 'GET', '/tugas', reply(200, [{ id: 1, nama: 'x' }]))
          break
        case 'header': {
          assert.deepEqual(codes.sort(), ['200', '406', '422', '500', '503'])
          const ok = object(
            object(operation(document, 'GET', '/tugas').responses, 'responses')['200'],
            '200',
          )
          assert.ok(Object.hasOwn(object(ok.headers, '200 headers'), 'Vary'), 'Vary is documented')
          for (const url of ['/tugas', '/v1/tugas']) {
            accepts(check, 'GET', url, reply(200, [{ id: 1, nama: 'x' }]))
            accepts(check, 'GET', url, reply(200, page))
            accepts(check, 'GET', url, reply(406, e1('FORMAT_TIDAK_DUKUNG')))
            rejects(check, 'GET', url, reply(200, [task]))
            rejects(check, 'GET', url, reply(406, e2('NOT_ACCEPTABLE')))
          }
          break
        }
      }
    })

    test('GET /v2/tugas: the page envelope at the root, 422 for the query', () => {
      assert.deepEqual(statuses(document, 'GET', '/v2/tugas').sort(), ['200', '422', '500', '503'])
      accepts(check, 'GET', '/v2/tugas', reply(200, page))
      rejects(check, 'GET', '/v2/tugas', reply(200, [task]))
      rejects(check, 'GET', '/v2/tugas', reply(200, [{ id: 1, nama: 'x' }]))
      rejects(check, 'GET', '/v1/v2/tugas', reply(200, page))
    })

    test('GET /v1/produk documents 200 { id, nama } with Sunset, and 410 E2', () => {
      assert.deepEqual(statuses(document, 'GET', '/v1/produk').sort(), ['200', '410', '500', '503'])
      const responses = object(operation(document, 'GET', '/v1/produk').responses, 'responses')
      for (const code of ['200', '410']) {
        const headers = object(object(responses[code], code).headers, `${code} headers`)
        for (const header of ['Sunset', 'Deprecation', 'Link']) {
          assert.ok(Object.hasOwn(headers, header), `/v1/produk ${code} documents ${header}`)
        }
      }
      accepts(check, 'GET', '/v1/produk', reply(200, [{ id: 1, nama: 'Buku' }]))
      accepts(check, 'GET', '/v1/produk', reply(410, e2('VERSION_RETIRED')))
      rejects(check, 'GET', '/v1/produk', reply(200, [product]))
      rejects(check, 'GET', '/v1/produk', reply(410, e1('VERSION_RETIRED')))
    })

    test('GET /v2/produk documents 200 with meta.versi the string "2"', () => {
      assert.deepEqual(statuses(document, 'GET', '/v2/produk').sort(), [
        '200',
        '408',
        '431',
        '500',
        '503',
      ])
      accepts(check, 'GET', '/v2/produk', reply(200, productsV2))
      rejects(
        check,
        'GET',
        '/v2/produk',
        reply(200, { ...productsV2, meta: { versi: 2, jumlah: 1 } }),
      )
      rejects(check, 'GET', '/v2/produk', reply(200, [product]))
      rejects(check, 'GET', '/v2/produk', reply(410, e2('VERSION_RETIRED')))
    })

    test('GET /produk is documented in the form of this mode', () => {
      const codes = statuses(document, 'GET', '/produk')
      if (combo.produkVersioning === 'none') {
        assert.deepEqual(codes.sort(), ['200', '408', '431', '500', '503'])
        accepts(check, 'GET', '/produk', reply(200, [product]))
        rejects(check, 'GET', '/produk', reply(200, [{ id: 1, nama: 'Buku' }]))
        rejects(check, 'GET', '/produk', reply(200, productsV2))
        rejects(check, 'GET', '/produk', reply(410, e2('VERSION_RETIRED')))
      } else {
        assert.deepEqual(codes.sort(), ['200', '410', '500', '503'])
        accepts(check, 'GET', '/produk', reply(200, [{ id: 1, nama: 'Buku' }]))
        accepts(check, 'GET', '/produk', reply(200, productsV2))
        accepts(check, 'GET', '/produk', reply(410, e2('VERSION_RETIRED')))
        rejects(check, 'GET', '/produk', reply(200, [product]))
      }
    })

    test('the users operations are documented in the variant of this mode', () => {
      const created = { ...jsonHeaders, location: '/users/1' }
      const flat = combo.usersVariant === 'flat'
      const [mine, other] = flat ? [user, { data: user }] : [{ data: user }, user]
      accepts(check, 'POST', '/users', reply(201, mine, created))
      rejects(check, 'POST', '/users', reply(201, other, created))
      accepts(check, 'GET', '/users/1', reply(200, mine))
      rejects(check, 'GET', '/users/1', reply(200, other))
    })

    test('the body of POST /users is the one this variant reads: a password only when enveloped', () => {
      const body = object(operation(document, 'post', '/users').requestBody, 'requestBody')
      const content = object(body.content, 'content')
      const schema = object(content['application/json'], 'application/json').schema
      const valid = new Ajv2020({ strict: false }).compile(schema as object)
      const person = { name: 'Budi', email: 'budi@contoh.id' }
      const enveloped = combo.usersVariant === 'enveloped'
      assert.equal(valid({ ...person, password: 'rahasia123' }), true)
      assert.equal(valid(person), !enveloped, 'a body without a password')
      assert.equal(valid({ ...person, password: 'pendek' }), !enveloped, 'a 6-character password')
      assert.equal(valid({ name: 'Budi' }), false, 'a body without an email')
    })

    test('the responses of this mode conform to the document (call)', async () => {
      const seen = new Set<string>()
      const send = async (url: string, accept?: string) => {
        const response = await call(app, { url, headers: accept === undefined ? {} : { accept } })
        seen.add(`${url.replace(/\?.*/, '')} ${response.statusCode}`)
        return response
      }
      for (const path of ['/tugas', '/v1/tugas', '/v2/tugas']) {
        for (const query of ['', '?batas=2', '?halaman=0&urut=x']) {
          for (const accept of [
            undefined,
            'application/json',
            V2,
            `${V2}; charset=utf-8`,
            `${V2};q=0, application/json`,
            'text/html, application/json;q=0.1',
            'text/html',
            '*/*',
            'application/json;version=2',
          ]) {
            await send(`${path}${query}`, accept)
          }
        }
      }
      for (const path of ['/produk', '/v1/produk', '/v2/produk', '/produk/1']) {
        for (const accept of [
          undefined,
          'application/json',
          'application/json;version=2',
          'application/json;version=1',
          'application/json;version=2;q=0',
          'text/html',
          '*/*',
        ]) {
          await send(path, accept)
        }
      }
      // What each mode must have shown, so the sample is not all 404s.
      const expected = {
        none: ['/tugas 200', '/tugas 422', '/v1/tugas 200', '/v1/tugas 422'],
        path: ['/tugas 404', '/v1/tugas 200'],
        header: ['/tugas 200', '/tugas 406', '/tugas 422', '/v1/tugas 200', '/v1/tugas 406'],
      }[combo.tugasVersioning]
      for (const entry of [
        ...expected,
        '/v2/tugas 200',
        '/v2/tugas 422',
        '/v1/produk 200',
        '/v2/produk 200',
        '/produk 200',
      ]) {
        assert.ok(seen.has(entry), `${entry} not seen: ${[...seen].join(', ')}`)
      }

      // A few other calls: surface A writes and surface D.
      const other: [string, string, unknown?, Json?][] = [
        ['POST', '/tugas', { title: 'Baru' }],
        ['POST', '/v1/tugas', { title: 'Baru lagi' }],
        ['GET', '/v1/tugas/1'],
        [
          'POST',
          '/users',
          { name: 'Budi', email: `budi-${combo.usersVariant}@x.id`, password: 'rahasia123' },
        ],
        ['POST', '/users', { name: '' }],
        ['GET', '/users'],
        ['GET', '/users/1'],
        ['GET', '/users/abc'],
        ['POST', '/pesanan', { email: 'budi@x.id', jumlah: 2 }],
        ['GET', '/pesanan/1'],
        ['POST', '/pesanan/1/bayar'],
        ['GET', '/dokumen', undefined, { authorization: 'Bearer demo-budi-token' }],
        ['GET', '/dokumen'],
        ['GET', '/profil', undefined, { 'x-api-key': 'demo-siti-token' }],
        ['GET', '/laporan', undefined, { 'x-api-key': 'demo-admin-token' }],
      ]
      for (const [method, url, payload, headers] of other) {
        const response = await call(app, {
          method: method as 'GET' | 'POST',
          url,
          headers: { ...(payload !== undefined && json), ...headers },
          ...(payload !== undefined && { payload: JSON.stringify(payload) }),
        })
        assert.ok(response.statusCode < 500, `${method} ${url}: ${response.statusCode}`)
      }
    })

    test('after the products sunset, the 410 answers conform too', async () => {
      const retired = await testApp({
        config: { ...combo, produkV1Sunset: new Date('2020-01-01T00:00:00Z') },
      })
      try {
        const v1 = await call(retired, { url: '/v1/produk' })
        assert.equal(v1.statusCode, 410)
        const list = await call(retired, { url: '/produk' })
        assert.equal(list.statusCode, combo.produkVersioning === 'header' ? 410 : 200)
        const v2 = await call(retired, {
          url: '/produk',
          headers: { accept: 'application/json;version=2' },
        })
        assert.equal(v2.statusCode, 200)
        assert.equal((await call(retired, { url: '/v2/produk' })).statusCode, 200)
      } finally {
        await retired.close()
      }
    })
  })
}

describe('the document follows the configuration', () => {
  const documents = new Map<string, Json>()
  const responses = new Map<
    string,
    Map<string, { statusCode: number; headers: Json; body: string }>
  >()
  const SAMPLE: [url: string, accept?: string][] = [
    ['/tugas', 'application/json'],
    ['/tugas', V2],
    ['/tugas', 'text/html'],
    ['/v1/tugas', 'application/json'],
    ['/produk', 'application/json;version=2'],
    ['/produk', 'application/json'],
  ]

  before(async () => {
    for (const combo of COMBOS) {
      const app = await testApp({ config: combo })
      documents.set(name(combo), await fetchDocument(app))
      const seen = new Map<string, { statusCode: number; headers: Json; body: string }>()
      for (const [url, accept] of SAMPLE) {
        const response = await app.inject({ url, headers: accept ? { accept } : {} })
        seen.set(`${url} ${accept}`, {
          statusCode: response.statusCode,
          headers: response.headers as Json,
          body: response.body,
        })
      }
      responses.set(name(combo), seen)
      await app.close()
    }
  })

  const doc = (combo: Combo) => documents.get(name(combo)) as Json

  test('every configuration gives its own document', () => {
    const texts = new Set(COMBOS.map((combo) => JSON.stringify(doc(combo))))
    assert.equal(texts.size, COMBOS.length)
  })

  test('GET /tugas differs between every pair of task modes', () => {
    for (const produkVersioning of PRODUK_MODES) {
      for (const usersVariant of USERS_VARIANTS) {
        const ops = TUGAS_MODES.map((tugasVersioning) =>
          operation(doc({ tugasVersioning, produkVersioning, usersVariant }), 'GET', '/tugas'),
        )
        assert.equal(new Set(ops.map((op) => op.operationId)).size, 3, 'operationIds')
        assert.equal(new Set(ops.map((op) => JSON.stringify(op.responses))).size, 3, 'responses')
      }
    }
  })

  test('GET /produk differs between the product modes; nothing else of products does', () => {
    for (const tugasVersioning of TUGAS_MODES) {
      for (const usersVariant of USERS_VARIANTS) {
        const [none, header] = PRODUK_MODES.map((produkVersioning) =>
          doc({ tugasVersioning, produkVersioning, usersVariant }),
        ) as [Json, Json]
        const list = [none, header].map((d) => operation(d, 'GET', '/produk'))
        assert.notEqual(list[0]?.operationId, list[1]?.operationId)
        assert.notDeepEqual(list[0]?.responses, list[1]?.responses)
        for (const path of ['/v1/produk', '/v2/produk', '/produk/{id}']) {
          assert.deepEqual(operation(none, 'GET', path), operation(header, 'GET', path), path)
        }
      }
    }
  })

  test('the users operations differ between the user variants', () => {
    for (const tugasVersioning of TUGAS_MODES) {
      for (const produkVersioning of PRODUK_MODES) {
        const [enveloped, flat] = USERS_VARIANTS.map((usersVariant) =>
          doc({ tugasVersioning, produkVersioning, usersVariant }),
        ) as [Json, Json]
        assert.notDeepEqual(
          operation(enveloped, 'POST', '/users').responses,
          operation(flat, 'POST', '/users').responses,
        )
        assert.notDeepEqual(
          operation(enveloped, 'GET', '/users/{id}').responses,
          operation(flat, 'GET', '/users/{id}').responses,
        )
      }
    }
  })

  test("a document of another mode fails this mode's answers: the check has teeth", () => {
    const base = { produkVersioning: 'none', usersVariant: 'enveloped' } as const
    const answers = (combo: Combo, key: string) => {
      const found = responses.get(name(combo))?.get(key)
      assert.ok(found, `${name(combo)} ${key}`)
      return found
    }
    const checkerOf = (combo: Combo) => conformanceChecker(doc(combo))
    const none = { ...base, tugasVersioning: 'none' } as const
    const path = { ...base, tugasVersioning: 'path' } as const
    const header = { ...base, tugasVersioning: 'header' } as const

    // Each answer conforms to its own document...
    for (const combo of [none, path, header]) {
      for (const [url, accept] of SAMPLE) {
        accepts(checkerOf(combo), 'GET', url, answers(combo, `${url} ${accept}`))
      }
    }
    // ...and not to a document of another mode.
    const v1InPath = answers(path, '/v1/tugas application/json')
    rejects(checkerOf(none), 'GET', '/v1/tugas', v1InPath)
    const part1 = answers(none, '/v1/tugas application/json')
    rejects(checkerOf(path), 'GET', '/v1/tugas', part1)
    rejects(checkerOf(header), 'GET', '/v1/tugas', part1)
    const refused = answers(header, '/tugas text/html')
    assert.equal(refused.statusCode, 406)
    rejects(checkerOf(none), 'GET', '/tugas', refused)
    const v1InHeader = answers(header, '/tugas application/json')
    rejects(checkerOf(none), 'GET', '/tugas', v1InHeader)
    rejects(checkerOf(path), 'GET', '/tugas', v1InHeader)

    const produkHeader = { ...none, produkVersioning: 'header' } as const
    const v2 = answers(produkHeader, '/produk application/json;version=2')
    rejects(checkerOf(none), 'GET', '/produk', v2)
    const full = answers(none, '/produk application/json')
    rejects(checkerOf(produkHeader), 'GET', '/produk', full)
  })
})
