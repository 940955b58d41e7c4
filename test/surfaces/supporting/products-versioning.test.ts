// Products versions (Part 2, Products and Deprecation; decisions.md 3 PRODUK_VERSIONING,
// 5 PRODUK_V1_SUNSET, 6 "Versions"): /v1/produk with Sunset, Deprecation and Link, /v2/produk,
// header-mode /produk by the Accept `version` parameter, and 410 VERSION_RETIRED from the
// sunset instant on.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import type { Config, ProdukVersioning } from '../../../src/config.js'
import { call, testApp } from '../../support/helpers.js'
import { assertE2 } from '../../support/supporting.js'

const MODES = ['none', 'header'] as const
const IMF_FIXDATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/
const DEFAULT_SUNSET = 'Wed, 30 Jun 2027 00:00:00 GMT'
/** 2026-11-23T00:00:00Z, when v2 was published, in Unix seconds. */
const DEFAULT_DEPRECATION = '@1795392000'
const LINK = '</v2/produk>; rel="successor-version"'

const DEMO = [
  { id: 1, nama: 'Buku', harga: 50000, stok: 12 },
  { id: 2, nama: 'Pensil', harga: 3000, stok: 150 },
  { id: 3, nama: 'Penghapus', harga: 2000, stok: 0 },
]
type Product = (typeof DEMO)[number]
const v1Of = (products: Product[]) => products.map(({ id, nama }) => ({ id, nama }))
const v2Of = (products: Product[]) => ({
  data: products.map(({ id, nama, harga }) => ({ id, nama, harga })),
  meta: { versi: '2', jumlah: products.length },
})

/** Before the default sunset: the v1 answers of these tests do not depend on today's date. */
const BEFORE_SUNSET = new Date('2027-01-01T00:00:00Z')

interface BuildOptions {
  config?: Partial<Config>
  seed?: unknown
  now?: () => Date
}

/** The app as main.ts builds it, with an injected clock (the sunset is a calendar instant). */
async function build({
  config,
  seed,
  now = () => BEFORE_SUNSET,
}: BuildOptions = {}): Promise<FastifyInstance> {
  return testApp({ ...(config && { config }), seed, now })
}

const get = (app: FastifyInstance, url: string, accept?: string) =>
  call(app, { method: 'GET', url, headers: accept === undefined ? {} : { accept } })

const label = (response: LightMyRequestResponse, what: string) =>
  `${what}: ${response.statusCode} ${JSON.stringify(response.headers)} ${response.body}`

function assertVaryAccept(response: LightMyRequestResponse, what: string) {
  const vary = String(response.headers.vary ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
  assert.ok(vary.includes('accept'), label(response, `Vary: Accept, ${what}`))
}

/** The deprecation headers of every v1 answer (Part 2, Deprecation rule 1). */
function assertDeprecated(
  response: LightMyRequestResponse,
  what: string,
  sunset = DEFAULT_SUNSET,
  deprecation = DEFAULT_DEPRECATION,
) {
  const message = label(response, what)
  assert.match(String(response.headers.sunset), IMF_FIXDATE, message)
  assert.equal(response.headers.sunset, sunset, message)
  assert.equal(response.headers.deprecation, deprecation, message)
  assert.equal(response.headers.link, LINK, message)
}

function assertNotDeprecated(response: LightMyRequestResponse, what: string) {
  const message = label(response, what)
  assert.equal(response.headers.sunset, undefined, message)
  assert.equal(response.headers.deprecation, undefined, message)
  assert.equal(response.headers.link, undefined, message)
}

/** 200, a flat array of exactly `{ id, nama }`, with the deprecation headers. */
function assertV1(
  response: LightMyRequestResponse,
  products: Product[],
  what: string,
  sunset?: string,
  deprecation?: string,
) {
  const message = label(response, what)
  assert.equal(response.statusCode, 200, message)
  assert.match(String(response.headers['content-type']), /^application\/json\b/, message)
  const body = response.json()
  assert.ok(Array.isArray(body), message)
  for (const item of body) assert.deepEqual(Object.keys(item), ['id', 'nama'], message)
  assert.deepEqual(body, v1Of(products), message)
  assertDeprecated(response, what, sunset, deprecation)
}

/** 200, exactly `{ data: [{ id, nama, harga }], meta: { versi: "2", jumlah } }`, no Sunset. */
function assertV2(response: LightMyRequestResponse, products: Product[], what: string) {
  const message = label(response, what)
  assert.equal(response.statusCode, 200, message)
  assert.match(String(response.headers['content-type']), /^application\/json\b/, message)
  const body = response.json()
  assert.deepEqual(body, v2Of(products), message)
  assert.deepEqual(Object.keys(body), ['data', 'meta'], message)
  for (const item of body.data) assert.deepEqual(Object.keys(item), ['id', 'nama', 'harga'])
  assert.deepEqual(Object.keys(body.meta).sort(), ['jumlah', 'versi'], message)
  assert.equal(typeof body.meta.versi, 'string', message)
  assert.equal(body.meta.versi, '2', message)
  assert.equal(body.meta.jumlah, body.data.length, message)
  assertNotDeprecated(response, what)
}

/** 410 E2 VERSION_RETIRED, still carrying Sunset, Deprecation and Link. */
function assertRetired(
  response: LightMyRequestResponse,
  what: string,
  sunset?: string,
  deprecation?: string,
) {
  assertE2(response, 410, 'VERSION_RETIRED')
  assertDeprecated(response, what, sunset, deprecation)
}

const CUSTOM = [
  { nama: 'Tas', harga: 125000, stok: 3 },
  { nama: 'Spidol 🖊', harga: 7500, stok: 0 },
  { nama: 'Buku "tulis"', harga: 0, stok: 9 },
  { nama: 'Tas', harga: 1, stok: 1 },
  { nama: 'Map', harga: 4000, stok: 40 },
]
const CUSTOM_PRODUCTS: Product[] = CUSTOM.map((product, i) => ({ id: i + 1, ...product }))

for (const mode of MODES) {
  describe(`PRODUK_VERSIONING=${mode}: GET /v1/produk`, () => {
    const config = { produkVersioning: mode as ProdukVersioning }

    test('200 [{ id, nama }] exactly, Sunset (IMF-fixdate of the default), Deprecation, Link', async () => {
      const app = await build({ config })
      assertV1(await get(app, '/v1/produk'), DEMO, 'demo')
    })

    test('a custom seed, and an empty one, keep the form and the headers', async () => {
      assertV1(
        await get(await build({ config, seed: { produk: CUSTOM } }), '/v1/produk'),
        CUSTOM_PRODUCTS,
        'custom',
      )
      assertV1(await get(await build({ config, seed: {} }), '/v1/produk'), [], 'empty')
    })

    test('PRODUK_V1_SUNSET 2030-01-15T08:30:00Z is sent as Tue, 15 Jan 2030 08:30:00 GMT', async () => {
      const app = await build({
        config: { ...config, produkV1Sunset: new Date('2030-01-15T08:30:00Z') },
      })
      assertV1(
        await get(app, '/v1/produk'),
        DEMO,
        'custom sunset',
        'Tue, 15 Jan 2030 08:30:00 GMT',
        DEFAULT_DEPRECATION,
      )
    })

    test('a sunset earlier than the deprecation date: Deprecation is the sunset', async () => {
      const app = await build({
        config: { ...config, produkV1Sunset: new Date('2026-06-01T12:00:00Z') },
        now: () => new Date('2026-01-01T00:00:00Z'),
      })
      assertV1(
        await get(app, '/v1/produk'),
        DEMO,
        'early sunset',
        'Mon, 01 Jun 2026 12:00:00 GMT',
        '@1780315200',
      )
    })

    test('the path decides: Accept does not change /v1/produk', async () => {
      const app = await build({ config })
      for (const accept of ['application/json;version=2', 'text/html', '*/*', 'application/json']) {
        assertV1(await get(app, '/v1/produk', accept), DEMO, `Accept ${accept}`)
      }
    })
  })

  describe(`PRODUK_VERSIONING=${mode}: GET /v2/produk`, () => {
    const config = { produkVersioning: mode as ProdukVersioning }

    test('200 { data: [{ id, nama, harga }], meta: { versi: "2", jumlah } }, no Sunset', async () => {
      const app = await build({ config })
      assertV2(await get(app, '/v2/produk'), DEMO, 'demo')
    })

    test('jumlah is the item count: 5 for five products, 0 for none', async () => {
      assertV2(
        await get(await build({ config, seed: { produk: CUSTOM } }), '/v2/produk'),
        CUSTOM_PRODUCTS,
        'custom',
      )
      const empty = await get(await build({ config, seed: { produk: [] } }), '/v2/produk')
      assert.deepEqual(empty.json(), { data: [], meta: { versi: '2', jumlah: 0 } })
      assertV2(empty, [], 'empty')
    })

    test('the path decides: Accept does not change /v2/produk', async () => {
      const app = await build({ config })
      for (const accept of ['application/json;version=1', 'text/html', '*/*', 'application/json']) {
        assertV2(await get(app, '/v2/produk', accept), DEMO, `Accept ${accept}`)
      }
    })
  })
}

describe('PRODUK_VERSIONING=header: GET /produk by the Accept version parameter', () => {
  const config = { produkVersioning: 'header' as const }

  test('version=2 (Part 2 example application/json;version=2) gives v2, without Sunset', async () => {
    const app = await build({ config })
    for (const accept of [
      'application/json;version=2',
      'application/json; version = 2',
      'application/json;version= 2 ',
      'application/json;Version=2',
      'application/json;version="2"',
      'application/json;charset=utf-8;version=2',
      'text/html, application/json;version=2;q=0.5',
      'application/json;version=2;q=0, application/json;version=2',
    ]) {
      const response = await get(app, '/produk', accept)
      assertV2(response, DEMO, `Accept ${accept}`)
      assertVaryAccept(response, accept)
    }
  })

  test('any other value, or no version, gives v1 with Sunset, Deprecation and Link', async () => {
    const app = await build({ config })
    for (const accept of [
      undefined,
      '*/*',
      'text/html',
      'application/json',
      'application/json;version=1',
      'application/json;version=',
      'application/json;version=20',
      'application/json;version=2.0',
      'application/json;version=v2',
      'application/json;version=2;q=0',
      'application/json;version=2;q=0, application/json',
      'application/json;version=1, application/json;version=2',
      'application/vnd.tugas.v2+json',
    ]) {
      const response = await get(app, '/produk', accept)
      assertV1(response, DEMO, `Accept ${accept}`)
      assertVaryAccept(response, `${accept}`)
    }
  })

  test('a custom seed and sunset', async () => {
    const app = await build({
      config: { ...config, produkV1Sunset: new Date('2030-01-15T08:30:00Z') },
      seed: { produk: CUSTOM },
    })
    assertV1(
      await get(app, '/produk', 'application/json'),
      CUSTOM_PRODUCTS,
      'v1',
      'Tue, 15 Jan 2030 08:30:00 GMT',
    )
    assertV2(await get(app, '/produk', 'application/json;version=2'), CUSTOM_PRODUCTS, 'v2')
  })
})

describe('PRODUK_VERSIONING=none: GET /produk', () => {
  test('the flat array of full products, no Sunset, whatever Accept says', async () => {
    const app = await build({ config: { produkVersioning: 'none' } })
    for (const accept of [
      undefined,
      'application/json;version=2',
      'application/json;version=1',
      'application/json',
      'text/html',
      '*/*',
    ]) {
      const response = await get(app, '/produk', accept)
      const what = label(response, `Accept ${accept}`)
      assert.equal(response.statusCode, 200, what)
      assert.deepEqual(response.json(), DEMO, what)
      assertNotDeprecated(response, `Accept ${accept}`)
    }
  })
})

describe('after the sunset: every v1 answer is 410 VERSION_RETIRED (Part 2 Deprecation rule 2)', () => {
  const PAST = new Date('2020-01-01T00:00:00Z')
  const PAST_SUNSET = 'Wed, 01 Jan 2020 00:00:00 GMT'
  // The sunset is earlier than the deprecation date: Deprecation is the sunset.
  const PAST_DEPRECATION = '@1577836800'

  for (const mode of MODES) {
    test(`${mode}: PRODUK_V1_SUNSET in the past (real clock): /v1/produk 410, /v2/produk 200`, async () => {
      const app = await testApp({ config: { produkVersioning: mode, produkV1Sunset: PAST } })
      for (const accept of [undefined, 'application/json;version=2']) {
        assertRetired(
          await get(app, '/v1/produk', accept),
          `v1 ${accept}`,
          PAST_SUNSET,
          PAST_DEPRECATION,
        )
        assertV2(await get(app, '/v2/produk', accept), DEMO, `v2 ${accept}`)
      }
      assert.equal((await get(app, '/produk/1')).statusCode, 200)
    })

    test(`${mode}: a sunset far ahead (real clock): /v1/produk still answers 200`, async () => {
      const sunset = new Date('2999-12-31T23:59:59Z')
      const app = await testApp({ config: { produkVersioning: mode, produkV1Sunset: sunset } })
      assertV1(await get(app, '/v1/produk'), DEMO, 'far sunset', sunset.toUTCString())
    })
  }

  test('header mode: /produk v1 is 410 with Vary; /produk version=2 still 200', async () => {
    const app = await testApp({ config: { produkVersioning: 'header', produkV1Sunset: PAST } })
    for (const accept of [undefined, 'application/json', 'application/json;version=1', '*/*']) {
      const response = await get(app, '/produk', accept)
      assertRetired(response, `Accept ${accept}`, PAST_SUNSET, PAST_DEPRECATION)
      assertVaryAccept(response, `${accept}`)
    }
    const v2 = await get(app, '/produk', 'application/json;version=2')
    assertV2(v2, DEMO, 'version=2')
    assertVaryAccept(v2, 'version=2')
  })

  test('none mode: /produk still answers 200 with the full products', async () => {
    const app = await testApp({ config: { produkVersioning: 'none', produkV1Sunset: PAST } })
    const response = await get(app, '/produk', 'application/json;version=1')
    assert.equal(response.statusCode, 200, response.body)
    assert.deepEqual(response.json(), DEMO)
    assertNotDeprecated(response, 'none')
  })

  for (const [sunsetAt, sunsetText] of [
    [undefined, DEFAULT_SUNSET],
    ['2030-01-15T08:30:00Z', 'Tue, 15 Jan 2030 08:30:00 GMT'],
  ] as const) {
    const sunset = new Date(sunsetAt ?? '2027-06-30T00:00:00Z')
    for (const mode of MODES) {
      test(`${mode}, sunset ${sunsetText}: 200 until the instant, 410 from exactly the instant on`, async () => {
        let instant = new Date(sunset.getTime() - 1)
        const app = await build({
          config: {
            produkVersioning: mode,
            ...(sunsetAt !== undefined && { produkV1Sunset: sunset }),
          },
          now: () => instant,
        })
        const v1Urls: [string, string | undefined][] = [['/v1/produk', undefined]]
        if (mode === 'header')
          v1Urls.push(['/produk', undefined], ['/produk', 'application/json;version=1'])

        for (const [url, accept] of v1Urls) {
          assertV1(await get(app, url, accept), DEMO, `${url} 1 ms before`, sunsetText)
        }
        for (const at of [0, 1, 86_400_000]) {
          instant = new Date(sunset.getTime() + at)
          for (const [url, accept] of v1Urls) {
            const response = await get(app, url, accept)
            assertRetired(response, `${url} ${accept} at sunset + ${at} ms`, sunsetText)
            if (url === '/produk') assertVaryAccept(response, `${url} ${at}`)
          }
          assertV2(await get(app, '/v2/produk'), DEMO, `/v2/produk at sunset + ${at} ms`)
          if (mode === 'header') {
            assertV2(
              await get(app, '/produk', 'application/json;version=2'),
              DEMO,
              `version=2 +${at}`,
            )
          } else {
            const list = await get(app, '/produk')
            assert.equal(list.statusCode, 200, list.body)
            assert.deepEqual(list.json(), DEMO)
            assertNotDeprecated(list, `none /produk +${at}`)
          }
        }
      })
    }
  }
})

describe('per-version traffic of products (Part 2, Deprecation: "watch per-version traffic")', () => {
  type Line = Record<string, unknown>

  async function versionOf(app: FastifyInstance, logs: Line[], url: string, accept?: string) {
    const before = logs.length
    await get(app, url, accept)
    for (let i = 0; i < 10 && !logs.slice(before).some((l) => l.url === url); i++) {
      await new Promise((resolve) => setImmediate(resolve))
    }
    const lines = logs.slice(before).filter((line) => line.url === url)
    assert.equal(lines.length, 1, `one log line for ${url}: ${JSON.stringify(logs.slice(before))}`)
    const line = lines[0] as Line
    return [line.apiVersion, line.apiVersionCount]
  }

  test('header mode: /produk, /v1/produk and /v2/produk counted by the version that answered', async () => {
    const logs: Line[] = []
    const app = await testApp({ config: { produkVersioning: 'header' }, logs })
    assert.deepEqual(await versionOf(app, logs, '/v1/produk'), ['produk v1', 1])
    assert.deepEqual(await versionOf(app, logs, '/produk', 'application/json;version=2'), [
      'produk v2',
      1,
    ])
    assert.deepEqual(await versionOf(app, logs, '/produk'), ['produk v1', 2])
    assert.deepEqual(await versionOf(app, logs, '/v2/produk'), ['produk v2', 2])
    assert.deepEqual(await versionOf(app, logs, '/produk/1'), [undefined, undefined])
    assert.deepEqual(await versionOf(app, logs, '/v1/produk'), ['produk v1', 3])
  })

  test('none mode: /produk is unversioned; a retired v1 request is still v1 traffic', async () => {
    const logs: Line[] = []
    const app = await testApp({
      config: { produkVersioning: 'none', produkV1Sunset: new Date('2020-01-01T00:00:00Z') },
      logs,
    })
    assert.deepEqual(await versionOf(app, logs, '/produk'), ['produk unversioned', 1])
    assert.deepEqual(await versionOf(app, logs, '/v1/produk'), ['produk v1', 1])
    assert.deepEqual(await versionOf(app, logs, '/produk'), ['produk unversioned', 2])
    assert.deepEqual(await versionOf(app, logs, '/v2/produk'), ['produk v2', 1])
    assert.deepEqual(await versionOf(app, logs, '/v1/produk'), ['produk v1', 2])
  })
})
