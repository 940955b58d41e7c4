// `/kredensial` (decisions.md 10, docs/supporting.md#credentials-managed-at-run-time), on the
// store of the pass: admin only (401, then 403), every body violation at once, the secret
// shown once and working at once as a Bearer token and an X-API-Key, revocation and expiry
// refused from then on, the last admin credential kept, `last_used_at` noted.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { credentialViolations } from '../../../src/surfaces/supporting/credentials/rules.js'
import { call, testApp } from '../../support/helpers.js'
import { ADMIN, assertE2, BUDI, bearer } from '../../support/supporting.js'

const SECRET = /^tgs_[A-Za-z0-9_-]{43}$/
const json = { 'content-type': 'application/json' }

const create = (app: FastifyInstance, body: unknown, secret = ADMIN) =>
  call(app, {
    method: 'POST',
    url: '/kredensial',
    headers: { ...bearer(secret), ...json },
    payload: JSON.stringify(body),
  })

const get = (app: FastifyInstance, url: string, secret = ADMIN) =>
  call(app, { method: 'GET', url, headers: bearer(secret) })

const revoke = (app: FastifyInstance, id: number | string, secret = ADMIN) =>
  call(app, { method: 'DELETE', url: `/kredensial/${id}`, headers: bearer(secret) })

const profile = (app: FastifyInstance, headers: Record<string, string>) =>
  call(app, { method: 'GET', url: '/profil', headers })

describe('/kredensial', async () => {
  const logs: Record<string, unknown>[] = []
  const app = await testApp({ logs })

  test('the seeded credentials are listed with ids from 1 in seed order, never a secret', async () => {
    const list = await get(app, '/kredensial')
    assert.equal(list.statusCode, 200)
    const seeded = list.json().data.slice(0, 3)
    assert.deepEqual(
      seeded.map(({ id, nama, peran, kedaluwarsa }: Record<string, unknown>) => ({
        id,
        nama,
        peran,
        kedaluwarsa,
      })),
      [
        { id: 1, nama: 'admin', peran: 'admin', kedaluwarsa: null },
        { id: 2, nama: 'budi', peran: 'user', kedaluwarsa: null },
        { id: 3, nama: 'siti', peran: 'user', kedaluwarsa: null },
      ],
    )
    for (const credential of seeded) {
      assert.deepEqual(Object.keys(credential), [
        'id',
        'nama',
        'peran',
        'created_at',
        'kedaluwarsa',
        'last_used_at',
      ])
    }
    assert.doesNotMatch(list.body, /demo-|tgs_|secret|digest/)
  })

  test('POST is 201 with Location and a secret that works at once, both ways; never shown again', async () => {
    const response = await create(app, { nama: '  ci-deploy  ', peran: 'user' })
    assert.equal(response.statusCode, 201, response.body)
    const { data } = response.json()
    assert.deepEqual(Object.keys(data), [
      'id',
      'nama',
      'peran',
      'secret',
      'created_at',
      'kedaluwarsa',
    ])
    assert.match(data.secret, SECRET)
    assert.equal(Buffer.from(data.secret.slice(4), 'base64url').length, 32)
    assert.equal(response.headers.location, `/kredensial/${data.id}`)
    assert.deepEqual([data.nama, data.peran, data.kedaluwarsa], ['ci-deploy', 'user', null])
    for (const headers of [bearer(data.secret), { 'x-api-key': data.secret }]) {
      const me = await profile(app, headers)
      assert.equal(me.statusCode, 200)
      assert.deepEqual(me.json(), { data: { nama: 'ci-deploy', peran: 'user' } })
    }
    const one = await get(app, `/kredensial/${data.id}`)
    assert.equal(one.statusCode, 200)
    const { last_used_at, ...rest } = one.json().data
    assert.deepEqual(rest, {
      id: data.id,
      nama: 'ci-deploy',
      peran: 'user',
      created_at: data.created_at,
      kedaluwarsa: null,
    })
    // Used just now: within a few seconds of it.
    assert.ok(Math.abs(Date.parse(last_used_at) - Date.now()) < 5000, last_used_at)
    const list = await get(app, '/kredensial')
    for (const answer of [one, list]) assert.doesNotMatch(answer.body, new RegExp(data.secret))
    assert.doesNotMatch(JSON.stringify(logs), new RegExp(data.secret.slice(4, 30)))
  })

  test('revoked: 204, then refused as unknown (401) and gone (404)', async () => {
    const { data } = (await create(app, { nama: 'sementara', peran: 'user' })).json()
    assert.equal((await profile(app, bearer(data.secret))).statusCode, 200)
    const revoked = await revoke(app, data.id)
    assert.equal(revoked.statusCode, 204)
    assert.equal(revoked.body, '')
    assertE2(await profile(app, bearer(data.secret)), 401, 'UNAUTHENTICATED')
    assertE2(await profile(app, { 'x-api-key': data.secret }), 401, 'UNAUTHENTICATED')
    assertE2(await get(app, `/kredensial/${data.id}`), 404, 'NOT_FOUND')
    assertE2(await revoke(app, data.id), 404, 'NOT_FOUND')
  })

  test('an expired credential is refused (401) and still listed; the expiry must be in the future', async () => {
    const kedaluwarsa = new Date(Date.now() + 1500).toISOString()
    const { data } = (await create(app, { nama: 'sebentar', peran: 'admin', kedaluwarsa })).json()
    assert.equal(data.kedaluwarsa, kedaluwarsa)
    assert.equal((await profile(app, bearer(data.secret))).statusCode, 200)
    await new Promise((resolve) => setTimeout(resolve, 1600))
    assertE2(await profile(app, bearer(data.secret)), 401, 'UNAUTHENTICATED')
    assert.equal((await get(app, `/kredensial/${data.id}`)).json().data.kedaluwarsa, kedaluwarsa)
    const past = new Date(Date.now() - 1000).toISOString()
    assertE2(
      await create(app, { nama: 'lalu', peran: 'user', kedaluwarsa: past }),
      400,
      'VALIDATION_ERROR',
      {
        kedaluwarsa: credentialViolations.kedaluwarsa,
      },
    )
  })

  test('the last admin credential that has not expired cannot be revoked: 409 LAST_ADMIN', async () => {
    // The seed's admin is the only one left unexpired (the one above has expired).
    assertE2(await revoke(app, 1), 409, 'LAST_ADMIN')
    assert.equal((await profile(app, bearer(ADMIN))).statusCode, 200)
    const { data } = (await create(app, { nama: 'admin-baru', peran: 'admin' })).json()
    assert.equal((await revoke(app, 1, data.secret)).statusCode, 204)
    assertE2(await profile(app, bearer(ADMIN)), 401, 'UNAUTHENTICATED')
    assertE2(await revoke(app, data.id, data.secret), 409, 'LAST_ADMIN')
  })
})

describe('/metrics counts the credentials refused, by reason', async () => {
  const app = await testApp()
  const refused = async () => {
    const text = (await call(app, { method: 'GET', url: '/metrics' })).body
    const count = (reason: string) =>
      Number(
        new RegExp(`^tugas_credentials_refused_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(
          text,
        )?.[1] ?? 0,
      )
    return { unknown: count('unknown'), revoked: count('revoked'), expired: count('expired') }
  }

  test('unknown, revoked and expired apart', async () => {
    const kedaluwarsa = new Date(Date.now() + 500).toISOString()
    const revoked = (await create(app, { nama: 'dicabut', peran: 'user' })).json().data
    const expiring = (await create(app, { nama: 'habis', peran: 'user', kedaluwarsa })).json().data
    assert.equal((await revoke(app, revoked.id)).statusCode, 204)
    await new Promise((resolve) => setTimeout(resolve, 600))
    const before = await refused()
    assertE2(await profile(app, bearer('tidak-pernah-ada')), 401, 'UNAUTHENTICATED')
    assertE2(await profile(app, bearer(revoked.secret)), 401, 'UNAUTHENTICATED')
    assertE2(await profile(app, { 'x-api-key': revoked.secret }), 401, 'UNAUTHENTICATED')
    assertE2(await profile(app, bearer(expiring.secret)), 401, 'UNAUTHENTICATED')
    const after = await refused()
    assert.deepEqual(
      {
        unknown: after.unknown - before.unknown,
        revoked: after.revoked - before.revoked,
        expired: after.expired - before.expired,
      },
      { unknown: 1, revoked: 2, expired: 1 },
    )
  })
})

describe('/kredensial: checks and their order', async () => {
  const app = await testApp()

  test('401 without a credential or with an unknown one, before anything else', async () => {
    for (const headers of [{}, bearer('tidak-dikenal')]) {
      const posted = await call(app, { method: 'POST', url: '/kredensial', headers, payload: 'x' })
      assertE2(posted, 401, 'UNAUTHENTICATED')
      assertE2(
        await call(app, { method: 'GET', url: '/kredensial', headers }),
        401,
        'UNAUTHENTICATED',
      )
      assertE2(
        await call(app, { method: 'GET', url: '/kredensial/x', headers }),
        401,
        'UNAUTHENTICATED',
      )
      assertE2(
        await call(app, { method: 'DELETE', url: '/kredensial/1', headers }),
        401,
        'UNAUTHENTICATED',
      )
    }
  })

  test('403 for a user, before the body, the id or existence', async () => {
    assertE2(await create(app, 'bukan json', BUDI), 403, 'FORBIDDEN')
    assertE2(await get(app, '/kredensial', BUDI), 403, 'FORBIDDEN')
    assertE2(await get(app, '/kredensial/x', BUDI), 403, 'FORBIDDEN')
    assertE2(await revoke(app, 1, BUDI), 403, 'FORBIDDEN')
  })

  test('then 415, 400 INVALID_JSON, and every violation of a body at once', async () => {
    const plain = await call(app, {
      method: 'POST',
      url: '/kredensial',
      headers: { ...bearer(ADMIN), 'content-type': 'text/plain' },
      payload: '{}',
    })
    assertE2(plain, 415, 'UNSUPPORTED_MEDIA_TYPE')
    const broken = await call(app, {
      method: 'POST',
      url: '/kredensial',
      headers: { ...bearer(ADMIN), ...json },
      payload: '{"nama":',
    })
    assertE2(broken, 400, 'INVALID_JSON')
    const { nama, peran, kedaluwarsa } = credentialViolations
    const bad: [unknown, Record<string, string>][] = [
      [{}, { nama, peran }],
      [[], { nama, peran }],
      [
        { nama: '   ', peran: 'root', kedaluwarsa: 'besok' },
        { kedaluwarsa, nama, peran },
      ],
      [{ nama: 'a'.repeat(101), peran: 'user' }, { nama }],
      [{ nama: 'ok', peran: 'Admin' }, { peran }],
      [{ nama: 'ok', peran: 'user', kedaluwarsa: '2099-02-30T00:00:00Z' }, { kedaluwarsa }],
      [{ nama: 'ok', peran: 'user', kedaluwarsa: '2099-01-01T00:00:00' }, { kedaluwarsa }],
      [{ nama: 'ok', peran: 'user', kedaluwarsa: null }, { kedaluwarsa }],
      [{ nama: 'ok', peran: 'user', kedaluwarsa: 4102444800000 }, { kedaluwarsa }],
    ]
    for (const [body, details] of bad) {
      assertE2(await create(app, body), 400, 'VALIDATION_ERROR', details)
    }
    // 100 characters after trimming, an emoji counting one: taken.
    const longest = await create(app, { nama: ` ${'😀'.repeat(100)} `, peran: 'user' })
    assert.equal(longest.statusCode, 201, longest.body)
  })

  test('ids: 400 INVALID_ID, then 404 NOT_FOUND', async () => {
    for (const url of ['/kredensial/abc', '/kredensial/1.5']) {
      assertE2(await get(app, url), 400, 'INVALID_ID')
    }
    assertE2(await revoke(app, 'x'), 400, 'INVALID_ID')
    assertE2(await get(app, '/kredensial/99999'), 404, 'NOT_FOUND')
    assertE2(await revoke(app, 0), 404, 'NOT_FOUND')
  })
})
