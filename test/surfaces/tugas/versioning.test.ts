// The versioned task list in each TUGAS_VERSIONING mode: Part 2's path-versioning and
// header-versioning tables, decisions.md section 3 (one setting, `/v2/tugas` in every mode,
// surface A also under `/v1`) and section 6 ("Versions": a v1 item is `{ id, nama }`), and the
// per-version traffic count of Part 2's Deprecation lifecycle ("watch per-version traffic").
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import type { TugasVersioning } from '../../../src/config.js'
import { call, callJson, json, testApp } from '../../support/helpers.js'

const V2 = 'application/vnd.tugas.v2+json'
const MODES = ['none', 'path', 'header'] as const
const BASES = ['', '/v1'] as const

type Task = { id: number; title: string; status: string }

// 12 tasks (more than one v2 page of 10); ids 1..12.
const seedTasks = Array.from({ length: 12 }, (_, i) => ({
  title: `Tugas nomor ${i + 1}`,
  status: i % 3 === 0 ? 'selesai' : 'belum',
}))
const TASKS: Task[] = seedTasks.map((task, i) => ({ id: i + 1, ...task }))
const v1Of = (tasks: Task[]) => tasks.map(({ id, title }) => ({ id, nama: title }))

const VIOLATIONS = {
  halaman: 'halaman is not an integer of at least 1',
  batas: 'batas is not an integer of at least 1',
  batasTooLarge: 'batas is over 100',
  status: 'status is not one of belum, selesai',
  urut: 'urut is not one of id, title, status (optionally prefixed with -)',
}

/** The app in `mode`, TUGAS_BATAS_DEFAULT 3 so the v2 default of 10 is told apart. */
function build(mode: TugasVersioning, seed: unknown = { tugas: seedTasks }) {
  return testApp({ config: { tugasVersioning: mode, tugasBatasDefault: 3 }, seed })
}

const get = (app: FastifyInstance, url: string, accept?: string) =>
  call(app, { method: 'GET', url, headers: accept === undefined ? {} : { accept } })

function what(response: LightMyRequestResponse, label: string): string {
  return `${label}: ${response.statusCode} ${response.body.slice(0, 300)}`
}

function assertJson(response: LightMyRequestResponse, label: string) {
  assert.match(String(response.headers['content-type']), /^application\/json\b/, label)
}

function assertVaryAccept(response: LightMyRequestResponse, label: string) {
  const vary = String(response.headers.vary ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
  assert.ok(vary.includes('accept'), `Vary ${JSON.stringify(response.headers.vary)}: ${label}`)
}

/** An E1 error: exactly `{ error: { kode, pesan } }` (plus `detail` on 422); returns pesan. */
function assertE1(
  response: LightMyRequestResponse,
  status: number,
  kode: string,
  detail?: string[],
): string {
  const label = what(response, `${status} ${kode}`)
  assert.equal(response.statusCode, status, label)
  assertJson(response, label)
  const body = response.json()
  assert.deepEqual(Object.keys(body), ['error'], label)
  assert.equal(body.error.kode, kode, label)
  assert.equal(typeof body.error.pesan, 'string', label)
  if (detail === undefined) {
    assert.deepEqual(Object.keys(body.error).sort(), ['kode', 'pesan'], label)
  } else {
    assert.deepEqual(body.error.detail, detail, label)
  }
  return body.error.pesan
}

/** A v1 answer: 200, a flat array of exactly `{ id, nama }`. */
function assertV1(response: LightMyRequestResponse, expected: Task[], label: string) {
  const message = what(response, label)
  assert.equal(response.statusCode, 200, message)
  assertJson(response, message)
  const body = response.json()
  assert.ok(Array.isArray(body), `a flat array: ${message}`)
  for (const item of body) assert.deepEqual(Object.keys(item), ['id', 'nama'], message)
  assert.deepEqual(body, v1Of(expected), message)
}

/** A v2 answer: 200, `{ data, meta }` exactly as given. */
function assertV2(
  response: LightMyRequestResponse,
  data: Task[],
  meta: { halaman: number; batas: number; total: number; totalHalaman: number },
  label: string,
) {
  const message = what(response, label)
  assert.equal(response.statusCode, 200, message)
  assertJson(response, message)
  assert.deepEqual(response.json(), { data, meta }, message)
}

const firstPage = { halaman: 1, batas: 10, total: 12, totalHalaman: 2 }

describe('TUGAS_VERSIONING=none: GET /tugas and GET /v1/tugas are Part 1 list', () => {
  for (const base of BASES) {
    test(`GET ${base}/tugas without list parameters: the flat array of full tasks, whatever Accept says`, async () => {
      const app = await build('none')
      for (const accept of [undefined, 'application/json', V2, 'text/html', '*/*']) {
        const response = await get(app, `${base}/tugas`, accept)
        const label = what(response, `Accept ${accept}`)
        assert.equal(response.statusCode, 200, label)
        assertJson(response, label)
        assert.deepEqual(response.json(), TASKS, label)
      }
    })

    test(`GET ${base}/tugas with a list parameter: the envelope, batas from TUGAS_BATAS_DEFAULT`, async () => {
      const app = await build('none')
      for (const accept of [undefined, V2]) {
        const response = await get(app, `${base}/tugas?halaman=1`, accept)
        assertV2(
          response,
          TASKS.slice(0, 3),
          { halaman: 1, batas: 3, total: 12, totalHalaman: 4 },
          `Accept ${accept}`,
        )
      }
      assertE1(await get(app, `${base}/tugas?batas=0`), 422, 'VALIDASI_GAGAL', [VIOLATIONS.batas])
    })
  }
})

describe('TUGAS_VERSIONING=path (Part 2, Path versioning)', () => {
  test('GET /tugas: 404 TIDAK_ADA whose message points to /v1/tugas and /v2/tugas', async () => {
    const app = await build('path')
    for (const url of ['/tugas', '/tugas?halaman=1', '/tugas?batas=0']) {
      for (const accept of [undefined, 'application/json', V2]) {
        const response = await get(app, url, accept)
        const pesan = assertE1(response, 404, 'TIDAK_ADA')
        assert.ok(pesan.includes('/v1/tugas'), `${url} ${accept}: ${pesan}`)
        assert.ok(pesan.includes('/v2/tugas'), `${url} ${accept}: ${pesan}`)
      }
    }
  })

  test('GET /v1/tugas: 200, every task as exactly { id, nama }, in id order, unpaged', async () => {
    const app = await build('path')
    assertV1(await get(app, '/v1/tugas'), TASKS, 'GET /v1/tugas')
  })

  test('GET /v1/tugas is the v1 form whatever Accept and the list parameters say', async () => {
    const app = await build('path')
    for (const accept of [undefined, 'application/json', V2, 'text/html', '*/*']) {
      for (const query of ['', '?halaman=2&batas=5', '?status=selesai&urut=-id']) {
        assertV1(await get(app, `/v1/tugas${query}`, accept), TASKS, `${query} Accept ${accept}`)
      }
    }
  })

  test('an empty store: GET /v1/tugas is []', async () => {
    const app = await build('path', {})
    assertV1(await get(app, '/v1/tugas'), [], 'empty')
  })
})

describe('TUGAS_VERSIONING=header (Part 2, Header versioning)', () => {
  for (const base of BASES) {
    const url = `${base}/tugas`

    test(`GET ${url}, Accept ${V2}: the v2 envelope, batas 10, with Vary: Accept`, async () => {
      const app = await build('header')
      const response = await get(app, url, V2)
      assertV2(response, TASKS.slice(0, 10), firstPage, V2)
      assertVaryAccept(response, V2)
    })

    test(`GET ${url}, Accept application/json: the v1 form, with Vary: Accept`, async () => {
      const app = await build('header')
      const response = await get(app, url, 'application/json')
      assertV1(response, TASKS, 'application/json')
      assertVaryAccept(response, 'application/json')
    })

    test(`GET ${url}: Accept values that give v2`, async () => {
      const app = await build('header')
      for (const accept of [
        V2,
        `${V2}; charset=utf-8`,
        'APPLICATION/VND.TUGAS.V2+JSON',
        `application/json, ${V2}`,
        `application/json;q=1, ${V2};q=0.1`,
        `text/html, ${V2};q=0.5, */*;q=0.1`,
        `${V2};q=bad`,
      ]) {
        const response = await get(app, url, accept)
        assertV2(response, TASKS.slice(0, 10), firstPage, accept)
        assertVaryAccept(response, accept)
      }
    })

    test(`GET ${url}: Accept values that give v1`, async () => {
      const app = await build('header')
      for (const accept of [
        'application/json',
        'application/json; charset=utf-8',
        'application/json;version=2',
        'Application/JSON',
        'application/problem+json',
        'text/json',
        'text/html, application/json;q=0.1',
        `${V2};q=0, application/json`,
        `${V2};q=0.0, text/json`,
        'application/vnd.tugas.v3+json',
        '*/*, application/json;q=0.5',
      ]) {
        const response = await get(app, url, accept)
        assertV1(response, TASKS, accept)
        assertVaryAccept(response, accept)
      }
    })

    test(`GET ${url}: no JSON range acceptable is 406 FORMAT_TIDAK_DUKUNG naming both types`, async () => {
      const app = await build('header')
      for (const accept of [
        undefined,
        '*/*',
        'application/*',
        'text/html',
        'text/html, application/xml;q=0.9, */*;q=0.8',
        'application/vnd.tugas.v2+xml',
        'application/json;q=0',
        `${V2};q=0`,
        `${V2};q=0, application/json;q=0, text/html`,
        `text/html; note="${V2}"`,
      ]) {
        const response = await get(app, url, accept)
        const pesan = assertE1(response, 406, 'FORMAT_TIDAK_DUKUNG')
        assert.ok(pesan.includes('application/json'), `Accept ${accept}: ${pesan}`)
        assert.ok(pesan.includes(V2), `Accept ${accept}: ${pesan}`)
        assertVaryAccept(response, `Accept ${accept}`)
      }
      // A query the v2 rules would refuse does not change the 406.
      assertE1(await get(app, `${url}?batas=0`, 'text/html'), 406, 'FORMAT_TIDAK_DUKUNG')
    })

    test(`GET ${url}, v2: the query rules apply, 422 VALIDASI_GAGAL with detail and Vary`, async () => {
      const app = await build('header')
      const page = await get(app, `${url}?halaman=2`, V2)
      assertV2(page, TASKS.slice(10), { halaman: 2, batas: 10, total: 12, totalHalaman: 2 }, 'p2')
      const filtered = await get(app, `${url}?status=selesai&urut=-id&batas=2`, V2)
      assertV2(
        filtered,
        [TASKS[9], TASKS[6]] as Task[],
        { halaman: 1, batas: 2, total: 4, totalHalaman: 2 },
        'filtered',
      )
      const invalid = await get(app, `${url}?halaman=0&batas=101&status=x&urut=nama`, V2)
      assertE1(invalid, 422, 'VALIDASI_GAGAL', [
        VIOLATIONS.halaman,
        VIOLATIONS.batasTooLarge,
        VIOLATIONS.status,
        VIOLATIONS.urut,
      ])
      assertVaryAccept(invalid, '422')
    })

    test(`GET ${url}, v1: the query is ignored, every task is listed`, async () => {
      const app = await build('header')
      for (const query of ['?batas=0', '?halaman=2&batas=5', '?status=x&urut=nama']) {
        const response = await get(app, `${url}${query}`, 'application/json')
        assertV1(response, TASKS, query)
        assertVaryAccept(response, query)
      }
    })
  }

  test('GET /tugas and GET /v1/tugas answer alike', async () => {
    const app = await build('header')
    for (const accept of [undefined, V2, 'application/json', 'text/html']) {
      const root = await get(app, '/tugas?batas=4', accept)
      const v1 = await get(app, '/v1/tugas?batas=4', accept)
      assert.equal(root.statusCode, v1.statusCode, `Accept ${accept}`)
      assert.deepEqual(root.json(), v1.json(), `Accept ${accept}`)
    }
  })
})

describe('GET /v2/tugas in every mode (decisions.md 3)', () => {
  for (const mode of MODES) {
    test(`${mode}: the v2 envelope, batas 10 by default even with TUGAS_BATAS_DEFAULT=3`, async () => {
      const app = await build(mode)
      for (const accept of [undefined, 'application/json', '*/*', V2]) {
        assertV2(await get(app, '/v2/tugas', accept), TASKS.slice(0, 10), firstPage, `${accept}`)
      }
      // Any list parameter still pages by 10.
      assertV2(
        await get(app, '/v2/tugas?status=belum'),
        TASKS.filter((t) => t.status === 'belum'),
        { halaman: 1, batas: 10, total: 8, totalHalaman: 1 },
        'status=belum',
      )
    })

    test(`${mode}: halaman, batas, status and urut as in the paginated list`, async () => {
      const app = await build(mode)
      assertV2(
        await get(app, '/v2/tugas?halaman=2'),
        TASKS.slice(10),
        { halaman: 2, batas: 10, total: 12, totalHalaman: 2 },
        'halaman=2',
      )
      assertV2(
        await get(app, '/v2/tugas?halaman=3&batas=5'),
        TASKS.slice(10),
        { halaman: 3, batas: 5, total: 12, totalHalaman: 3 },
        'halaman=3&batas=5',
      )
      assertV2(
        await get(app, '/v2/tugas?halaman=99'),
        [],
        { halaman: 99, batas: 10, total: 12, totalHalaman: 2 },
        'past the end',
      )
      assertV2(
        await get(app, '/v2/tugas?status=selesai&urut=-id'),
        [TASKS[9], TASKS[6], TASKS[3], TASKS[0]] as Task[],
        { halaman: 1, batas: 10, total: 4, totalHalaman: 1 },
        'selesai, -id',
      )
      assertV2(
        await get(app, '/v2/tugas?batas=100&urut=-status'),
        [
          ...TASKS.filter((t) => t.status === 'selesai'),
          ...TASKS.filter((t) => t.status === 'belum'),
        ],
        { halaman: 1, batas: 100, total: 12, totalHalaman: 1 },
        'urut=-status, ties by id',
      )
      assertV2(
        await get(app, '/v2/tugas?batas=1'),
        TASKS.slice(0, 1),
        { halaman: 1, batas: 1, total: 12, totalHalaman: 12 },
        'batas=1',
      )
    })

    test(`${mode}: an empty store gives { data: [], meta: { 1, 10, 0, 1 } }`, async () => {
      const app = await build(mode, {})
      assertV2(
        await get(app, '/v2/tugas'),
        [],
        { halaman: 1, batas: 10, total: 0, totalHalaman: 1 },
        'empty',
      )
    })

    test(`${mode}: every violation in one 422 VALIDASI_GAGAL, the texts of the paginated list`, async () => {
      const app = await build(mode)
      assertE1(
        await get(app, '/v2/tugas?halaman=0&batas=101&status=done&urut=nama'),
        422,
        'VALIDASI_GAGAL',
        [VIOLATIONS.halaman, VIOLATIONS.batasTooLarge, VIOLATIONS.status, VIOLATIONS.urut],
      )
      const alone: [string, string][] = [
        ['halaman=', VIOLATIONS.halaman],
        ['halaman=0', VIOLATIONS.halaman],
        ['halaman=1.5', VIOLATIONS.halaman],
        ['halaman=abc', VIOLATIONS.halaman],
        ['batas=0', VIOLATIONS.batas],
        ['batas=x', VIOLATIONS.batas],
        ['batas=101', VIOLATIONS.batasTooLarge],
        ['status=', VIOLATIONS.status],
        ['status=Belum', VIOLATIONS.status],
        ['urut=', VIOLATIONS.urut],
        ['urut=--id', VIOLATIONS.urut],
        ['urut=nama', VIOLATIONS.urut],
      ]
      for (const [query, violation] of alone) {
        assertE1(await get(app, `/v2/tugas?${query}`), 422, 'VALIDASI_GAGAL', [violation])
      }
      const pesan = assertE1(await get(app, '/v2/tugas?batas=0'), 422, 'VALIDASI_GAGAL', [
        VIOLATIONS.batas,
      ])
      assert.equal(pesan, 'query parameters are invalid')
    })
  }
})

describe('v1 items are exactly { id, nama } with nama = the title (decisions.md 6)', () => {
  const titles = [
    'Abc',
    'Belajar REST',
    '😀😀😀',
    'a'.repeat(80),
    'Judul "dengan" tanda kutip, koma; dan titik koma',
    'Ünïcödé ✓',
  ]
  const seed = {
    tugas: titles.map((title, i) => ({ title, status: i % 2 ? 'selesai' : 'belum' })),
  }
  const tasks = titles.map((title, i) => ({
    id: i + 1,
    title,
    status: i % 2 ? 'selesai' : 'belum',
  }))

  for (const [mode, url, accept] of [
    ['path', '/v1/tugas', undefined],
    ['header', '/tugas', 'application/json'],
    ['header', '/v1/tugas', 'application/json'],
  ] as const) {
    test(`${mode} GET ${url}: nama is the title of every task, and follows updates`, async () => {
      const app = await build(mode, seed)
      assertV1(await get(app, url, accept), tasks, 'seed')
      const replaced = await callJson(app, 'PUT', '/tugas/2', { title: '  Judul baru  ' })
      assert.equal(replaced.statusCode, 200, replaced.body)
      const patched = await callJson(app, 'PATCH', '/v1/tugas/3', { title: 'Ditambal' })
      assert.equal(patched.statusCode, 200, patched.body)
      const expected = tasks.map((task) =>
        task.id === 2
          ? { ...task, title: 'Judul baru' }
          : task.id === 3
            ? { ...task, title: 'Ditambal' }
            : task,
      )
      assertV1(await get(app, url, accept), expected, 'after PUT and PATCH')
    })
  }
})

describe('both versions read the same data (Part 2: "Both versions read the same data")', () => {
  /** The list as each form of this mode shows it. */
  async function views(app: FastifyInstance, mode: TugasVersioning) {
    const v2 = (await get(app, '/v2/tugas?batas=100')).json()
    const result: { v2: Task[]; v1?: unknown; part1?: unknown } = { v2: v2.data }
    if (mode === 'path') result.v1 = (await get(app, '/v1/tugas')).json()
    if (mode === 'header') {
      result.v1 = (await get(app, '/tugas', 'application/json')).json()
      const viaHeader = (await get(app, '/tugas?batas=100', V2)).json()
      assert.deepEqual(viaHeader.data, v2.data, 'v2 by header and by path differ')
    }
    if (mode === 'none') result.part1 = (await get(app, '/tugas')).json()
    return result
  }

  for (const mode of MODES) {
    test(`${mode}: a task created by POST /tugas shows in both; a deleted one leaves both`, async () => {
      const app = await build(mode)
      const created = await callJson(app, 'POST', '/tugas', { title: 'Tugas baru' })
      assert.equal(created.statusCode, 201, created.body)
      const fresh = { id: 13, title: 'Tugas baru', status: 'belum' }
      assert.deepEqual(created.json(), fresh)
      const viaV1 = await callJson(app, 'POST', '/v1/tugas', {
        title: 'Lewat v1',
        status: 'selesai',
      })
      assert.equal(viaV1.statusCode, 201, viaV1.body)
      const other = { id: 14, title: 'Lewat v1', status: 'selesai' }

      let expected = [...TASKS, fresh, other]
      let seen = await views(app, mode)
      assert.deepEqual(seen.v2, expected)
      if (mode === 'none') assert.deepEqual(seen.part1, expected)
      else assert.deepEqual(seen.v1, v1Of(expected))

      assert.equal((await call(app, { method: 'DELETE', url: '/tugas/1' })).statusCode, 204)
      assert.equal((await call(app, { method: 'DELETE', url: '/v1/tugas/13' })).statusCode, 204)
      expected = expected.filter((task) => task.id !== 1 && task.id !== 13)
      seen = await views(app, mode)
      assert.deepEqual(seen.v2, expected)
      if (mode === 'none') assert.deepEqual(seen.part1, expected)
      else assert.deepEqual(seen.v1, v1Of(expected))
    })
  }
})

describe('the rest of surface A is the same in every mode (decisions.md 3)', () => {
  for (const mode of MODES) {
    test(`${mode}: POST, GET, PUT, PATCH, DELETE and comments at both bases`, async () => {
      const app = await build(mode)
      for (const base of BASES) {
        const created = await callJson(app, 'POST', `${base}/tugas`, {
          title: `Dibuat di ${base || '/'}`,
        })
        assert.equal(created.statusCode, 201, created.body)
        const id = created.json().id
        assert.equal(created.headers.location, `${base}/tugas/${id}`)
        assert.deepEqual(created.json(), { id, title: `Dibuat di ${base || '/'}`, status: 'belum' })
      }
      for (const base of BASES) {
        const one = await call(app, { url: `${base}/tugas/1` })
        assert.equal(one.statusCode, 200, one.body)
        assert.deepEqual(one.json(), TASKS[0])
        assertE1(await call(app, { url: `${base}/tugas/99` }), 404, 'TIDAK_ADA')
        assertE1(await call(app, { url: `${base}/tugas/abc` }), 404, 'TIDAK_ADA')
      }
      const put = await callJson(app, 'PUT', '/v1/tugas/2', { title: 'Diganti', status: 'selesai' })
      assert.deepEqual(put.json(), { id: 2, title: 'Diganti', status: 'selesai' })
      const patch = await callJson(app, 'PATCH', '/tugas/2', { status: 'belum' })
      assert.deepEqual(patch.json(), { id: 2, title: 'Diganti', status: 'belum' })
      assertE1(
        await call(app, { method: 'POST', url: '/v1/tugas', headers: json, payload: {} }),
        422,
        'VALIDASI_GAGAL',
        ['title is not text'],
      )
      const comment = await callJson(app, 'POST', '/v1/tugas/2/komentar', { isi: 'Catatan' })
      assert.equal(comment.statusCode, 201, comment.body)
      assert.equal(comment.headers.location, `/v1/tugas/2/komentar/${comment.json().id}`)
      const comments = await call(app, { url: '/tugas/2/komentar' })
      assert.equal(comments.statusCode, 200)
      assert.deepEqual(
        comments.json().map((c: { isi: string }) => c.isi),
        ['Catatan'],
      )
      assert.equal((await call(app, { method: 'DELETE', url: '/v1/tugas/2' })).statusCode, 204)
      assertE1(await call(app, { url: '/tugas/2' }), 404, 'TIDAK_ADA')
    })
  }
})

describe('per-version traffic (Part 2, Deprecation: "watch per-version traffic")', () => {
  type Line = Record<string, unknown>

  /** Sends the request and returns the log line it produced. */
  async function logged(
    app: FastifyInstance,
    logs: Line[],
    url: string,
    accept?: string,
  ): Promise<Line> {
    const before = logs.length
    const response = await get(app, url, accept)
    // The line is written when the response is done; give the logger a turn if needed.
    for (let i = 0; i < 10 && !logs.slice(before).some((l) => l.url === url); i++) {
      await new Promise((resolve) => setImmediate(resolve))
    }
    const lines = logs.slice(before).filter((line) => line.url === url)
    assert.equal(lines.length, 1, `one log line for ${url}: ${JSON.stringify(logs.slice(before))}`)
    const line = lines[0] as Line
    assert.equal(line.statusCode, response.statusCode)
    return line
  }

  const version = (line: Line) => [line.apiVersion, line.apiVersionCount]

  test('header mode: v1 and v2 are counted apart, each from 1, on the same path', async () => {
    const logs: Line[] = []
    const app = await testApp({ config: { tugasVersioning: 'header' }, logs })
    assert.deepEqual(version(await logged(app, logs, '/tugas', 'application/json')), [
      'tugas v1',
      1,
    ])
    assert.deepEqual(version(await logged(app, logs, '/tugas', V2)), ['tugas v2', 1])
    assert.deepEqual(version(await logged(app, logs, '/v1/tugas', V2)), ['tugas v2', 2])
    assert.deepEqual(version(await logged(app, logs, '/v2/tugas')), ['tugas v2', 3])
    // A 406 is answered by no version: it counts for neither.
    const refused = await logged(app, logs, '/tugas', 'text/html')
    assert.equal(refused.statusCode, 406)
    assert.ok(
      refused.apiVersion !== 'tugas v1' && refused.apiVersion !== 'tugas v2',
      JSON.stringify(refused),
    )
    assert.deepEqual(version(await logged(app, logs, '/v1/tugas', 'text/json')), ['tugas v1', 2])
    // A v2 request refused by the query rules was still a v2 request.
    const invalid = await logged(app, logs, '/v2/tugas?batas=0')
    assert.equal(invalid.statusCode, 422)
    assert.deepEqual(version(invalid), ['tugas v2', 4])
    assert.deepEqual(version(await logged(app, logs, '/tugas', 'application/json')), [
      'tugas v1',
      3,
    ])
  })

  test('path mode: /v1/tugas is v1, /v2/tugas v2; the unversioned 404 is neither', async () => {
    const logs: Line[] = []
    const app = await testApp({ config: { tugasVersioning: 'path' }, logs })
    assert.deepEqual(version(await logged(app, logs, '/v2/tugas')), ['tugas v2', 1])
    assert.deepEqual(version(await logged(app, logs, '/v1/tugas')), ['tugas v1', 1])
    assert.deepEqual(version(await logged(app, logs, '/v2/tugas?halaman=2')), ['tugas v2', 2])
    const unversioned = await logged(app, logs, '/tugas')
    assert.equal(unversioned.statusCode, 404)
    assert.ok(
      unversioned.apiVersion !== 'tugas v1' && unversioned.apiVersion !== 'tugas v2',
      JSON.stringify(unversioned),
    )
    assert.deepEqual(version(await logged(app, logs, '/v1/tugas')), ['tugas v1', 2])
  })

  test('none mode: Part 1 list at both bases is one unversioned count; v2 its own', async () => {
    const logs: Line[] = []
    const app = await testApp({ config: { tugasVersioning: 'none' }, logs })
    assert.deepEqual(version(await logged(app, logs, '/tugas')), ['tugas unversioned', 1])
    assert.deepEqual(version(await logged(app, logs, '/v2/tugas')), ['tugas v2', 1])
    assert.deepEqual(version(await logged(app, logs, '/v1/tugas?halaman=1')), [
      'tugas unversioned',
      2,
    ])
    assert.deepEqual(version(await logged(app, logs, '/v2/tugas')), ['tugas v2', 2])
  })

  test('requests outside the versioned lists carry no version; each app counts its own', async () => {
    const logs: Line[] = []
    const app = await testApp({ config: { tugasVersioning: 'header' }, logs })
    for (const url of ['/tugas/1', '/v1/tugas/1', '/tugas/1/komentar', '/nope']) {
      const line = await logged(app, logs, url)
      assert.equal(line.apiVersion, undefined, `${url}: ${JSON.stringify(line)}`)
      assert.equal(line.apiVersionCount, undefined, `${url}: ${JSON.stringify(line)}`)
    }
    assert.deepEqual(version(await logged(app, logs, '/v2/tugas')), ['tugas v2', 1])
    assert.deepEqual(version(await logged(app, logs, '/v2/tugas')), ['tugas v2', 2])
    const otherLogs: Line[] = []
    const other = await testApp({ config: { tugasVersioning: 'header' }, logs: otherLogs })
    assert.deepEqual(version(await logged(other, otherLogs, '/v2/tugas')), ['tugas v2', 1])
  })
})
