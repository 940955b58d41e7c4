// GET /tugas: the flat form, the page envelope, and the four parameters (Part 1 list rules,
// Part 2 query violations, decisions.md: TUGAS_BATAS_DEFAULT, sort ties).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { call, sharedApp, testApp } from '../../support/helpers.js'

// ids 1..7; titles chosen so code-unit order differs from locale order ('B' < 'a').
const tugas = [
  { title: 'delta', status: 'belum' },
  { title: 'Bravo', status: 'selesai' },
  { title: 'alpha', status: 'belum' },
  { title: 'delta', status: 'selesai' },
  { title: 'charlie', status: 'belum' },
  { title: 'Bravo', status: 'belum' },
  { title: 'echo', status: 'selesai' },
]
const ids = (body: { data: { id: number }[] }) => body.data.map((task) => task.id)

describe('GET /tugas', () => {
  test('without list parameters: a flat array of every task, in id order', async () => {
    const app = await sharedApp({ seed: { tugas } })
    const response = await call(app, { url: '/tugas' })
    assert.equal(response.statusCode, 200)
    assert.match(String(response.headers['content-type']), /^application\/json/)
    const body = response.json()
    assert.ok(Array.isArray(body))
    assert.deepEqual(
      body.map((task: { id: number }) => task.id),
      [1, 2, 3, 4, 5, 6, 7],
    )
    assert.deepEqual(body[1], { id: 2, title: 'Bravo', status: 'selesai' })
  })

  test('an empty list is an empty array; unknown parameters keep the flat form', async () => {
    const app = await sharedApp({ seed: {} })
    assert.deepEqual((await call(app, { url: '/tugas' })).json(), [])
    const withTasks = await sharedApp({ seed: { tugas } })
    assert.ok(Array.isArray((await call(withTasks, { url: '/tugas?cari=x&limit=2' })).json()))
  })

  test('any list parameter, even empty-valued and valid, gives the envelope', async () => {
    const app = await sharedApp({ seed: { tugas } })
    for (const query of ['halaman=1', 'batas=10', 'status=belum', 'urut=id']) {
      const body = (await call(app, { url: `/tugas?${query}` })).json()
      assert.deepEqual(Object.keys(body).sort(), ['data', 'meta'], query)
    }
  })

  test('defaults: halaman 1, batas from TUGAS_BATAS_DEFAULT (10 unless set), urut id', async () => {
    const app = await sharedApp({ seed: { tugas } })
    assert.deepEqual((await call(app, { url: '/tugas?halaman=1' })).json().meta, {
      halaman: 1,
      batas: 10,
      total: 7,
      totalHalaman: 1,
    })
    const three = await sharedApp({ seed: { tugas }, config: { tugasBatasDefault: 3 } })
    const page = (await call(three, { url: '/tugas?status=belum' })).json()
    assert.deepEqual(page.meta, { halaman: 1, batas: 3, total: 4, totalHalaman: 2 })
    assert.deepEqual(ids(page), [1, 3, 5])
  })

  test('filter, then sort, then slice; meta.total counts after the filter', async () => {
    const app = await sharedApp({ seed: { tugas } })
    const body = (
      await call(app, { url: '/tugas?status=belum&urut=-title&halaman=2&batas=2' })
    ).json()
    // belum: 1 delta, 3 alpha, 5 charlie, 6 Bravo; -title: delta, charlie, alpha, Bravo
    assert.deepEqual(ids(body), [3, 6])
    assert.deepEqual(body.meta, { halaman: 2, batas: 2, total: 4, totalHalaman: 2 })
  })

  test('totalHalaman = max(1, ceil(total / batas))', async () => {
    const app = await sharedApp({ seed: { tugas } })
    const meta = async (query: string) => (await call(app, { url: `/tugas?${query}` })).json().meta
    assert.equal((await meta('batas=3')).totalHalaman, 3)
    assert.equal((await meta('batas=7')).totalHalaman, 1)
    assert.equal((await meta('batas=100')).totalHalaman, 1)
    const empty = await sharedApp({ seed: {} })
    assert.deepEqual((await call(empty, { url: '/tugas?halaman=1' })).json(), {
      data: [],
      meta: { halaman: 1, batas: 10, total: 0, totalHalaman: 1 },
    })
  })

  test('a page past the end is 200 with an empty data array and meta intact', async () => {
    const app = await sharedApp({ seed: { tugas } })
    const response = await call(app, { url: '/tugas?halaman=99&batas=5' })
    assert.equal(response.statusCode, 200)
    assert.deepEqual(response.json(), {
      data: [],
      meta: { halaman: 99, batas: 5, total: 7, totalHalaman: 2 },
    })
  })

  test('sorting uses code-unit order; ties keep ascending id order in both directions', async () => {
    const app = await sharedApp({ seed: { tugas } })
    const order = async (urut: string) =>
      ids((await call(app, { url: `/tugas?urut=${urut}&batas=100` })).json())
    assert.deepEqual(await order('title'), [2, 6, 3, 5, 1, 4, 7])
    assert.deepEqual(await order('-title'), [7, 1, 4, 5, 3, 2, 6])
    assert.deepEqual(await order('status'), [1, 3, 5, 6, 2, 4, 7])
    assert.deepEqual(await order('-status'), [2, 4, 7, 1, 3, 5, 6])
    assert.deepEqual(await order('id'), [1, 2, 3, 4, 5, 6, 7])
    assert.deepEqual(await order('-id'), [7, 6, 5, 4, 3, 2, 1])
  })

  test('the sorted view follows writes', async () => {
    const app = await testApp({ seed: { tugas } })
    const first = async () => ids((await call(app, { url: '/tugas?urut=title&batas=1' })).json())
    assert.deepEqual(await first(), [2])
    await call(app, {
      method: 'POST',
      url: '/tugas',
      headers: { 'content-type': 'application/json' },
      payload: { title: 'Alpha' },
    })
    assert.deepEqual(await first(), [8])
    await call(app, { method: 'DELETE', url: '/tugas/8' })
    assert.deepEqual(await first(), [2])
  })

  test('every violation is collected into one 422, in the order of Part 2', async () => {
    const app = await sharedApp({ seed: { tugas } })
    const response = await call(app, { url: '/tugas?halaman=0&batas=101&status=done&urut=nama' })
    assert.equal(response.statusCode, 422)
    assert.deepEqual(response.json(), {
      error: {
        kode: 'VALIDASI_GAGAL',
        pesan: 'query parameters are invalid',
        detail: [
          'halaman is not an integer of at least 1',
          'batas is over 100',
          'status is not one of belum, selesai',
          'urut is not one of id, title, status (optionally prefixed with -)',
        ],
      },
    })
  })

  test('each parameter alone: what is refused', async () => {
    const app = await sharedApp({ seed: { tugas } })
    const refused: [string, string][] = [
      ['halaman=', 'halaman is not an integer of at least 1'],
      ['halaman=0', 'halaman is not an integer of at least 1'],
      ['halaman=-1', 'halaman is not an integer of at least 1'],
      ['halaman=1.5', 'halaman is not an integer of at least 1'],
      ['halaman=1e3', 'halaman is not an integer of at least 1'],
      ['halaman=abc', 'halaman is not an integer of at least 1'],
      ['halaman=1&halaman=2', 'halaman is not an integer of at least 1'],
      ['halaman=99999999999999999999', 'halaman is not an integer of at least 1'],
      ['batas=0', 'batas is not an integer of at least 1'],
      ['batas=x', 'batas is not an integer of at least 1'],
      ['batas=101', 'batas is over 100'],
      ['status=', 'status is not one of belum, selesai'],
      ['status=Belum', 'status is not one of belum, selesai'],
      ['urut=', 'urut is not one of id, title, status (optionally prefixed with -)'],
      ['urut=-', 'urut is not one of id, title, status (optionally prefixed with -)'],
      ['urut=--id', 'urut is not one of id, title, status (optionally prefixed with -)'],
      ['urut=+id', 'urut is not one of id, title, status (optionally prefixed with -)'],
    ]
    for (const [query, violation] of refused) {
      const response = await call(app, { url: `/tugas?${query}` })
      assert.equal(response.statusCode, 422, query)
      assert.deepEqual(response.json().error.detail, [violation], query)
    }
    for (const query of ['halaman=01', 'batas=1', 'batas=100', 'urut=-status', 'status=selesai']) {
      assert.equal((await call(app, { url: `/tugas?${query}` })).statusCode, 200, query)
    }
  })
})
