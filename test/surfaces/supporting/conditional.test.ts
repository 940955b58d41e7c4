// Surface D's conditional requests (decisions.md 8): the ETag of GET /users/<id>, /pesanan/<id>,
// /produk/<id> and /dokumen/<id>, 304 on If-None-Match, and If-Match on POST /pesanan/<id>/bayar
// and DELETE /dokumen/<id>: 412 PRECONDITION_FAILED after the id, existence and the access
// checks, before 409 SUDAH_DIBAYAR.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { strongTag } from '../../../src/http/conditional.js'
import { conditionalSuite, OTHER_TAG, STRONG_TAG } from '../../support/conditional-kit.js'
import { json, testApp } from '../../support/helpers.js'
import { ADMIN, assertE2, BUDI, bearer, callD, SITI } from '../../support/supporting.js'

const preconditionFailed = (response: LightMyRequestResponse) => {
  assertE2(response, 412, 'PRECONDITION_FAILED')
}

/** Items only the seed makes: each `create` hands out the next seeded one. */
function seeded(prefix: string) {
  const next = new WeakMap<FastifyInstance, number>()
  return async (app: FastifyInstance) => {
    const id = (next.get(app) ?? 0) + 1
    next.set(app, id)
    return `${prefix}/${id}`
  }
}

const SEEDED = 40
const seed = {
  credentials: {
    [ADMIN]: { nama: 'admin', peran: 'admin' },
    [BUDI]: { nama: 'budi', peran: 'user' },
    [SITI]: { nama: 'siti', peran: 'user' },
  },
  produk: Array.from({ length: SEEDED }, (_, i) => ({ nama: `Barang ${i}`, harga: i, stok: 1 })),
  dokumen: Array.from({ length: SEEDED }, (_, i) => ({ judul: `Dokumen ${i}`, pemilik: 'budi' })),
}

async function createOrder(app: FastifyInstance, n: number): Promise<string> {
  const response = await callD(app, {
    method: 'POST',
    url: '/pesanan',
    headers: json,
    payload: { email: `p${n}@x.id`, jumlah: n + 1 },
  })
  assert.equal(response.statusCode, 201, response.body)
  return String(response.headers.location)
}

async function createUser(app: FastifyInstance, n: number): Promise<string> {
  const response = await callD(app, {
    method: 'POST',
    url: '/users',
    headers: json,
    payload: { name: `Pengguna ${n}`, email: `u${n}@x.id`, password: 'rahasia-sekali' },
  })
  assert.equal(response.statusCode, 201, response.body)
  return String(response.headers.location)
}

conditionalSuite('/pesanan/<id>', {
  app: () => testApp(),
  create: createOrder,
  missing: '/pesanan/999',
  writes: [{ method: 'POST', url: (url) => `${url}/bayar`, status: 200 }],
  preconditionFailed,
})

conditionalSuite('/dokumen/<id>', {
  app: () => testApp({ seed }),
  create: seeded('/dokumen'),
  missing: '/dokumen/999',
  headers: bearer(ADMIN),
  writes: [{ method: 'DELETE', status: 204, removes: true }],
  preconditionFailed,
})

conditionalSuite('/produk/<id>', {
  app: () => testApp({ seed }),
  create: seeded('/produk'),
  missing: '/produk/999',
  writes: [],
  preconditionFailed,
})

for (const usersVariant of ['enveloped', 'flat'] as const) {
  conditionalSuite(`/users/<id> (${usersVariant})`, {
    app: () => testApp({ config: { usersVariant } }),
    create: createUser,
    missing: '/users/999',
    writes: [],
    preconditionFailed,
  })
}

describe('surface D: ETags of creates and of each variant', () => {
  test('POST /users and POST /pesanan send the ETag their GET sends', async () => {
    const app = await testApp()
    for (const [url, payload] of [
      ['/users', { name: 'Ani', email: 'ani@x.id', password: 'rahasia-sekali' }],
      ['/pesanan', { email: 'ani@x.id', jumlah: 3 }],
    ] as const) {
      const created = await callD(app, { method: 'POST', url, headers: json, payload })
      assert.equal(created.statusCode, 201)
      assert.match(String(created.headers.etag), STRONG_TAG)
      const read = await callD(app, { url: String(created.headers.location) })
      assert.equal(read.headers.etag, created.headers.etag, url)
    }
  })

  test('each users variant tags the representation it sends', async () => {
    for (const usersVariant of ['enveloped', 'flat'] as const) {
      const app = await testApp({ config: { usersVariant } })
      const read = await callD(app, { url: await createUser(app, 1) })
      assert.equal(read.headers.etag, strongTag(read.body), usersVariant)
      assert.equal(usersVariant === 'enveloped', 'data' in read.json())
    }
  })
})

describe('surface D: the order of checks with conditional headers', () => {
  test('bayar: the id (400), existence (404), If-Match (412), then already paid (409)', async () => {
    const app = await testApp()
    const url = await createOrder(app, 1)
    const stale = { 'if-match': OTHER_TAG }
    const pay = (target: string, headers: Record<string, string>) =>
      callD(app, { method: 'POST', url: `${target}/bayar`, headers })
    assertE2(await pay('/pesanan/abc', stale), 400, 'INVALID_ID')
    assertE2(await pay('/pesanan/999', stale), 404, 'NOT_FOUND')
    const before = String((await callD(app, { url })).headers.etag)
    preconditionFailed(await pay(url, stale))
    assert.equal((await callD(app, { url })).json().data.status, 'MENUNGGU', 'nothing paid')
    const paid = await pay(url, { 'if-match': before })
    assert.equal(paid.statusCode, 200)
    assert.equal(paid.json().data.status, 'LUNAS')
    // Paid since: the old tag is stale (412); the current one reaches the 409.
    preconditionFailed(await pay(url, { 'if-match': before }))
    assertE2(await pay(url, { 'if-match': String(paid.headers.etag) }), 409, 'SUDAH_DIBAYAR', {
      status: 'LUNAS',
    })
    assertE2(await pay(url, { 'if-match': '*' }), 409, 'SUDAH_DIBAYAR', { status: 'LUNAS' })
  })

  test('20 concurrent payments with one If-Match: one 200, 19 412, none 409', async () => {
    const app = await testApp()
    const url = await createOrder(app, 1)
    const tag = String((await callD(app, { url })).headers.etag)
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        callD(app, { method: 'POST', url: `${url}/bayar`, headers: { 'if-match': tag } }),
      ),
    )
    const codes = answers.map((answer) => answer.statusCode).sort()
    assert.deepEqual(codes, [200, ...Array(19).fill(412)])
  })

  test('DELETE /dokumen: credential (401), admin only (403), id (400), 404, then 412', async () => {
    const app = await testApp({ seed })
    const stale = { 'if-match': OTHER_TAG }
    const remove = (id: string, headers: Record<string, string>) =>
      callD(app, { method: 'DELETE', url: `/dokumen/${id}`, headers: { ...stale, ...headers } })
    assertE2(await remove('1', {}), 401, 'UNAUTHENTICATED')
    assertE2(await remove('1', bearer(BUDI)), 403, 'FORBIDDEN')
    assertE2(await remove('x', bearer(ADMIN)), 400, 'INVALID_ID')
    assertE2(await remove('999', bearer(ADMIN)), 404, 'NOT_FOUND')
    preconditionFailed(await remove('1', bearer(ADMIN)))
    assert.equal((await callD(app, { url: '/dokumen/1', headers: bearer(ADMIN) })).statusCode, 200)
  })

  test('GET /dokumen/<id>: ownership (403) comes before 304; the owner and an admin get the same tag', async () => {
    const app = await testApp({ seed })
    const owner = await callD(app, { url: '/dokumen/1', headers: bearer(BUDI) })
    const admin = await callD(app, { url: '/dokumen/1', headers: bearer(ADMIN) })
    assert.equal(owner.headers.etag, admin.headers.etag)
    const tag = String(owner.headers.etag)
    const other = await callD(app, {
      url: '/dokumen/1',
      headers: { ...bearer(SITI), 'if-none-match': tag },
    })
    assertE2(other, 403, 'FORBIDDEN')
    assert.equal(other.headers.etag, undefined, 'a refused read leaks no tag')
    const stranger = await callD(app, { url: '/dokumen/1', headers: { 'if-none-match': '*' } })
    assertE2(stranger, 401, 'UNAUTHENTICATED')
    const cached = await callD(app, {
      url: '/dokumen/1',
      headers: { ...bearer(BUDI), 'if-none-match': tag },
    })
    assert.equal(cached.statusCode, 304)
  })

  test('GET by id: an id that is not an integer is 400 whatever If-None-Match says', async () => {
    const app = await testApp()
    for (const url of ['/users/x', '/pesanan/1.5', '/produk/abc']) {
      assertE2(await callD(app, { url, headers: { 'if-none-match': '*' } }), 400, 'INVALID_ID')
    }
  })
})
