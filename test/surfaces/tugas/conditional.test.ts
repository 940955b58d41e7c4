// Surface A's conditional requests (decisions.md 8): ETag on GET /tugas/<id> (also under /v1),
// on the comment and on every answer that carries a task; 304; 412 VERSI_TIDAK_COCOK after the
// surface's own checks and the 404; one winner among concurrent writers.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import {
  conditionalSuite,
  OTHER_TAG,
  STRONG_TAG,
  TagLedger,
} from '../../support/conditional-kit.js'
import { call, callJson, json, testApp } from '../../support/helpers.js'

function versiTidakCocok(response: LightMyRequestResponse) {
  assert.equal(response.statusCode, 412, response.body)
  const body = response.json()
  assert.deepEqual(Object.keys(body), ['error'])
  assert.deepEqual(Object.keys(body.error), ['kode', 'pesan'])
  assert.equal(body.error.kode, 'VERSI_TIDAK_COCOK')
  assert.equal(typeof body.error.pesan, 'string')
}

async function createTask(app: FastifyInstance, n: number, base = ''): Promise<string> {
  const response = await callJson(app, 'POST', `${base}/tugas`, { title: `Tugas nomor ${n}` })
  assert.equal(response.statusCode, 201)
  return String(response.headers.location)
}

for (const base of ['', '/v1']) {
  conditionalSuite(`${base}/tugas/<id>`, {
    app: () => testApp(),
    create: (app, n) => createTask(app, n, base),
    missing: `${base}/tugas/999`,
    writes: [
      {
        method: 'PUT',
        payload: (n) => ({ title: `Ganti ${n}`, status: n % 2 ? 'selesai' : 'belum' }),
        status: 200,
      },
      { method: 'PATCH', payload: (n) => ({ title: `Ubah ${n}` }), status: 200 },
      { method: 'DELETE', status: 204, removes: true },
    ],
    preconditionFailed: versiTidakCocok,
  })
}

describe('surface A: ETags and the representation', () => {
  test('the ETag changes exactly when the representation changes, on GET and every write', async () => {
    const app = await testApp()
    const url = await createTask(app, 1)
    const ledger = new TagLedger()
    const write = fc.oneof(
      fc.record({
        method: fc.constant('PATCH' as const),
        payload: fc.record(
          {
            title: fc.constantFrom('Satu', 'Dua', 'Tiga'),
            status: fc.constantFrom('belum', 'selesai'),
          },
          { requiredKeys: [] },
        ),
      }),
      fc.record({
        method: fc.constant('PUT' as const),
        payload: fc.record(
          {
            title: fc.constantFrom('Satu', 'Dua', ' Satu '),
            status: fc.constantFrom('belum', 'selesai'),
          },
          { requiredKeys: ['title'] },
        ),
      }),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(write, { maxLength: 12 }), async (writes) => {
        for (const { method, payload } of writes) {
          const before = await call(app, { url })
          const answer = await call(app, { method, url, headers: json, payload })
          assert.equal(answer.statusCode, 200)
          ledger.see(answer.body, String(answer.headers.etag))
          const after = await call(app, { url })
          ledger.see(after.body, String(after.headers.etag))
          assert.equal(
            after.headers.etag === before.headers.etag,
            after.body === before.body,
            'same tag exactly when the same body',
          )
        }
      }),
      { numRuns: 30 },
    )
    // Eight representations at most: four titles (the first, and `Satu` trimmed or not, `Dua`,
    // `Tiga`), two statuses; so equal representations recur, and each must bring its tag back.
    assert.ok(ledger.size <= 8, `${ledger.size} representations`)
  })

  test('two tasks with the same title and status have different tags (the id is in the body)', async () => {
    const app = await testApp()
    const a = await createTask(app, 7)
    const b = await createTask(app, 7)
    const tagA = (await call(app, { url: a })).headers.etag
    const tagB = (await call(app, { url: b })).headers.etag
    assert.notEqual(tagA, tagB)
  })

  test('POST /tugas and POST /tugas/<id>/komentar send the ETag of what their GET sends', async () => {
    const app = await testApp()
    const created = await callJson(app, 'POST', '/tugas', { title: 'Baru sekali' })
    assert.match(String(created.headers.etag), STRONG_TAG)
    const read = await call(app, { url: String(created.headers.location) })
    assert.equal(read.headers.etag, created.headers.etag)
    const komentar = await callJson(app, 'POST', '/v1/tugas/1/komentar', { isi: 'Catatan' })
    assert.equal(komentar.statusCode, 201)
    const readKomentar = await call(app, { url: String(komentar.headers.location) })
    assert.equal(readKomentar.headers.etag, komentar.headers.etag)
    assert.match(String(readKomentar.headers.etag), STRONG_TAG)
  })

  test('GET /tugas/<id>/komentar/<kid>: ETag, 304 on If-None-Match, 404 first', async () => {
    const app = await testApp()
    const read = await call(app, { url: '/tugas/1/komentar/1' })
    assert.equal(read.statusCode, 200)
    const tag = String(read.headers.etag)
    assert.match(tag, STRONG_TAG)
    const again = await call(app, {
      url: '/v1/tugas/1/komentar/1',
      headers: { 'if-none-match': `W/${tag}` },
    })
    assert.equal(again.statusCode, 304)
    assert.equal(again.body, '')
    assert.equal(again.headers.etag, tag)
    const other = await call(app, {
      url: '/tugas/1/komentar/1',
      headers: { 'if-none-match': OTHER_TAG },
    })
    assert.equal(other.statusCode, 200)
    for (const url of ['/tugas/1/komentar/999', '/tugas/999/komentar/1']) {
      const missing = await call(app, { url, headers: { 'if-none-match': '*' } })
      assert.equal(missing.statusCode, 404, url)
    }
  })

  test('the list GET /tugas is not an item: no ETag', async () => {
    const app = await testApp()
    const list = await call(app, { url: '/tugas', headers: { 'if-none-match': '*' } })
    assert.equal(list.statusCode, 200)
    assert.equal(list.headers.etag, undefined)
  })
})

describe('surface A: the order of checks with If-Match', () => {
  const stale = { 'if-match': OTHER_TAG }

  test('the body reader (415, 413, 400) and the rules (422) come before 412', async () => {
    const app = await testApp()
    for (const method of ['PUT', 'PATCH'] as const) {
      const cases = [
        { headers: { ...stale, 'content-type': 'text/plain' }, payload: 'x', status: 415 },
        { headers: { ...stale, ...json }, payload: '{"title":', status: 400 },
        {
          headers: { ...stale, ...json },
          payload: JSON.stringify({ title: 'x'.repeat(2 * 1024 * 1024) }),
          status: 413,
        },
        { headers: { ...stale, ...json }, payload: '{"title":"ab"}', status: 422 },
        { headers: { ...stale, ...json }, payload: '{"status":"rusak"}', status: 422 },
      ]
      for (const { headers, payload, status } of cases) {
        const response = await call(app, { method, url: '/tugas/1', headers, payload })
        assert.equal(response.statusCode, status, `${method} ${payload.slice(0, 20)}`)
      }
    }
  })

  test('existence (404) comes before 412; an id that is not digits is the endpoint 404', async () => {
    const app = await testApp()
    const cases = [
      { method: 'PUT' as const, payload: { title: 'Benar sekali' } },
      { method: 'PATCH' as const, payload: {} },
      { method: 'DELETE' as const },
    ]
    for (const { method, payload } of cases) {
      for (const url of ['/tugas/999', '/tugas/0', '/v1/tugas/00999']) {
        const response = await call(app, {
          method,
          url,
          headers: payload ? { ...stale, ...json } : stale,
          ...(payload && { payload }),
        })
        assert.equal(response.statusCode, 404, `${method} ${url}`)
        assert.equal(response.json().error.pesan, `task ${url.split('/').pop()} not found`)
      }
      const endpoint = await call(app, { method, url: '/tugas/abc', headers: stale })
      assert.equal(endpoint.json().error.pesan, 'endpoint not found')
    }
  })

  test('a rule-valid body with a stale If-Match is 412 and changes nothing; without If-Match it writes', async () => {
    const app = await testApp()
    const before = await call(app, { url: '/tugas/2' })
    const refused = await call(app, {
      method: 'PATCH',
      url: '/tugas/2',
      headers: { ...stale, ...json },
      payload: { status: 'selesai' },
    })
    versiTidakCocok(refused)
    assert.equal(
      refused.json().error.pesan,
      'task 2 does not match If-Match: it has changed since that ETag',
    )
    assert.equal((await call(app, { url: '/tugas/2' })).body, before.body)
    const unconditional = await callJson(app, 'PATCH', '/tugas/2', { status: 'selesai' })
    assert.equal(unconditional.statusCode, 200)
    assert.equal(unconditional.json().status, 'selesai')
  })

  test('a DELETE refused with 412 keeps the task and its comments', async () => {
    const app = await testApp()
    const response = await call(app, { method: 'DELETE', url: '/tugas/1', headers: stale })
    versiTidakCocok(response)
    assert.equal((await call(app, { url: '/tugas/1' })).statusCode, 200)
    assert.equal((await call(app, { url: '/tugas/1/komentar' })).json().length, 2)
  })
})
