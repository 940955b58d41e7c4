// Surface D: products, /produk with PRODUK_VERSIONING=none (Part 1 Surface D, Part 2 E2 codes,
// decisions.md sections 3, 4 and 6: the flat array of full products, seed data, no credential).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { json, sharedApp, testApp } from '../../support/helpers.js'
import { assertE2, assertNotAllowed, bearer, callD } from '../../support/supporting.js'

const DEMO_PRODUCTS = [
  { id: 1, nama: 'Buku', harga: 50000, stok: 12 },
  { id: 2, nama: 'Pensil', harga: 3000, stok: 150 },
  { id: 3, nama: 'Penghapus', harga: 2000, stok: 0 },
]

function assertProduct(product: Record<string, unknown>) {
  assert.deepEqual(Object.keys(product).sort(), ['harga', 'id', 'nama', 'stok'])
  assert.ok(Number.isInteger(product.id), `id ${product.id}`)
  assert.equal(typeof product.nama, 'string')
  assert.ok(Number.isInteger(product.harga), `harga ${product.harga}`)
  assert.ok(Number.isInteger(product.stok), `stok ${product.stok}`)
}

function products(response: LightMyRequestResponse) {
  assert.equal(response.statusCode, 200, response.body)
  assert.match(String(response.headers['content-type']), /^application\/json/)
  const body = response.json()
  assert.ok(Array.isArray(body), `a flat array: ${response.body}`)
  for (const product of body) assertProduct(product)
  return body
}

describe('GET /produk', () => {
  test('is the flat array of the seed products, each exactly { id, nama, harga, stok }', async () => {
    const app = await sharedApp()
    assert.deepEqual(products(await callD(app, { url: '/produk' })), DEMO_PRODUCTS)
  })

  test('a custom seed is served, ids from 1 in seed order', async () => {
    const produk = [
      { nama: 'Tas', harga: 125000, stok: 3 },
      { nama: 'Buku', harga: 0, stok: 0 },
      { nama: 'Spidol 🖊', harga: 7500, stok: 9007199254740991 },
      { nama: 'Tas', harga: 1, stok: 1 },
    ]
    const app = await testApp({ seed: { produk } })
    assert.deepEqual(
      products(await callD(app, { url: '/produk' })),
      produk.map((product, i) => ({ id: i + 1, ...product })),
    )
  })

  test('an empty seed gives []', async () => {
    for (const seed of [{}, { produk: [] }]) {
      const app = await testApp({ seed })
      assert.deepEqual(products(await callD(app, { url: '/produk' })), [])
    }
  })

  test('in the default mode an Accept version parameter does not change the answer', async () => {
    const app = await sharedApp()
    for (const accept of ['application/json;version=2', 'application/json;version=1', '*/*']) {
      const response = await callD(app, { url: '/produk', headers: { accept } })
      assert.deepEqual(products(response), DEMO_PRODUCTS, accept)
    }
  })
})

describe('GET /produk/<id>', () => {
  test('200 with the bare product', async () => {
    const app = await sharedApp()
    for (const product of DEMO_PRODUCTS) {
      const response = await callD(app, { url: `/produk/${product.id}` })
      assert.equal(response.statusCode, 200)
      assert.match(String(response.headers['content-type']), /^application\/json/)
      const body = response.json()
      assertProduct(body)
      assert.deepEqual(body, product)
    }
  })

  test('a product of a custom seed is read by its id', async () => {
    const app = await testApp({
      seed: {
        produk: [
          { nama: 'A', harga: 1, stok: 2 },
          { nama: 'B', harga: 3, stok: 4 },
        ],
      },
    })
    const response = await callD(app, { url: '/produk/2' })
    assert.equal(response.statusCode, 200)
    assert.deepEqual(response.json(), { id: 2, nama: 'B', harga: 3, stok: 4 })
  })

  test('a well-formed id that names no product is 404 NOT_FOUND', async () => {
    const app = await sharedApp()
    for (const id of ['4', '0', '-1', '99999999999999999999']) {
      assertE2(await callD(app, { url: `/produk/${id}` }), 404, 'NOT_FOUND')
    }
    assertE2(await callD(await testApp({ seed: {} }), { url: '/produk/1' }), 404, 'NOT_FOUND')
  })

  test('an id that is not an integer is 400 INVALID_ID', async () => {
    const app = await sharedApp()
    for (const id of ['abc', '1.5', '1e3', '+1', '%201', '%00', '0x1', 'Buku']) {
      assertE2(await callD(app, { url: `/produk/${id}` }), 400, 'INVALID_ID')
    }
  })

  test('other paths below /produk are the service E1 404', async () => {
    const response = await callD(await testApp(), { url: '/produk/1/x' })
    assert.equal(response.statusCode, 404)
    assert.equal(response.json().error.kode, 'TIDAK_ADA')
  })
})

describe('/produk: methods', () => {
  test('HEAD /produk and HEAD /produk/<id> are served as GET, without a body', async () => {
    const app = await sharedApp()
    for (const url of ['/produk', '/produk/1']) {
      const response = await app.inject({ method: 'HEAD', url })
      assert.equal(response.statusCode, 200, url)
      assert.equal(response.body, '')
    }
  })

  test('products are read-only: other methods are 405 E2 with Allow: GET, HEAD', async () => {
    const app = await testApp()
    await assertNotAllowed(
      app,
      (
        [
          ['POST', '/produk'],
          ['PUT', '/produk'],
          ['DELETE', '/produk'],
          ['POST', '/produk/1'],
          ['PUT', '/produk/1'],
          ['PATCH', '/produk/1'],
          ['DELETE', '/produk/1'],
        ] as const
      ).map(([method, url]) => [method, url, 'GET, HEAD'] as const),
      [{ headers: json, payload: '{"nama":"X","harga":1,"stok":1}' }],
    )
    assert.deepEqual(products(await callD(app, { url: '/produk' })), DEMO_PRODUCTS)
  })
})

describe('/produk: no credential needed', () => {
  test('list and read answer without a credential, and an unknown token is not checked', async () => {
    const app = await sharedApp()
    for (const headers of [{}, { ...bearer('no-such-token'), 'x-api-key': 'nope' }]) {
      const list = await callD(app, { url: '/produk', headers })
      assert.deepEqual(products(list), DEMO_PRODUCTS)
      assert.equal(list.headers['www-authenticate'], undefined)
      assert.equal((await callD(app, { url: '/produk/1', headers })).statusCode, 200)
    }
  })
})
