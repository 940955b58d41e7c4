// Surface D documents: /dokumen and /dokumen/<id> (Part 1 Surface D, Part 2 Authentication: role
// policy and order of checks, E2 codes; decisions.md sections 2, 4).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { sharedApp, testApp } from '../../support/helpers.js'
import {
  ADMIN,
  apiKey,
  assertE2,
  assertNotAllowed,
  BUDI,
  bearer,
  callD,
  SITI,
} from '../../support/supporting.js'

const RENCANA = { id: 1, judul: 'Rencana', pemilik: 'budi' }
const ANGGARAN = { id: 2, judul: 'Anggaran', pemilik: 'budi' }
const LAPORAN = { id: 3, judul: 'Laporan bulanan', pemilik: 'siti' }
const KEBIJAKAN = { id: 4, judul: 'Kebijakan', pemilik: 'admin' }
const ALL = [RENCANA, ANGGARAN, LAPORAN, KEBIJAKAN]

type Headers = Record<string, string>

const list = (app: FastifyInstance, headers: Headers = {}) =>
  callD(app, { method: 'GET', url: '/dokumen', headers })
const read = (app: FastifyInstance, id: string | number, headers: Headers = {}) =>
  callD(app, { method: 'GET', url: `/dokumen/${id}`, headers })
const remove = (app: FastifyInstance, id: string | number, headers: Headers = {}) =>
  callD(app, { method: 'DELETE', url: `/dokumen/${id}`, headers })

function assertData(response: LightMyRequestResponse, data: unknown) {
  const what = `got ${response.statusCode} ${response.body}`
  assert.equal(response.statusCode, 200, what)
  assert.match(String(response.headers['content-type']), /^application\/json/, what)
  assert.deepEqual(response.json(), { data }, what)
}

/** The 403 of the role policy: it names the role and the endpoint pattern. */
function assertPolicyForbidden(response: LightMyRequestResponse, peran: string, endpoint: string) {
  const error = assertE2(response, 403, 'FORBIDDEN')
  assert.ok(error.message.includes(peran), `names the role ${peran}: ${error.message}`)
  assert.ok(error.message.includes(endpoint), `names ${endpoint}: ${error.message}`)
}

/** The 403 of ownership: it says the document is not the caller's, not a role failure. */
function assertNotYours(response: LightMyRequestResponse) {
  const error = assertE2(response, 403, 'FORBIDDEN')
  assert.match(error.message, /not yours|not the caller's|not your|belongs to another/i)
  assert.ok(!error.message.includes('/dokumen/{id}'), `not the policy message: ${error.message}`)
  return error
}

describe('GET /dokumen', () => {
  test('an admin gets every document, in id order, each exactly { id, judul, pemilik }', async () => {
    const app = await sharedApp()
    assertData(await list(app, bearer(ADMIN)), ALL)
    assertData(await list(app, apiKey(ADMIN)), ALL)
  })

  test('a user gets only the documents they own', async () => {
    const app = await sharedApp()
    assertData(await list(app, bearer(BUDI)), [RENCANA, ANGGARAN])
    assertData(await list(app, apiKey(BUDI)), [RENCANA, ANGGARAN])
    assertData(await list(app, bearer(SITI)), [LAPORAN])
  })

  test('a user owning nothing gets { data: [] }', async () => {
    const app = await testApp({
      seed: {
        credentials: { 'tok-ani': { nama: 'ani', peran: 'user' } },
        dokumen: [{ judul: 'Rencana', pemilik: 'budi' }],
      },
    })
    assertData(await list(app, bearer('tok-ani')), [])
  })

  test('an admin with no documents at all gets { data: [] }', async () => {
    const app = await testApp({
      seed: { credentials: { 'tok-boss': { nama: 'boss', peran: 'admin' } } },
    })
    assertData(await list(app, bearer('tok-boss')), [])
  })

  test('the role decides, not the name: an admin named otherwise sees all; a user named admin only theirs', async () => {
    const app = await testApp({
      seed: {
        credentials: {
          'tok-boss': { nama: 'boss', peran: 'admin' },
          'tok-fake': { nama: 'admin', peran: 'user' },
        },
        dokumen: [
          { judul: 'Rencana', pemilik: 'budi' },
          { judul: 'Kebijakan', pemilik: 'admin' },
          { judul: 'Tanpa pemilik', pemilik: 'nobody' },
        ],
      },
    })
    assertData(await list(app, bearer('tok-boss')), [
      { id: 1, judul: 'Rencana', pemilik: 'budi' },
      { id: 2, judul: 'Kebijakan', pemilik: 'admin' },
      { id: 3, judul: 'Tanpa pemilik', pemilik: 'nobody' },
    ])
    assertData(await list(app, bearer('tok-fake')), [
      { id: 2, judul: 'Kebijakan', pemilik: 'admin' },
    ])
    assertData(await read(app, 1, bearer('tok-boss')), {
      id: 1,
      judul: 'Rencana',
      pemilik: 'budi',
    })
    assertData(await read(app, 3, apiKey('tok-boss')), {
      id: 3,
      judul: 'Tanpa pemilik',
      pemilik: 'nobody',
    })
    assertData(await read(app, 2, bearer('tok-fake')), {
      id: 2,
      judul: 'Kebijakan',
      pemilik: 'admin',
    })
    assertNotYours(await read(app, 1, bearer('tok-fake')))
    assertPolicyForbidden(await remove(app, 2, bearer('tok-fake')), 'user', 'DELETE /dokumen/{id}')
    assert.equal((await remove(app, 3, bearer('tok-boss'))).statusCode, 204)
  })

  test('ownership is pemilik equal to the caller name, exactly', async () => {
    const app = await testApp({
      seed: {
        credentials: { 'tok-budi': { nama: 'budi', peran: 'user' } },
        dokumen: [
          { judul: 'A', pemilik: 'Budi' },
          { judul: 'B', pemilik: 'budi' },
          { judul: 'C', pemilik: 'budiman' },
        ],
      },
    })
    assertData(await list(app, bearer('tok-budi')), [{ id: 2, judul: 'B', pemilik: 'budi' }])
    assertNotYours(await read(app, 1, bearer('tok-budi')))
    assertNotYours(await read(app, 3, bearer('tok-budi')))
  })

  test('no credential or an unknown one is 401 UNAUTHENTICATED', async () => {
    const app = await sharedApp()
    assertE2(await list(app), 401, 'UNAUTHENTICATED')
    assertE2(await list(app, bearer('nope')), 401, 'UNAUTHENTICATED')
    assertE2(await list(app, apiKey('nope')), 401, 'UNAUTHENTICATED')
  })

  test('the query string changes nothing', async () => {
    const app = await sharedApp()
    assertData(await callD(app, { url: '/dokumen?pemilik=siti&all=1', headers: bearer(BUDI) }), [
      RENCANA,
      ANGGARAN,
    ])
  })
})

describe('GET /dokumen/<id>: credential, role policy, integer id, existence, ownership', () => {
  test('no credential is 401 whatever the id: the credential comes first', async () => {
    const app = await sharedApp()
    for (const id of ['1', '3', 'abc', '1.5', '99']) {
      assertE2(await read(app, id), 401, 'UNAUTHENTICATED')
      assertE2(await read(app, id, bearer('nope')), 401, 'UNAUTHENTICATED')
    }
  })

  test('a valid credential with an id that is not an integer is 400 INVALID_ID', async () => {
    const app = await sharedApp()
    for (const headers of [bearer(BUDI), bearer(ADMIN), apiKey(SITI)]) {
      for (const id of ['abc', '1.5', '1e3', '+1', '0x1', '%20', '1a', '--1']) {
        assertE2(await read(app, id, headers), 400, 'INVALID_ID')
      }
    }
  })

  test('a well-formed id that names nothing is 404 NOT_FOUND, for a user too (existence before ownership)', async () => {
    const app = await sharedApp()
    for (const headers of [bearer(ADMIN), bearer(BUDI), bearer(SITI)]) {
      for (const id of ['99', '-1', '0', '5', '99999999999999999999']) {
        assertE2(await read(app, id, headers), 404, 'NOT_FOUND')
      }
    }
  })

  test("a user reading another user's document is 403 FORBIDDEN: the document is not theirs", async () => {
    const app = await sharedApp()
    const error = assertNotYours(await read(app, 3, bearer(BUDI)))
    assert.ok(!error.message.includes('role'), `not a role failure: ${error.message}`)
    assertNotYours(await read(app, 1, bearer(SITI)))
    assertNotYours(await read(app, 4, apiKey(BUDI)))
  })

  test('a user reads their own document: 200 { data }', async () => {
    const app = await sharedApp()
    assertData(await read(app, 1, bearer(BUDI)), RENCANA)
    assertData(await read(app, 2, apiKey(BUDI)), ANGGARAN)
    assertData(await read(app, 3, bearer(SITI)), LAPORAN)
  })

  test('an admin reads any document', async () => {
    const app = await sharedApp()
    for (const document of ALL) assertData(await read(app, document.id, bearer(ADMIN)), document)
  })

  test('after a deletion, the document is 404 to everyone, its owner and others alike', async () => {
    const app = await testApp()
    assert.equal((await remove(app, 3, bearer(ADMIN))).statusCode, 204)
    assertE2(await read(app, 3, bearer(SITI)), 404, 'NOT_FOUND')
    assertE2(await read(app, 3, bearer(BUDI)), 404, 'NOT_FOUND')
  })
})

describe('DELETE /dokumen/<id>', () => {
  test('an admin deletes: 204 with an empty body; later reads are 404 and the list drops it', async () => {
    const app = await testApp()
    const response = await remove(app, 2, bearer(ADMIN))
    assert.equal(response.statusCode, 204)
    assert.equal(response.body, '')
    assertE2(await read(app, 2, bearer(ADMIN)), 404, 'NOT_FOUND')
    assertData(await list(app, bearer(ADMIN)), [RENCANA, LAPORAN, KEBIJAKAN])
    assertData(await list(app, bearer(BUDI)), [RENCANA])
  })

  test('deleting again is 404 NOT_FOUND', async () => {
    const app = await testApp()
    assert.equal((await remove(app, 1, apiKey(ADMIN))).statusCode, 204)
    assertE2(await remove(app, 1, apiKey(ADMIN)), 404, 'NOT_FOUND')
    assertE2(await remove(app, 99, bearer(ADMIN)), 404, 'NOT_FOUND')
    assertE2(await remove(app, -1, bearer(ADMIN)), 404, 'NOT_FOUND')
  })

  test('a user is 403 by the role policy, even for their own document; nothing is deleted', async () => {
    const app = await testApp()
    for (const [headers, id] of [
      [bearer(BUDI), 1],
      [bearer(BUDI), 3],
      [apiKey(SITI), 3],
    ] as const) {
      assertPolicyForbidden(await remove(app, id, headers), 'user', 'DELETE /dokumen/{id}')
    }
    assertData(await list(app, bearer(ADMIN)), ALL)
    assertData(await read(app, 1, bearer(BUDI)), RENCANA)
  })

  test('role policy comes before the id: budi on a bad or missing id is 403, an admin gets 400 or 404', async () => {
    const app = await testApp()
    for (const id of ['abc', '1.5', '99']) {
      assertPolicyForbidden(await remove(app, id, bearer(BUDI)), 'user', 'DELETE /dokumen/{id}')
    }
    assertE2(await remove(app, 'abc', bearer(ADMIN)), 400, 'INVALID_ID')
    assertE2(await remove(app, '1.5', bearer(ADMIN)), 400, 'INVALID_ID')
    assertE2(await remove(app, '99', bearer(ADMIN)), 404, 'NOT_FOUND')
  })

  test('credentials come before the role policy and the id: 401 without or with an unknown one', async () => {
    const app = await testApp()
    for (const id of ['1', 'abc']) {
      assertE2(await remove(app, id), 401, 'UNAUTHENTICATED')
      assertE2(await remove(app, id, apiKey('nope')), 401, 'UNAUTHENTICATED')
    }
    assertData(await list(app, bearer(ADMIN)), ALL)
  })

  test('the policy 403 and the ownership 403 are different messages', async () => {
    const app = await testApp()
    const policy = assertE2(await remove(app, 3, bearer(BUDI)), 403, 'FORBIDDEN')
    const ownership = assertE2(await read(app, 3, bearer(BUDI)), 403, 'FORBIDDEN')
    assert.notEqual(policy.message, ownership.message)
  })

  test('a deletion by one app does not touch another app (fresh data per process)', async () => {
    const first = await testApp()
    assert.equal((await remove(first, 4, bearer(ADMIN))).statusCode, 204)
    assertData(await list(await testApp(), bearer(ADMIN)), ALL)
  })
})

describe('/dokumen/<undecodable> (%zz)', () => {
  test('GET without a credential, or with an unknown one, is 401', async () => {
    const app = await sharedApp()
    assertE2(await app.inject({ url: '/dokumen/%zz' }), 401, 'UNAUTHENTICATED')
    assertE2(
      await app.inject({ url: '/dokumen/%zz', headers: bearer('nope') }),
      401,
      'UNAUTHENTICATED',
    )
  })

  test('GET with a valid credential is 400 INVALID_ID', async () => {
    const app = await sharedApp()
    assertE2(await app.inject({ url: '/dokumen/%zz', headers: bearer(BUDI) }), 400, 'INVALID_ID')
    assertE2(await app.inject({ url: '/dokumen/%zz', headers: apiKey(ADMIN) }), 400, 'INVALID_ID')
  })

  test('DELETE: budi is 403 by the policy, an admin 400, none 401', async () => {
    const app = await testApp()
    const del = (headers: Headers) => app.inject({ method: 'DELETE', url: '/dokumen/%zz', headers })
    assertPolicyForbidden(await del(bearer(BUDI)), 'user', 'DELETE /dokumen/{id}')
    assertE2(await del(bearer(ADMIN)), 400, 'INVALID_ID')
    assertE2(await del({}), 401, 'UNAUTHENTICATED')
  })

  test('PUT is 405 METHOD_NOT_ALLOWED with Allow: DELETE, GET, HEAD, with or without a credential', async () => {
    const app = await testApp()
    for (const headers of [{}, bearer(ADMIN)]) {
      const response = await app.inject({ method: 'PUT', url: '/dokumen/%zz', headers })
      assertE2(response, 405, 'METHOD_NOT_ALLOWED')
      assert.equal(response.headers.allow, 'DELETE, GET, HEAD')
    }
  })
})

describe('/dokumen: unregistered methods and unknown paths', () => {
  test('an unregistered method is 405 METHOD_NOT_ALLOWED (E2) with Allow', async () => {
    const app = await testApp()
    await assertNotAllowed(
      app,
      [
        ['POST', '/dokumen', 'GET, HEAD'],
        ['PUT', '/dokumen', 'GET, HEAD'],
        ['DELETE', '/dokumen', 'GET, HEAD'],
        ['PUT', '/dokumen/1', 'DELETE, GET, HEAD'],
        ['PATCH', '/dokumen/1', 'DELETE, GET, HEAD'],
        ['POST', '/dokumen/1', 'DELETE, GET, HEAD'],
        ['PUT', '/dokumen/abc', 'DELETE, GET, HEAD'],
      ],
      [{}, bearer('nope'), bearer(ADMIN), bearer(BUDI)].map((headers) => ({ headers })),
    )
  })

  test('the 405 comes before the body is read: a malformed JSON body is still 405', async () => {
    const app = await testApp()
    const response = await app.inject({
      method: 'POST',
      url: '/dokumen',
      headers: { 'content-type': 'application/json' },
      payload: '{',
    })
    assertE2(response, 405, 'METHOD_NOT_ALLOWED')
    assert.equal(response.headers.allow, 'GET, HEAD')
  })

  test('a 405 changes nothing', async () => {
    const app = await testApp()
    await app.inject({ method: 'PUT', url: '/dokumen/1', headers: bearer(ADMIN) })
    await app.inject({ method: 'POST', url: '/dokumen', headers: bearer(ADMIN) })
    assertData(await list(app, bearer(ADMIN)), ALL)
  })

  test('HEAD /dokumen and HEAD /dokumen/<id> follow the GET checks', async () => {
    const app = await sharedApp()
    const head = (url: string, headers: Headers = {}) =>
      app.inject({ method: 'HEAD', url, headers })
    assert.equal((await head('/dokumen', bearer(BUDI))).statusCode, 200)
    assert.equal((await head('/dokumen')).statusCode, 401)
    assert.equal((await head('/dokumen')).headers['www-authenticate'], 'Bearer realm="api"')
    assert.equal((await head('/dokumen/1', bearer(BUDI))).statusCode, 200)
    assert.equal((await head('/dokumen/3', bearer(BUDI))).statusCode, 403)
    assert.equal((await head('/dokumen/abc', bearer(BUDI))).statusCode, 400)
    assert.equal((await head('/dokumen/99', bearer(BUDI))).statusCode, 404)
  })

  test('a path below /dokumen/<id> is the service E1 404 TIDAK_ADA, credential or not', async () => {
    const app = await sharedApp()
    for (const headers of [{}, bearer(ADMIN)]) {
      const response = await app.inject({ url: '/dokumen/1/x', headers })
      assert.equal(response.statusCode, 404)
      const body = response.json()
      assert.deepEqual(Object.keys(body), ['error'])
      assert.equal(body.error.kode, 'TIDAK_ADA')
      assert.equal(typeof body.error.pesan, 'string')
    }
  })
})
