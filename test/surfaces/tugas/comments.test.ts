// Comments (Part 1 Komentar, decisions.md "Comments").
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { call, callJson, json, testApp } from '../../support/helpers.js'

const seed = {
  tugas: [{ title: 'Pertama' }, { title: 'Kedua' }],
  komentar: [
    { tugasId: 1, isi: 'satu' },
    { tugasId: 2, isi: 'dua' },
  ],
}

describe('comments', () => {
  test("GET /tugas/<id>/komentar lists the task's comments; an empty array when none", async () => {
    const app = await testApp({ seed: { ...seed, tugas: [...seed.tugas, { title: 'Ketiga' }] } })
    const response = await call(app, { url: '/tugas/1/komentar' })
    assert.equal(response.statusCode, 200)
    assert.deepEqual(response.json(), [{ id: 1, tugasId: 1, isi: 'satu' }])
    assert.deepEqual((await call(app, { url: '/tugas/3/komentar' })).json(), [])
  })

  test('404 TIDAK_ADA when the task does not exist', async () => {
    const app = await testApp({ seed })
    const response = await call(app, { url: '/tugas/9/komentar' })
    assert.equal(response.statusCode, 404)
    assert.deepEqual(response.json(), { error: { kode: 'TIDAK_ADA', pesan: 'task 9 not found' } })
  })

  test('POST creates one: 201, Location /tugas/<id>/komentar/<kid>, isi trimmed; ids are global', async () => {
    const app = await testApp({ seed })
    const response = await callJson(app, 'POST', '/tugas/1/komentar', {
      isi: '  Bagus  ',
      tugasId: 2,
      id: 50,
    })
    assert.equal(response.statusCode, 201)
    assert.equal(response.headers.location, '/tugas/1/komentar/3')
    assert.deepEqual(response.json(), { id: 3, tugasId: 1, isi: 'Bagus' })
    const read = await call(app, { url: '/tugas/1/komentar/3' })
    assert.deepEqual(read.json(), response.json())
    assert.equal((await call(app, { url: '/tugas/2/komentar/3' })).statusCode, 404)
  })

  test('isi: 1 to 500 characters after trimming, counted in code points', async () => {
    const app = await testApp({ seed })
    const post = (payload: unknown) =>
      callJson(app, 'POST', '/tugas/1/komentar', JSON.stringify(payload))
    assert.equal((await post({ isi: '😀'.repeat(500) })).statusCode, 201)
    const cases: [unknown, string[]][] = [
      [{ isi: '😀'.repeat(501) }, ['isi is over 500 characters']],
      [{ isi: '   ' }, ['isi is empty']],
      [{ isi: 5 }, ['isi is not text']],
      [{}, ['isi is not text']],
      [[], ['body is not a JSON object', 'isi is not text']],
    ]
    for (const [payload, detail] of cases) {
      const response = await post(payload)
      assert.equal(response.statusCode, 422, JSON.stringify(payload))
      assert.equal(response.json().error.kode, 'VALIDASI_GAGAL')
      assert.deepEqual(response.json().error.detail, detail)
    }
  })

  test('order: malformed JSON 400, then rules 422, then the task 404', async () => {
    const app = await testApp({ seed })
    const post = (payload: string) =>
      call(app, { method: 'POST', url: '/tugas/9/komentar', headers: json, payload })
    assert.equal((await post('{')).json().error.kode, 'JSON_TIDAK_VALID')
    assert.equal((await post('{"isi":""}')).json().error.kode, 'VALIDASI_GAGAL')
    const missing = await post('{"isi":"ada"}')
    assert.equal(missing.statusCode, 404)
    assert.equal(missing.json().error.pesan, 'task 9 not found')
  })

  test('deleting a task deletes its comments; comment ids are never reused', async () => {
    const app = await testApp({ seed })
    await call(app, { method: 'DELETE', url: '/tugas/1' })
    assert.equal((await call(app, { url: '/tugas/1/komentar' })).statusCode, 404)
    assert.equal((await call(app, { url: '/tugas/1/komentar/1' })).statusCode, 404)
    const next = await callJson(app, 'POST', '/tugas/2/komentar', { isi: 'baru' })
    assert.equal(next.json().id, 3)
    assert.deepEqual(
      (await call(app, { url: '/tugas/2/komentar' })).json().map((k: { id: number }) => k.id),
      [2, 3],
    )
  })

  test('a missing comment of an existing task names the comment', async () => {
    const app = await testApp({ seed })
    const response = await call(app, { url: '/tugas/1/komentar/2' })
    assert.deepEqual(response.json(), {
      error: { kode: 'TIDAK_ADA', pesan: 'comment 2 not found' },
    })
  })
})
