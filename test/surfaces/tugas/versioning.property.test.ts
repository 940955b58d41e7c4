// Property-based tests of the versioned task list: whatever Accept header and query a client
// sends, GET /tugas in header mode answers v1, v2, 406 or 422 as Part 2 says, always with
// `Vary: Accept`, in the documented shapes; and in every mode /v1/tugas, /v2/tugas and /tugas
// read the same data.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import { call, testApp } from '../../support/helpers.js'

const PARAMETERS = { numRuns: 150, includeErrorInReport: true }
const V2 = 'application/vnd.tugas.v2+json'

const token = fc.stringMatching(/^[a-z0-9.+-]{1,12}$/)
const mediaType = fc.oneof(
  fc.constantFrom(
    'application/json',
    'APPLICATION/JSON',
    V2,
    'Application/Vnd.Tugas.V2+Json',
    'application/vnd.tugas.v3+json',
    'application/vnd.tugas.v2+xml',
    'application/problem+json',
    'text/json',
    'text/html',
    'text/plain',
    '*/*',
    'application/*',
  ),
  fc.tuple(token, token).map(([type, subtype]) => `${type}/${subtype}`),
)
const weight = fc.constantFrom('', ';q=0', ';q=0.5', ';q=1', ';q=0.000', ';q=bad', ';Q=0')
const parameter = fc.constantFrom('', ';charset=utf-8', ';version=2', '; a="x,y;z"', ';level=1')
const range = fc
  .tuple(mediaType, parameter, weight)
  .map(([type, extra, q]) => ({ type, q, text: `${type}${extra}${q}` }))
const separator = fc.constantFrom(',', ', ', ' ,')
const accept = fc.option(
  fc
    .tuple(fc.array(range, { minLength: 1, maxLength: 4 }), separator)
    .map(([ranges, comma]) => ({ ranges, text: ranges.map((r) => r.text).join(comma) })),
  { nil: undefined },
)
const query = fc.constantFrom(
  '',
  '?batas=2',
  '?halaman=2&batas=2',
  '?batas=0',
  '?urut=-title',
  '?x=1',
)

/** What Part 2 asks of one Accept header: the oracle, from the generated ranges. */
function expectedVersion(ranges: { type: string; q: string }[] | undefined): 'v1' | 'v2' | 406 {
  // Weights written as 0 (`q=0`, `q=0.000`, `Q=0`) exclude a range; a malformed one does not.
  const acceptable = (ranges ?? []).filter((r) => !/^;q=0(\.0*)?$/i.test(r.q))
  if (acceptable.some((r) => r.type.toLowerCase() === V2)) return 'v2'
  if (acceptable.some((r) => r.type.toLowerCase().includes('json'))) return 'v1'
  return 406
}

async function headerApp(): Promise<FastifyInstance> {
  return testApp({ config: { tugasVersioning: 'header' } })
}

describe('TUGAS_VERSIONING=header: GET /tugas by Accept (property)', () => {
  test('v2, v1 or 406 exactly as Part 2 rules 1 to 3 say, always with Vary: Accept', async () => {
    const app = await headerApp()
    await fc.assert(
      fc.asyncProperty(accept, query, fc.constantFrom('', '/v1'), async (sent, q, base) => {
        const headers = sent === undefined ? {} : { accept: sent.text }
        const response = await call(app, { method: 'GET', url: `${base}/tugas${q}`, headers })
        const what = `Accept ${JSON.stringify(sent?.text)} ${base}/tugas${q}: ${response.statusCode} ${response.body}`
        assert.equal(response.headers.vary, 'Accept', what)
        const expected = expectedVersion(sent?.ranges)
        const body = response.json()
        if (expected === 406) {
          assert.equal(response.statusCode, 406, what)
          assert.equal(body.error.kode, 'FORMAT_TIDAK_DUKUNG', what)
          assert.match(body.error.pesan, /application\/json/, what)
          assert.match(body.error.pesan, /application\/vnd\.tugas\.v2\+json/, what)
        } else if (expected === 'v1') {
          assert.equal(response.statusCode, 200, what)
          assert.ok(Array.isArray(body), what)
          for (const item of body) assert.deepEqual(Object.keys(item), ['id', 'nama'], what)
        } else if (q.includes('batas=0')) {
          assert.equal(response.statusCode, 422, what)
          assert.equal(body.error.kode, 'VALIDASI_GAGAL', what)
        } else {
          assert.equal(response.statusCode, 200, what)
          assert.deepEqual(Object.keys(body), ['data', 'meta'], what)
          const batas = /batas=(\d+)/.exec(q)?.[1]
          assert.equal(body.meta.batas, batas === undefined ? 10 : Number(batas), what)
        }
      }),
      PARAMETERS,
    )
  })
})

describe('every mode: the versions read the same data (property)', () => {
  const step = fc.oneof(
    fc.record({ kind: fc.constant('create' as const), title: fc.stringMatching(/^[a-z]{3,12}$/) }),
    fc.record({ kind: fc.constant('delete' as const), id: fc.integer({ min: 1, max: 12 }) }),
  )
  for (const mode of ['none', 'path', 'header'] as const) {
    test(`${mode}: after any creates and deletes, v1 and v2 list the same tasks`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(step, { maxLength: 8 }), async (steps) => {
          const app = await testApp({ config: { tugasVersioning: mode } })
          try {
            for (const s of steps) {
              if (s.kind === 'create') {
                const created = await call(app, {
                  method: 'POST',
                  url: '/tugas',
                  headers: { 'content-type': 'application/json' },
                  payload: { title: s.title },
                })
                assert.equal(created.statusCode, 201)
              } else {
                await call(app, { method: 'DELETE', url: `/tugas/${s.id}` })
              }
            }
            const v2 = await call(app, { url: '/v2/tugas?batas=100' })
            const tasks = v2.json().data as { id: number; title: string }[]
            assert.equal(v2.json().meta.total, tasks.length)
            const v1 =
              mode === 'none'
                ? undefined
                : await call(app, {
                    url: mode === 'path' ? '/v1/tugas' : '/tugas',
                    headers: { accept: 'application/json' },
                  })
            if (v1 !== undefined) {
              assert.deepEqual(
                v1.json(),
                tasks.map(({ id, title }) => ({ id, nama: title })),
              )
            } else {
              const plain = await call(app, { url: '/tugas' })
              assert.deepEqual(plain.json(), tasks)
            }
          } finally {
            await app.close()
          }
        }),
        { numRuns: 25, includeErrorInReport: true },
      )
    })
  }
})
