// Surface D access: the credential table, how a request presents a credential, the role policy,
// and the order 401 before 403 (Part 2 Authentication rules 1 to 5, decisions.md sections 4, 6).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { accessHook, presentedCredential } from '../../src/access/guard.js'
import type { Identity } from '../../src/access/identity.js'
import { MemoryCredentialStore } from '../../src/access/memory-store.js'
import { isAllowed, ROLE_POLICY } from '../../src/access/policy.js'
import type { CredentialStore } from '../../src/access/store.js'
import { ApiError } from '../../src/http/errors.js'
import { demoSeed } from '../../src/seed.js'
import { testApp } from '../support/helpers.js'
import { ADMIN, apiKey, assertE2, BUDI, bearer, callD, SITI } from '../support/supporting.js'

const CHALLENGE = 'Bearer realm="api"'

const fakeRequest = (headers: Record<string, string>) => ({ headers }) as unknown as FastifyRequest

const profil = (app: FastifyInstance, headers: Record<string, string> = {}) =>
  callD(app, { method: 'GET', url: '/profil', headers })

async function assertIdentity(
  app: FastifyInstance,
  headers: Record<string, string>,
  nama: string,
  peran: string,
) {
  const response = await profil(app, headers)
  const what = `${JSON.stringify(headers)}: got ${response.statusCode} ${response.body}`
  assert.equal(response.statusCode, 200, what)
  assert.deepEqual(response.json(), { data: { nama, peran } }, what)
}

async function assertUnauthenticated(app: FastifyInstance, headers: Record<string, string>) {
  const response = await profil(app, headers)
  assertE2(response, 401, 'UNAUTHENTICATED')
  assert.equal(response.headers['www-authenticate'], CHALLENGE, JSON.stringify(headers))
}

/** A credential table holding `credentials`, filled through the store interface. */
async function credentialTable(credentials: Record<string, Identity>): Promise<CredentialStore> {
  const store = new MemoryCredentialStore()
  for (const [secret, identity] of Object.entries(credentials)) await store.add(secret, identity)
  return store
}

describe('presentedCredential: what a request presents (rules 1 to 3)', () => {
  test('no header: nothing', () => {
    assert.equal(presentedCredential(fakeRequest({})), undefined)
  })

  test('Bearer: the scheme word is case-insensitive; the token is the text after the first space, trimmed', () => {
    for (const [authorization, secret] of [
      ['Bearer abc', 'abc'],
      ['bearer abc', 'abc'],
      ['BEARER abc', 'abc'],
      ['bEaReR abc', 'abc'],
      ['Bearer   abc  ', 'abc'],
      ['Bearer a b', 'a b'],
      ['Bearer', ''],
      ['Bearer ', ''],
      ['Bearer    ', ''],
    ] as const) {
      assert.deepEqual(
        presentedCredential(fakeRequest({ authorization })),
        { form: 'bearer', secret },
        JSON.stringify(authorization),
      )
    }
  })

  test('a Bearer Authorization decides alone, even empty, whatever X-API-Key says', () => {
    assert.deepEqual(
      presentedCredential(fakeRequest({ authorization: 'Bearer abc', 'x-api-key': 'key' })),
      { form: 'bearer', secret: 'abc' },
    )
    assert.deepEqual(
      presentedCredential(fakeRequest({ authorization: 'Bearer', 'x-api-key': 'key' })),
      { form: 'bearer', secret: '' },
    )
  })

  test('another scheme is ignored: X-API-Key is consulted', () => {
    for (const authorization of [
      'Basic YWJjOmRlZg==',
      'Token abc',
      'Bearerabc',
      'Bearer-x y',
      '',
    ]) {
      assert.deepEqual(
        presentedCredential(fakeRequest({ authorization, 'x-api-key': 'key' })),
        { form: 'api-key', secret: 'key' },
        JSON.stringify(authorization),
      )
      assert.equal(
        presentedCredential(fakeRequest({ authorization })),
        undefined,
        JSON.stringify(authorization),
      )
    }
  })

  test('X-API-Key alone is the key, taken as sent; an empty one counts as missing', () => {
    assert.deepEqual(presentedCredential(fakeRequest({ 'x-api-key': 'key' })), {
      form: 'api-key',
      secret: 'key',
    })
    assert.equal(presentedCredential(fakeRequest({ 'x-api-key': '' })), undefined)
  })
})

describe('ROLE_POLICY and isAllowed: deny by default (rule 5)', () => {
  test('the policy is exactly the table of Part 2, and decisions.md 9, 10 and 11 (admin only)', () => {
    assert.deepEqual(
      new Map([...ROLE_POLICY].map(([endpoint, roles]) => [endpoint, [...roles].sort()])),
      new Map([
        ['GET /dokumen', ['admin', 'user']],
        ['GET /dokumen/{id}', ['admin', 'user']],
        ['DELETE /dokumen/{id}', ['admin']],
        ['GET /profil', ['admin', 'user']],
        ['GET /panel-admin', ['admin']],
        ['GET /laporan', ['admin', 'user']],
        ['POST /kredensial', ['admin']],
        ['GET /kredensial', ['admin']],
        ['GET /kredensial/{id}', ['admin']],
        ['DELETE /kredensial/{id}', ['admin']],
        ['POST /webhooks', ['admin']],
        ['GET /webhooks', ['admin']],
        ['GET /webhooks/{id}', ['admin']],
        ['DELETE /webhooks/{id}', ['admin']],
        ['GET /webhooks/{id}/deliveries', ['admin']],
        ['POST /webhooks/{id}/replay', ['admin']],
      ]),
    )
  })

  test('each row allows its roles and no other', () => {
    for (const [endpoint, user, admin] of [
      ['GET /dokumen', true, true],
      ['GET /dokumen/{id}', true, true],
      ['DELETE /dokumen/{id}', false, true],
      ['GET /profil', true, true],
      ['GET /panel-admin', false, true],
      ['GET /laporan', true, true],
    ] as const) {
      assert.equal(isAllowed('user', endpoint), user, `user ${endpoint}`)
      assert.equal(isAllowed('admin', endpoint), admin, `admin ${endpoint}`)
    }
  })

  test('an endpoint missing from the policy is denied to every role, admin included', () => {
    for (const endpoint of [
      'POST /dokumen',
      'PUT /dokumen/{id}',
      'DELETE /dokumen',
      'GET /dokumen/1',
      'get /dokumen',
      'GET /dokumen/',
      'GET /PROFIL',
      'GET /rahasia',
      'GET /laporan-penjualan',
      'GET /users',
      '',
      'constructor',
      '__proto__',
    ]) {
      assert.equal(isAllowed('user', endpoint), false, `user ${endpoint}`)
      assert.equal(isAllowed('admin', endpoint), false, `admin ${endpoint}`)
    }
  })

  test('a role missing from a row is denied', () => {
    const other = 'superuser' as unknown as 'admin'
    for (const endpoint of ROLE_POLICY.keys()) {
      assert.equal(isAllowed(other, endpoint), false, endpoint)
    }
  })

  test('the access hook of an endpoint outside the policy answers 403 even to an admin', async () => {
    const hook = accessHook(await credentialTable(demoSeed.credentials), 'GET /rahasia')
    const run = (headers: Record<string, string>) =>
      hook.call({} as FastifyInstance, fakeRequest(headers), {} as FastifyReply) as Promise<unknown>
    const forbidden = await run(bearer(ADMIN)).then(
      () => assert.fail('an admin was let through'),
      (error: unknown) => error,
    )
    assert.ok(forbidden instanceof ApiError)
    assert.equal(forbidden.statusCode, 403)
    assert.equal(forbidden.code, 'FORBIDDEN')
    assert.match(forbidden.message, /admin/)
    assert.ok(forbidden.message.includes('GET /rahasia'), forbidden.message)
    // 401 still comes first.
    const unknown = await run(bearer('nope')).then(
      () => assert.fail('an unknown credential was let through'),
      (error: unknown) => error,
    )
    assert.ok(unknown instanceof ApiError)
    assert.equal(unknown.statusCode, 401)
    assert.equal(unknown.code, 'UNAUTHENTICATED')
  })
})

describe('credentials over HTTP (GET /profil)', () => {
  test('over HTTP, a __proto__ secret works as Bearer and as X-API-Key; others stay unknown', async () => {
    const app = await testApp({
      seed: JSON.parse('{"credentials":{"__proto__":{"nama":"x","peran":"admin"}}}'),
    })
    await assertIdentity(app, bearer('__proto__'), 'x', 'admin')
    await assertIdentity(app, apiKey('__proto__'), 'x', 'admin')
    const panel = await callD(app, { url: '/panel-admin', headers: bearer('__proto__') })
    assert.equal(panel.statusCode, 200)
    assert.deepEqual(panel.json(), { data: { nama: 'x', peran: 'admin' } })
    for (const secret of ['constructor', 'toString', ADMIN]) {
      await assertUnauthenticated(app, bearer(secret))
    }
    assert.equal(({} as Record<string, unknown>).nama, undefined)
  })

  test('each seed secret works as Authorization: Bearer and as X-API-Key', async () => {
    const app = await testApp()
    for (const [secret, nama, peran] of [
      [ADMIN, 'admin', 'admin'],
      [BUDI, 'budi', 'user'],
      [SITI, 'siti', 'user'],
    ] as const) {
      await assertIdentity(app, bearer(secret), nama, peran)
      await assertIdentity(app, apiKey(secret), nama, peran)
    }
  })

  test('a custom seed secret works in both forms; the demo secrets are then unknown', async () => {
    const app = await testApp({
      seed: { credentials: { 'rahasia-ani': { nama: 'ani', peran: 'user' } } },
    })
    await assertIdentity(app, bearer('rahasia-ani'), 'ani', 'user')
    await assertIdentity(app, apiKey('rahasia-ani'), 'ani', 'user')
    await assertUnauthenticated(app, bearer(BUDI))
    await assertUnauthenticated(app, apiKey(ADMIN))
  })

  test('the scheme word is case-insensitive; the token is the text after the first space, trimmed', async () => {
    const app = await testApp()
    for (const authorization of [
      `bearer ${BUDI}`,
      `BEARER ${BUDI}`,
      `bEaReR ${BUDI}`,
      `Bearer   ${BUDI}  `,
      `Bearer ${BUDI} `,
    ]) {
      await assertIdentity(app, { authorization }, 'budi', 'user')
    }
  })

  test('Bearer decides alone: a valid Bearer with an unknown X-API-Key is the Bearer identity', async () => {
    const app = await testApp()
    await assertIdentity(app, { ...bearer(BUDI), ...apiKey('nope') }, 'budi', 'user')
  })

  test('Bearer decides alone: Bearer for budi with the admin X-API-Key is budi', async () => {
    const app = await testApp()
    await assertIdentity(app, { ...bearer(BUDI), ...apiKey(ADMIN) }, 'budi', 'user')
    await assertIdentity(app, { ...bearer(ADMIN), ...apiKey(BUDI) }, 'admin', 'admin')
  })

  test('Bearer decides alone: an unknown Bearer with a valid X-API-Key is 401', async () => {
    const app = await testApp()
    await assertUnauthenticated(app, { ...bearer('nope'), ...apiKey(BUDI) })
    await assertUnauthenticated(app, { ...bearer(BUDI.toUpperCase()), ...apiKey(BUDI) })
  })

  test('Bearer with no token is 401, even with a valid X-API-Key', async () => {
    const app = await testApp()
    for (const authorization of ['Bearer', 'Bearer ', 'bearer    ']) {
      await assertUnauthenticated(app, { authorization })
      await assertUnauthenticated(app, { authorization, ...apiKey(ADMIN) })
    }
  })

  test('another scheme alone is 401 UNAUTHENTICATED, even when it carries a valid secret', async () => {
    const app = await testApp()
    for (const authorization of [
      'Basic YWRtaW46YWRtaW4=',
      `Basic ${BUDI}`,
      `Token ${BUDI}`,
      BUDI,
      `Bearer-${BUDI}`,
    ]) {
      await assertUnauthenticated(app, { authorization })
    }
  })

  test('another scheme plus a valid X-API-Key: the key decides', async () => {
    const app = await testApp()
    await assertIdentity(app, { authorization: `Basic ${ADMIN}`, ...apiKey(BUDI) }, 'budi', 'user')
    await assertIdentity(app, { authorization: 'Token nope', ...apiKey(SITI) }, 'siti', 'user')
    await assertUnauthenticated(app, { authorization: `Token ${BUDI}`, ...apiKey('nope') })
  })

  test('no credential is 401 UNAUTHENTICATED with WWW-Authenticate: Bearer realm="api"', async () => {
    await assertUnauthenticated(await testApp(), {})
  })

  test('an unknown secret, in either form, is 401 UNAUTHENTICATED', async () => {
    const app = await testApp()
    for (const secret of ['nope', 'demo-token', 'admin']) {
      await assertUnauthenticated(app, bearer(secret))
      await assertUnauthenticated(app, apiKey(secret))
    }
  })

  test('an empty X-API-Key counts as missing: 401', async () => {
    await assertUnauthenticated(await testApp(), apiKey(''))
  })

  test('secrets are compared exactly: other letter case, a prefix or a longer secret is 401', async () => {
    const app = await testApp()
    for (const secret of [
      BUDI.toUpperCase(),
      'Demo-budi-token',
      'demo-budi',
      BUDI.slice(0, -1),
      `${BUDI}x`,
      `${ADMIN}${BUDI}`,
    ]) {
      await assertUnauthenticated(app, bearer(secret))
      await assertUnauthenticated(app, apiKey(secret))
    }
  })

  test('the 401 body does not echo the secret that was sent', async () => {
    const app = await testApp()
    const secret = 'very-secret-but-wrong'
    for (const headers of [bearer(secret), apiKey(secret)]) {
      const response = await profil(app, headers)
      assertE2(response, 401, 'UNAUTHENTICATED')
      assert.ok(!response.body.includes(secret), response.body)
    }
  })
})

describe('401 before 403 (rule 4)', () => {
  test('DELETE /dokumen/1: no credential 401, unknown credential 401, budi 403', async () => {
    const app = await testApp()
    const remove = (headers: Record<string, string>) =>
      callD(app, { method: 'DELETE', url: '/dokumen/1', headers })
    assertE2(await remove({}), 401, 'UNAUTHENTICATED')
    assertE2(await remove(bearer('nope')), 401, 'UNAUTHENTICATED')
    assertE2(await remove(apiKey('nope')), 401, 'UNAUTHENTICATED')
    assertE2(await remove({ authorization: `Basic ${BUDI}` }), 401, 'UNAUTHENTICATED')
    const forbidden = await remove(bearer(BUDI))
    assertE2(forbidden, 403, 'FORBIDDEN')
    assert.equal(forbidden.headers['www-authenticate'], undefined, 'a 403 carries no challenge')
    assertE2(await remove(apiKey(SITI)), 403, 'FORBIDDEN')
  })

  test('GET /panel-admin: an unknown Bearer with the admin key is 401, not 200 or 403', async () => {
    const app = await testApp()
    const response = await callD(app, {
      url: '/panel-admin',
      headers: { ...bearer('nope'), ...apiKey(ADMIN) },
    })
    assertE2(response, 401, 'UNAUTHENTICATED')
  })
})
