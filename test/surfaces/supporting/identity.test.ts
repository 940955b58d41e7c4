// Surface D identity: /profil and /panel-admin (Part 1 Surface D, Part 2 Authentication rules 3
// to 5 and the role policy; decisions.md sections 2, 4).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { sharedApp, testApp } from '../../support/helpers.js'
import { ADMIN, apiKey, assertE2, BUDI, bearer, callD, SITI } from '../../support/supporting.js'

type Headers = Record<string, string>

const DEMO = [
  [ADMIN, 'admin', 'admin'],
  [BUDI, 'budi', 'user'],
  [SITI, 'siti', 'user'],
] as const

const get = (app: FastifyInstance, url: string, headers: Headers = {}) =>
  callD(app, { method: 'GET', url, headers })

function assertWhoAmI(response: LightMyRequestResponse, nama: string, peran: string) {
  const what = `got ${response.statusCode} ${response.body}`
  assert.equal(response.statusCode, 200, what)
  assert.match(String(response.headers['content-type']), /^application\/json/, what)
  assert.deepEqual(response.json(), { data: { nama, peran } }, what)
}

describe('GET /profil', () => {
  test('answers exactly { data: { nama, peran } } for each demo credential, in both forms', async () => {
    const app = await sharedApp()
    for (const [secret, nama, peran] of DEMO) {
      assertWhoAmI(await get(app, '/profil', bearer(secret)), nama, peran)
      assertWhoAmI(await get(app, '/profil', apiKey(secret)), nama, peran)
    }
  })

  test('answers the identity of a custom seed credential', async () => {
    const app = await testApp({
      seed: {
        credentials: {
          'tok-ani': { nama: 'Ani Wijaya', peran: 'user' },
          'tok-boss': { nama: 'boss', peran: 'admin' },
        },
      },
    })
    assertWhoAmI(await get(app, '/profil', bearer('tok-ani')), 'Ani Wijaya', 'user')
    assertWhoAmI(await get(app, '/profil', apiKey('tok-boss')), 'boss', 'admin')
  })

  test('no credential or an unknown one is 401 UNAUTHENTICATED with WWW-Authenticate', async () => {
    const app = await sharedApp()
    for (const headers of [
      {},
      bearer('nope'),
      apiKey('nope'),
      { authorization: `Basic ${BUDI}` },
    ]) {
      const response = await get(app, '/profil', headers)
      assertE2(response, 401, 'UNAUTHENTICATED')
      assert.equal(response.headers['www-authenticate'], 'Bearer realm="api"')
    }
  })

  test('an unregistered method is 405 METHOD_NOT_ALLOWED with Allow: GET, HEAD, before the credential', async () => {
    const app = await testApp()
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      for (const headers of [{}, bearer(BUDI)]) {
        const response = await app.inject({ method, url: '/profil', headers })
        assertE2(response, 405, 'METHOD_NOT_ALLOWED')
        assert.equal(response.headers.allow, 'GET, HEAD', method)
      }
    }
  })

  test('HEAD /profil: 200 with a valid credential, 401 with the challenge without one', async () => {
    const app = await sharedApp()
    const ok = await app.inject({ method: 'HEAD', url: '/profil', headers: bearer(BUDI) })
    assert.equal(ok.statusCode, 200)
    assert.equal(ok.body, '')
    const viaKey = await app.inject({ method: 'HEAD', url: '/profil', headers: apiKey(SITI) })
    assert.equal(viaKey.statusCode, 200)
    const denied = await app.inject({ method: 'HEAD', url: '/profil' })
    assert.equal(denied.statusCode, 401)
    assert.equal(denied.headers['www-authenticate'], 'Bearer realm="api"')
    assert.equal(denied.body, '')
    const unknown = await app.inject({ method: 'HEAD', url: '/profil', headers: bearer('nope') })
    assert.equal(unknown.statusCode, 401)
  })
})

describe('GET /panel-admin', () => {
  test('an admin gets 200 { data: { nama: "admin", peran: "admin" } }', async () => {
    const app = await sharedApp()
    assertWhoAmI(await get(app, '/panel-admin', bearer(ADMIN)), 'admin', 'admin')
    assertWhoAmI(await get(app, '/panel-admin', apiKey(ADMIN)), 'admin', 'admin')
  })

  test('every role except admin is 403 FORBIDDEN, naming the role and GET /panel-admin', async () => {
    const app = await sharedApp()
    for (const headers of [bearer(BUDI), bearer(SITI), apiKey(BUDI), apiKey(SITI)]) {
      const response = await get(app, '/panel-admin', headers)
      const error = assertE2(response, 403, 'FORBIDDEN')
      assert.ok(error.message.includes('user'), `names the role: ${error.message}`)
      assert.ok(error.message.includes('GET /panel-admin'), `names the endpoint: ${error.message}`)
      assert.equal(response.headers['www-authenticate'], undefined, 'a 403 carries no challenge')
    }
  })

  test('the role decides, not the name: admin role under another name is let in, a user named admin is not', async () => {
    const app = await testApp({
      seed: {
        credentials: {
          'tok-boss': { nama: 'boss', peran: 'admin' },
          'tok-fake': { nama: 'admin', peran: 'user' },
        },
      },
    })
    assertWhoAmI(await get(app, '/panel-admin', bearer('tok-boss')), 'boss', 'admin')
    assertE2(await get(app, '/panel-admin', bearer('tok-fake')), 403, 'FORBIDDEN')
  })

  test('no credential or an unknown one is 401, not 403', async () => {
    const app = await sharedApp()
    for (const headers of [
      {},
      bearer('nope'),
      apiKey('nope'),
      apiKey(''),
      { authorization: 'Bearer' },
      { ...bearer('nope'), ...apiKey(ADMIN) },
      { authorization: `Basic ${ADMIN}` },
    ]) {
      const response = await get(app, '/panel-admin', headers)
      assertE2(response, 401, 'UNAUTHENTICATED')
      assert.equal(response.headers['www-authenticate'], 'Bearer realm="api"')
    }
  })

  test('Bearer decides alone: a user Bearer with the admin X-API-Key is 403', async () => {
    const app = await sharedApp()
    const response = await get(app, '/panel-admin', { ...bearer(BUDI), ...apiKey(ADMIN) })
    assertE2(response, 403, 'FORBIDDEN')
  })

  test('an unregistered method is 405 with Allow: GET, HEAD, before the credential', async () => {
    const app = await testApp()
    for (const headers of [{}, bearer(BUDI), bearer(ADMIN)]) {
      const response = await app.inject({ method: 'POST', url: '/panel-admin', headers })
      assertE2(response, 405, 'METHOD_NOT_ALLOWED')
      assert.equal(response.headers.allow, 'GET, HEAD')
    }
  })

  test('HEAD /panel-admin: 200 for an admin, 403 for a user, 401 without a credential', async () => {
    const app = await sharedApp()
    const head = (headers: Headers) => app.inject({ method: 'HEAD', url: '/panel-admin', headers })
    assert.equal((await head(bearer(ADMIN))).statusCode, 200)
    assert.equal((await head(bearer(BUDI))).statusCode, 403)
    const denied = await head({})
    assert.equal(denied.statusCode, 401)
    assert.equal(denied.headers['www-authenticate'], 'Bearer realm="api"')
  })
})
