// The subscriptions API (docs/webhooks.md#subscriptions), on the store of the pass: admin only
// (401, then 403), every body violation at once, private addresses refused at creation, the
// secret shown once and never logged. Every answer is checked against /openapi.json (call).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { ALL_EVENT_TYPES, EVENT_SOURCES, resourceOf } from '../../../src/store/events.js'
import { webhookViolations } from '../../../src/surfaces/webhooks/rules.js'
import { call, testApp } from '../../support/helpers.js'
import { ADMIN, assertE2, BUDI, bearer } from '../../support/supporting.js'

const admin = { ...bearer(ADMIN), 'content-type': 'application/json' }
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/

const create = (app: FastifyInstance, body: unknown, headers: Record<string, string> = admin) =>
  call(app, { method: 'POST', url: '/webhooks', headers, payload: JSON.stringify(body) })

const get = (app: FastifyInstance, url: string, headers: Record<string, string> = admin) =>
  call(app, { method: 'GET', url, headers })

describe('the subscriptions API', async () => {
  const logs: Record<string, unknown>[] = []
  const app = await testApp({ config: { webhookAllowPrivate: true }, logs })

  test('POST is 201 with Location and the secret; reads never show the secret again', async () => {
    const url = 'http://127.0.0.1:9/hooks/tugas'
    const response = await create(app, { url, types: ['tugas.*', 'todos.created'] })
    assert.equal(response.statusCode, 201, response.body)
    const { data } = response.json()
    assert.deepEqual(Object.keys(data), ['id', 'url', 'types', 'secret', 'created_at'])
    assert.match(data.secret, SECRET)
    assert.equal(Buffer.from(data.secret.slice(6), 'base64').length, 32)
    assert.equal(response.headers.location, `/webhooks/${data.id}`)
    const shown = { id: data.id, url, types: ['tugas.*', 'todos.created'] }
    assert.deepEqual(
      { ...data, secret: undefined, created_at: undefined },
      {
        ...shown,
        secret: undefined,
        created_at: undefined,
      },
    )

    const one = await get(app, `/webhooks/${data.id}`)
    assert.equal(one.statusCode, 200)
    assert.deepEqual(one.json(), { data: { ...shown, created_at: data.created_at } })
    const list = await get(app, '/webhooks')
    assert.ok(list.json().data.some((webhook: { id: number }) => webhook.id === data.id))
    for (const answer of [one, list]) assert.doesNotMatch(answer.body, /whsec_|secret/)
    // Not in any log line either: the request log, or anything else the app wrote.
    assert.ok(logs.length > 0)
    // Compared as text: the secret's base64 holds `+` and `/`, which a RegExp would read.
    assert.equal(JSON.stringify(logs).includes(data.secret.slice(6, 30)), false)

    // Two secrets are never the same.
    const other = (await create(app, { url, types: ['tugas.created'] })).json().data
    assert.notEqual(other.secret, data.secret)
  })

  test('401 without a credential or with an unknown one, before anything else', async () => {
    for (const headers of [{}, bearer('nobody')]) {
      assertE2(await create(app, 'not json at all', headers), 401, 'UNAUTHENTICATED')
      assertE2(await get(app, '/webhooks', headers), 401, 'UNAUTHENTICATED')
      assertE2(await get(app, '/webhooks/abc', headers), 401, 'UNAUTHENTICATED')
      assertE2(await get(app, '/webhooks/1/deliveries', headers), 401, 'UNAUTHENTICATED')
      const deleted = await call(app, { method: 'DELETE', url: '/webhooks/1', headers })
      assertE2(deleted, 401, 'UNAUTHENTICATED')
    }
  })

  test('403 for a user, before the body, the id or existence', async () => {
    const user = { ...bearer(BUDI), 'content-type': 'text/plain' }
    assertE2(await create(app, {}, user), 403, 'FORBIDDEN')
    assertE2(await get(app, '/webhooks', bearer(BUDI)), 403, 'FORBIDDEN')
    assertE2(await get(app, '/webhooks/abc', bearer(BUDI)), 403, 'FORBIDDEN')
    assertE2(await get(app, '/webhooks/999/deliveries', bearer(BUDI)), 403, 'FORBIDDEN')
    const deleted = await call(app, { method: 'DELETE', url: '/webhooks/1', headers: bearer(BUDI) })
    assertE2(deleted, 403, 'FORBIDDEN')
  })

  test('then the Content-Type (415) and the JSON (400 INVALID_JSON)', async () => {
    assertE2(
      await create(app, {}, { ...bearer(ADMIN), 'content-type': 'text/plain' }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    )
    const broken = await call(app, {
      method: 'POST',
      url: '/webhooks',
      headers: admin,
      payload: '{"url":',
    })
    assertE2(broken, 400, 'INVALID_JSON')
  })

  test('every violation of a body at once, in details', async () => {
    const both = { url: webhookViolations.url, types: webhookViolations.types }
    for (const body of [{}, [], null, 'x', { url: 7, types: 'tugas.*' }]) {
      assertE2(await create(app, body), 400, 'VALIDATION_ERROR', both)
    }
    const bad = [
      [{ url: 'ftp://example.com/', types: ['tugas.*'] }, { url: webhookViolations.url }],
      [{ url: 'not a url', types: ['tugas.*'] }, { url: webhookViolations.url }],
      [
        { url: `http://127.0.0.1/${'a'.repeat(2048)}`, types: ['tugas.*'] },
        { url: webhookViolations.url },
      ],
      [{ url: 'http://127.0.0.1:9/', types: [] }, { types: webhookViolations.types }],
      [{ url: 'http://127.0.0.1:9/', types: ['tugas.bogus'] }, { types: webhookViolations.types }],
      [{ url: 'http://127.0.0.1:9/', types: ['nope.*'] }, { types: webhookViolations.types }],
      [{ url: 'http://127.0.0.1:9/', types: [1] }, { types: webhookViolations.types }],
      [
        { url: 'http://127.0.0.1:9/', types: ['tugas.*', null] },
        { types: webhookViolations.types },
      ],
    ] as const
    for (const [body, details] of bad) {
      assertE2(await create(app, body), 400, 'VALIDATION_ERROR', details)
    }
  })

  test('ids: 400 INVALID_ID, then 404 NOT_FOUND; DELETE is 204, then 404', async () => {
    for (const url of ['/webhooks/abc', '/webhooks/1.5', '/webhooks/abc/deliveries']) {
      assertE2(await get(app, url), 400, 'INVALID_ID')
    }
    assertE2(
      await call(app, { method: 'DELETE', url: '/webhooks/x', headers: admin }),
      400,
      'INVALID_ID',
    )
    for (const url of ['/webhooks/99999', '/webhooks/0', '/webhooks/99999/deliveries']) {
      assertE2(await get(app, url), 404, 'NOT_FOUND')
    }
    const { id } = (await create(app, { url: 'http://127.0.0.1:9/', types: ['users.*'] })).json()
      .data
    const deliveries = await get(app, `/webhooks/${id}/deliveries`)
    assert.equal(deliveries.statusCode, 200)
    assert.deepEqual(deliveries.json(), { data: [] })
    const deleted = await call(app, { method: 'DELETE', url: `/webhooks/${id}`, headers: admin })
    assert.equal(deleted.statusCode, 204)
    assert.equal(deleted.body, '')
    assertE2(
      await call(app, { method: 'DELETE', url: `/webhooks/${id}`, headers: admin }),
      404,
      'NOT_FOUND',
    )
    assertE2(await get(app, `/webhooks/${id}`), 404, 'NOT_FOUND')
    assertE2(await get(app, `/webhooks/${id}/deliveries`), 404, 'NOT_FOUND')
  })

  test('/openapi.json describes a delivery per event type: its event, the three headers', async () => {
    const document = (await call(app, { method: 'GET', url: '/openapi.json' })).json()
    const schemas = document.components.schemas
    // Every type of the feed (docs/events.md), in its order, and nothing else.
    assert.deepEqual(Object.keys(document.webhooks), [...ALL_EVENT_TYPES])
    const operationIds = new Set<string>()
    for (const type of ALL_EVENT_TYPES) {
      const delivery = document.webhooks[type].post
      assert.ok(delivery, `webhooks.${type}.post`)
      operationIds.add(delivery.operationId)
      assert.deepEqual(delivery.tags, ['Webhooks'])
      assert.deepEqual(
        delivery.parameters.map(({ name, in: where, required }: Record<string, unknown>) => [
          name,
          where,
          required,
        ]),
        [
          ['webhook-id', 'header', true],
          ['webhook-timestamp', 'header', true],
          ['webhook-signature', 'header', true],
        ],
      )
      // The body is sent as a CloudEvent in structured mode, and described only as that.
      assert.equal(delivery.requestBody.required, true)
      assert.deepEqual(Object.keys(delivery.requestBody.content), ['application/cloudevents+json'])
      const { $ref } = delivery.requestBody.content['application/cloudevents+json'].schema
      const body = schemas[$ref.replace('#/components/schemas/', '')]
      assert.ok(body, `${type}: ${$ref}`)
      assert.deepEqual(Object.keys(body.properties), [
        'specversion',
        'id',
        'source',
        'type',
        'subject',
        'time',
        'datacontenttype',
        'data',
      ])
      assert.deepEqual(body.required, Object.keys(body.properties))
      assert.equal(body.properties.type.const, type)
      assert.equal(body.properties.source.const, EVENT_SOURCES[resourceOf(type)])
      // The receiver's answer: a 2xx is delivered, anything else is tried again.
      assert.deepEqual(Object.keys(delivery.responses), ['200', '500'])
    }
    assert.equal(operationIds.size, ALL_EVENT_TYPES.length, 'one operationId per type')
    // Each type's data: the resource as its item read returns it, or the deleted id.
    const dataOf = (type: string) => {
      const { $ref } =
        document.webhooks[type].post.requestBody.content['application/cloudevents+json'].schema
      return schemas[$ref.replace('#/components/schemas/', '')].properties.data
    }
    assert.deepEqual(dataOf('tugas.created'), { $ref: '#/components/schemas/Tugas' })
    assert.deepEqual(dataOf('tugas.deleted'), { $ref: '#/components/schemas/DeletedData' })
    assert.deepEqual(dataOf('komentar.created'), { $ref: '#/components/schemas/Komentar' })
    assert.deepEqual(dataOf('api-tugas.replaced'), { $ref: '#/components/schemas/CompactTugas' })
    assert.deepEqual(dataOf('todos.created'), { $ref: '#/components/schemas/Todo' })
    assert.deepEqual(dataOf('users.created'), { $ref: '#/components/schemas/User' })
    assert.deepEqual(dataOf('pesanan.paid'), { $ref: '#/components/schemas/Pesanan' })
    assert.deepEqual(dataOf('dokumen.deleted'), { $ref: '#/components/schemas/DeletedData' })
    assert.deepEqual(document.paths['/webhooks'].post.tags, ['Webhooks'])
  })

  test('another method on a known path is 405 with Allow, in E2', async () => {
    const response = await call(app, { method: 'PUT', url: '/webhooks/1', headers: admin })
    assertE2(response, 405, 'METHOD_NOT_ALLOWED')
    assert.equal(response.headers.allow, 'DELETE, GET, HEAD')
  })
})

describe('private addresses at creation (WEBHOOK_ALLOW_PRIVATE off)', async () => {
  const app = await testApp()
  const refused = [
    'http://127.0.0.1:8080/hook',
    'http://localhost:8080/hook',
    'http://[::1]/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://10.1.2.3/hook',
    'http://192.168.0.1/hook',
    'http://[fd00::1]/hook',
    'http://0.0.0.0/hook',
    'https://[::ffff:127.0.0.1]/hook',
  ]
  for (const url of refused) {
    test(`${url} is refused (400, details.url)`, async () => {
      assertE2(await create(app, { url, types: ['tugas.*'] }), 400, 'VALIDATION_ERROR', {
        url: webhookViolations.private,
      })
    })
  }

  test('a host that does not resolve is refused; with bad types, both are reported', async () => {
    assertE2(
      await create(app, { url: 'http://tidak-ada.invalid/hook', types: ['x'] }),
      400,
      'VALIDATION_ERROR',
      { url: webhookViolations.unresolved, types: webhookViolations.types },
    )
  })

  test('a public address is taken', async () => {
    const response = await create(app, { url: 'http://93.184.215.14/hook', types: ['tugas.*'] })
    assert.equal(response.statusCode, 201, response.body)
  })
})
