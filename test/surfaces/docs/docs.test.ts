// GET /docs without a browser: what the page is made of comes from this service only, it shows
// the very document /openapi.json serves, and it changes nothing else (routes, 404s, the
// document). The browser tests are in test/browser/docs.test.ts.

import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import Fastify, { type FastifyInstance } from 'fastify'
import { docsSurface } from '../../../src/surfaces/docs/index.js'
import { openApiSurface } from '../../../src/surfaces/openapi/index.js'
import { testApp } from '../../support/helpers.js'

const NOT_FOUND = { error: { kode: 'TIDAK_ADA', pesan: 'endpoint not found' } }

describe('GET /docs', () => {
  let app: FastifyInstance

  before(async () => {
    app = await testApp({ closedBy: 'caller' })
  })
  after(() => app.close())

  test('serves the UI at /docs and /docs/, every asset from /docs/static/', async () => {
    for (const url of ['/docs', '/docs/']) {
      const page = await app.inject({ method: 'GET', url })
      assert.equal(page.statusCode, 200, url)
      assert.match(String(page.headers['content-type']), /^text\/html\b/)
      assert.doesNotMatch(page.body, /\b(https?:)?\/\/[a-z0-9]/i, `${url} names another host`)
      const assets = [...page.body.matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => m[1] ?? '')
      assert.ok(assets.length >= 5, `${url} loads ${assets.length} assets`)
      for (const asset of assets) {
        const absolute = new URL(asset, `http://127.0.0.1${url}`).pathname
        assert.match(absolute, /^\/docs\/static\//, `${url}: ${asset}`)
        const answer = await app.inject({ method: 'GET', url: absolute })
        assert.equal(answer.statusCode, 200, `${url}: ${asset} is ${answer.statusCode}`)
      }
    }
  })

  test('the style sheets import nothing and load fonts or images from no other host', async () => {
    for (const url of ['/docs/static/swagger-ui.css', '/docs/static/index.css']) {
      const css = (await app.inject({ method: 'GET', url })).body
      assert.doesNotMatch(css, /@import/, url)
      for (const [, target] of css.matchAll(/url\(\s*["']?([^"')]*)/g)) {
        assert.match(target ?? '', /^data:/, `${url} loads ${target}`)
      }
    }
  })

  test('the UI reads the document /openapi.json serves, byte for byte', async () => {
    const served = await app.inject({ method: 'GET', url: '/openapi.json' })
    const shown = await app.inject({ method: 'GET', url: '/docs/json' })
    assert.equal(shown.statusCode, 200)
    assert.equal(shown.body, served.body)
    const initializer = (
      await app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' })
    ).body
    assert.match(initializer, /url: resolveUrl\('\.\/json'\)/)
  })

  test('no validator badge, no top bar to load another document', async () => {
    const initializer = (
      await app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' })
    ).body
    assert.match(initializer, /validatorUrl: null,/)
    const config = /const config = (\{.*\})\n/.exec(initializer)?.[1]
    assert.ok(config, 'no uiConfig in the initializer')
    const uiConfig = JSON.parse(config)
    assert.equal(uiConfig.validatorUrl, null)
    assert.equal(uiConfig.layout, 'BaseLayout')
  })

  test('its Content-Security-Policy lets the page reach its own origin only', async () => {
    for (const url of ['/docs', '/docs/static/swagger-ui-bundle.js', '/docs/json']) {
      const policy = String(
        (await app.inject({ method: 'GET', url })).headers['content-security-policy'],
      )
      for (const directive of [
        "default-src 'self'",
        "connect-src 'self'",
        "img-src 'self' data:",
      ]) {
        assert.ok(policy.includes(`${directive};`), `${url}: ${policy}`)
      }
      assert.doesNotMatch(policy, /https?:/, `${url}: ${policy}`)
    }
  })

  test('unknown paths and other methods under /docs are the E1 404 of any unknown path', async () => {
    for (const [method, url] of [
      ['GET', '/docs/nope'],
      ['GET', '/docs/static/nope.js'],
      ['GET', '/docs/static/../../package.json'],
      ['GET', '/docs/static/%2e%2e/%2e%2e/package.json'],
      ['POST', '/docs'],
      ['DELETE', '/docs/json'],
      ['GET', '/v1/docs'],
    ] as const) {
      const response = await app.inject({ method, url })
      assert.equal(response.statusCode, 404, `${method} ${url}`)
      assert.deepEqual(response.json(), NOT_FOUND, `${method} ${url}`)
    }
  })
})

describe('the docs surface', () => {
  test('adds routes under /docs only, and leaves the document as it was', async () => {
    const document = {
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      servers: [{ url: '/v1' }],
      paths: {},
    }
    const before = structuredClone(document)
    const routes: string[] = []
    const app = Fastify({ logger: false })
    app.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) routes.push(`${method} ${route.url}`)
    })
    try {
      await app.register(openApiSurface, { document })
      await app.register(docsSurface, { document })
      await app.ready()
      const outside = routes.filter((route) => !/^[A-Z]+ \/docs([/?]|$)/.test(route))
      assert.deepEqual(outside.sort(), ['GET /openapi.json', 'HEAD /openapi.json'])
      for (const url of ['/docs/json', '/docs/yaml', '/openapi.json']) {
        assert.equal((await app.inject({ method: 'GET', url })).statusCode, 200, url)
      }
      assert.deepEqual(document, before)
      assert.equal(
        (await app.inject({ method: 'GET', url: '/openapi.json' })).body,
        JSON.stringify(before),
      )
      // The plugins' decorators stay inside the docs context.
      assert.equal(app.hasDecorator('swagger'), false)
    } finally {
      await app.close()
    }
  })
})
