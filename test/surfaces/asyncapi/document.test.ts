// GET /asyncapi.json (docs/events.md#described-for-generators): an AsyncAPI 3.0.0 document that
// @asyncapi/parser reads with no error and no warning in every configuration that changes the
// OpenAPI document; every event type the feed publishes is a message of the change feed and of
// the webhook deliveries, whose payload is, once every `$ref` is resolved, the very schema
// /openapi.json gives that type's webhook body, and the deliveries' headers are the webhook's
// three headers. Served open (no credential), as every answer is (CORS, security headers), with
// the server `service` at the origin the request was sent to.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Parser } from '@asyncapi/parser'
import type { FastifyInstance } from 'fastify'
import { ALL_EVENT_TYPES } from '../../../src/store/events.js'
import { call, testApp } from '../../support/helpers.js'
import { EVERY_VARIANT, type Variants } from '../../support/variants.js'

type Json = Record<string, unknown>

/** Severities of a Spectral diagnostic: 0 error, 1 warning, 2 information, 3 hint. */
const ERROR = 0
const WARNING = 1

/** `value` with every local `$ref` (`#/...`) of `document` replaced by what it points at. */
function resolved(document: Json, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => resolved(document, item))
  if (typeof value !== 'object' || value === null) return value
  const { $ref } = value as { $ref?: unknown }
  if (typeof $ref === 'string' && $ref.startsWith('#/')) {
    const target = $ref
      .slice(2)
      .split('/')
      .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>((at, token) => (at as Json | undefined)?.[token], document)
    assert.notEqual(target, undefined, `${$ref} points at nothing`)
    return resolved(document, target)
  }
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, resolved(document, item)]),
  )
}

async function documentsOf(app: FastifyInstance) {
  const asyncApi = await call(app, { method: 'GET', url: '/asyncapi.json' })
  assert.equal(asyncApi.statusCode, 200)
  assert.equal(asyncApi.headers['content-type'], 'application/json; charset=utf-8')
  const openApi = await call(app, { method: 'GET', url: '/openapi.json' })
  return { text: asyncApi.body, asyncApi: asyncApi.json() as Json, openApi: openApi.json() as Json }
}

/** The message `name` of the channel `channel`, every `$ref` resolved. */
function messageOf(document: Json, channel: string, name: string): Json {
  const channels = document.channels as Record<string, { messages: Record<string, unknown> }>
  const message = channels[channel]?.messages[name]
  assert.ok(message, `channels.${channel}.messages.${name}`)
  return resolved(document, message) as Json
}

/** The body schema /openapi.json gives the webhook of `type`, every `$ref` resolved. */
function webhookBodyOf(document: Json, type: string): unknown {
  const webhooks = document.webhooks as Record<string, { post: Json }>
  const body = webhooks[type]?.post.requestBody as Json
  const content = body.content as Record<string, { schema: unknown }>
  return resolved(document, content['application/cloudevents+json']?.schema)
}

describe('GET /asyncapi.json in every configuration', () => {
  for (const variant of EVERY_VARIANT) {
    const name = Object.values(variant).join('-')
    test(`${name}: parsed with no error or warning; each type a message with the /openapi.json schema`, async () => {
      const app = await testApp({ config: variant as Partial<Variants> })
      const { text, asyncApi, openApi } = await documentsOf(app)
      const { document, diagnostics } = await new Parser().parse(text)
      const problems = diagnostics.filter(
        ({ severity }) => severity === ERROR || severity === WARNING,
      )
      assert.deepEqual(
        problems.map(({ code, message, path }) => `${code} at ${path.join('.')}: ${message}`),
        [],
      )
      assert.ok(document, 'the parser gave a document')
      assert.equal(document.version(), '3.0.0')
      const modes = `TODOS_VARIANT=${variant.todosVariant}`
      assert.match(String((asyncApi.info as Json).description), new RegExp(modes))

      // Every type the feed publishes (every surface is served in every configuration).
      const published = Object.keys(openApi.webhooks as Json)
      assert.deepEqual(published, [...ALL_EVENT_TYPES])
      const channels = asyncApi.channels as Record<string, Json>
      assert.deepEqual(Object.keys(channels.events?.messages as Json), [...published, 'reset'])
      assert.deepEqual(Object.keys(channels.deliveries?.messages as Json), published)
      const parsedNames = document
        .channels()
        .all()
        .map((channel) => [channel.id(), channel.messages().all().length])
      assert.deepEqual(parsedNames, [
        ['events', published.length + 1],
        ['deliveries', published.length],
      ])

      const webhooks = openApi.webhooks as Record<string, { post: { parameters: Json[] } }>
      for (const type of published) {
        const body = webhookBodyOf(openApi, type)
        const streamed = messageOf(asyncApi, 'events', type)
        assert.equal(streamed.name, type)
        assert.equal(streamed.contentType, 'application/json')
        assert.deepEqual(streamed.payload, body, `${type}: the feed's payload`)
        const delivered = messageOf(asyncApi, 'deliveries', type)
        assert.equal(delivered.name, type)
        assert.equal(delivered.contentType, 'application/cloudevents+json')
        assert.deepEqual(delivered.payload, body, `${type}: the delivery's payload`)
        // The three Standard Webhooks headers, as the webhook's header parameters say.
        const parameters = webhooks[type]?.post.parameters ?? []
        const headers = delivered.headers as { required: string[]; properties: Json }
        assert.deepEqual(headers.required, ['webhook-id', 'webhook-timestamp', 'webhook-signature'])
        assert.deepEqual(
          headers.properties,
          Object.fromEntries(
            parameters.map((parameter) => [
              parameter.name,
              {
                ...(resolved(openApi, parameter.schema) as Json),
                description: parameter.description,
              },
            ]),
          ),
        )
      }
      // Each type's payload names its own type: the documents describe types, not one event.
      const payload = messageOf(asyncApi, 'events', 'tugas.deleted').payload as Json
      assert.deepEqual((payload.properties as Json).type, {
        type: 'string',
        const: 'tugas.deleted',
      })
      assert.deepEqual((payload.properties as Json).data, {
        type: 'object',
        description: 'What a deletion carries: the id of what was deleted.',
        properties: { id: { type: 'integer', minimum: 1 } },
        required: ['id'],
      })

      // The operations: the service sends both channels' messages, over HTTP.
      const operations = asyncApi.operations as Record<string, Json>
      assert.deepEqual(
        Object.values(operations).map((operation) => [
          operation.action,
          operation.channel,
          (operation.bindings as { http: Json }).http.method,
          (operation.messages as unknown[]).length,
        ]),
        [
          ['send', { $ref: '#/channels/events' }, 'GET', published.length + 1],
          ['send', { $ref: '#/channels/deliveries' }, 'POST', published.length],
        ],
      )
    })
  }
})

describe('GET /asyncapi.json as served', () => {
  let app: FastifyInstance
  before(async () => {
    app = await testApp({ closedBy: 'caller' })
  })
  after(() => app.close())

  test('the parser does check: a document broken in one place gives an error', async () => {
    const served = (await call(app, { method: 'GET', url: '/asyncapi.json' })).json()
    served.operations.streamEvents.action = 'emit'
    const { diagnostics } = await new Parser().parse(JSON.stringify(served))
    assert.ok(
      diagnostics.some(({ severity, path }) => severity === ERROR && path.includes('action')),
      JSON.stringify(diagnostics.map(({ code, path }) => [code, path])),
    )
  })

  test('open: no credential needed, and one sent changes nothing', async () => {
    const open = await call(app, { method: 'GET', url: '/asyncapi.json' })
    assert.equal(open.statusCode, 200)
    const withCredential = await call(app, {
      method: 'GET',
      url: '/asyncapi.json',
      headers: { authorization: 'Bearer demo-admin-token' },
    })
    assert.equal(withCredential.body, open.body)
    const wrong = await call(app, {
      method: 'GET',
      url: '/asyncapi.json',
      headers: { authorization: 'Bearer not-a-credential' },
    })
    assert.equal(wrong.statusCode, 200)
  })

  test('CORS and the security headers, as every answer', async () => {
    const response = await call(app, {
      method: 'GET',
      url: '/asyncapi.json',
      headers: { origin: 'https://app.example' },
    })
    assert.equal(response.headers['access-control-allow-origin'], '*')
    assert.equal(response.headers['x-content-type-options'], 'nosniff')
    assert.ok(response.headers['x-request-id'])
  })

  test('the server `service` is the origin the request was sent to; a bad Host, the default', async () => {
    const at = async (host: string) => {
      const response = await call(app, { method: 'GET', url: '/asyncapi.json', headers: { host } })
      return (response.json().servers as Record<string, Json>).service
    }
    assert.deepEqual(
      { ...(await at('tugas.example:8443')), description: undefined },
      { host: 'tugas.example:8443', protocol: 'http', description: undefined },
    )
    assert.equal((await at('evil.example/<script>'))?.host, '127.0.0.1:8080')
    // Everything else is the same document.
    const one = (
      await call(app, { method: 'GET', url: '/asyncapi.json', headers: { host: 'a' } })
    ).json()
    const two = (
      await call(app, { method: 'GET', url: '/asyncapi.json', headers: { host: 'b' } })
    ).json()
    assert.deepEqual({ ...one, servers: undefined }, { ...two, servers: undefined })
  })

  test('/openapi.json documents it, and links it from its description (shown by /docs)', async () => {
    const openApi = (await call(app, { method: 'GET', url: '/openapi.json' })).json()
    const operation = openApi.paths['/asyncapi.json']?.get
    assert.equal(operation?.operationId, 'getAsyncApiDocument')
    assert.deepEqual(operation.security, [])
    assert.match(openApi.info.description, /\[`GET \/asyncapi\.json`\]\(\/asyncapi\.json\)/)
  })
})
