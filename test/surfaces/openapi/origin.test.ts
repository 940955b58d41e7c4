// The server variable `origin` of /openapi.json: its default is the origin the request was sent
// to (protocol and `Host`), the same in /docs/json; a `Host` that is not a plain host and port
// gives the default listen address, and nothing of it reaches the document.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { DEFAULT_ORIGIN, requestOrigin, withOrigin } from '../../../src/surfaces/openapi/origin.js'
import { testApp } from '../../support/helpers.js'

type Json = Record<string, unknown>

/** The default of the `origin` variable of the document's first server. */
function originOf(document: Json): unknown {
  const [server] = document.servers as { variables?: { origin?: { default?: unknown } } }[]
  return server?.variables?.origin?.default
}

describe('requestOrigin', () => {
  test('is the scheme, host and port the request was sent to', () => {
    for (const [protocol, host, origin] of [
      ['http', '127.0.0.1:8080', 'http://127.0.0.1:8080'],
      ['http', 'localhost:80', 'http://localhost'],
      ['https', 'api.example.org', 'https://api.example.org'],
      ['https', 'API.Example.org:8443', 'https://api.example.org:8443'],
      ['http', '[::1]:3000', 'http://[::1]:3000'],
    ] as const) {
      assert.equal(requestOrigin({ protocol, host }), origin, `${protocol} ${host}`)
    }
  })

  test('is the default listen address for anything but a plain host and port', () => {
    for (const host of [
      undefined,
      '',
      'a b',
      'evil.example/x',
      'user@evil.example',
      'evil.example?x',
      'evil.example#x',
      'a:99999',
      '"},"x":{"',
      'evil.example, other.example',
    ]) {
      assert.equal(requestOrigin({ protocol: 'http', host }), DEFAULT_ORIGIN, String(host))
    }
    assert.equal(requestOrigin({ protocol: 'ftp', host: 'example.org' }), DEFAULT_ORIGIN)
  })
})

describe('withOrigin', () => {
  test('sets the default of every origin variable, changes nothing else, copies', () => {
    const variable = { default: 'http://127.0.0.1:8080', description: 'd' }
    const document = {
      openapi: '3.1.0',
      servers: [{ url: '{origin}/v1', variables: { origin: variable } }, { url: '/v1' }],
      paths: {
        '/a': {
          servers: [{ url: '{origin}', variables: { origin: variable } }],
          get: { servers: [{ url: '{origin}', variables: { origin: variable } }], responses: {} },
          'x-method-not-allowed': { description: 'n' },
        },
        '/b': { post: { responses: {} } },
      },
    }
    const before = structuredClone(document)
    const served = withOrigin(document, 'https://api.example.org')
    assert.deepEqual(document, before, 'the document is left as it was')
    const at = { default: 'https://api.example.org', description: 'd' }
    assert.equal(
      JSON.stringify(served),
      JSON.stringify({
        openapi: '3.1.0',
        servers: [{ url: '{origin}/v1', variables: { origin: at } }, { url: '/v1' }],
        paths: {
          '/a': {
            servers: [{ url: '{origin}', variables: { origin: at } }],
            get: { servers: [{ url: '{origin}', variables: { origin: at } }], responses: {} },
            'x-method-not-allowed': { description: 'n' },
          },
          '/b': { post: { responses: {} } },
        },
      }),
    )
  })
})

describe('GET /openapi.json and /docs/json', () => {
  test('default origin to where the request was sent, the same in both', async () => {
    const app = await testApp()
    for (const [host, origin] of [
      ['api.example.org:3000', 'http://api.example.org:3000'],
      ['127.0.0.1:8080', 'http://127.0.0.1:8080'],
      ['evil.example/"x', DEFAULT_ORIGIN],
    ] as const) {
      const served = await app.inject({ method: 'GET', url: '/openapi.json', headers: { host } })
      const shown = await app.inject({ method: 'GET', url: '/docs/json', headers: { host } })
      assert.equal(served.statusCode, 200)
      assert.equal(originOf(served.json()), origin, host)
      assert.equal(shown.body, served.body, `${host}: /docs/json is /openapi.json`)
      assert.ok(!served.body.includes('evil'), `${host}: the Host leaks into the document`)
    }
  })
})
