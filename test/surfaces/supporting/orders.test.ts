// Surface D: orders, /pesanan (Part 1 Surface D and Order status, Part 2 E2 codes,
// decisions.md sections 2 and 6: orders, body size, no credential).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { orderViolations } from '../../../src/surfaces/supporting/orders/rules.js'
import { json, testApp } from '../../support/helpers.js'
import { assertE2, assertNotAllowed, bearer, callD } from '../../support/supporting.js'

const MiB = 1048576

/** The expected `details` of a VALIDATION_ERROR naming `fields`. */
function violations(...fields: (keyof typeof orderViolations)[]): Record<string, string> {
  return Object.fromEntries(fields.map((field) => [field, orderViolations[field]]))
}

function create(app: FastifyInstance, payload: unknown, headers: Record<string, string> = json) {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload)
  return callD(app, { method: 'POST', url: '/pesanan', headers, payload: body })
}

const pay = (app: FastifyInstance, id: number | string) =>
  callD(app, { method: 'POST', url: `/pesanan/${id}/bayar` })

/** The order of a `{ data: Pesanan }` answer, checking the envelope and the exact fields. */
function orderOf(response: LightMyRequestResponse) {
  assert.match(String(response.headers['content-type']), /^application\/json/)
  const body = response.json()
  assert.deepEqual(Object.keys(body), ['data'], response.body)
  assert.deepEqual(Object.keys(body.data).sort(), ['email', 'id', 'jumlah', 'status'])
  return body.data
}

// Bad values of each field; `undefined` leaves the field out.
const BAD_EMAILS: unknown[] = [undefined, null, '', '   ', 'budi.x.id', 5, true, ['a@x.id'], {}]
const BAD_JUMLAH: unknown[] = [undefined, null, 0, -1, 1.5, '3', '1', true, [2], 1e300]

describe('POST /pesanan: create', () => {
  test('201 with Location /pesanan/<id> and { data: { id, email, jumlah, status: MENUNGGU } }', async () => {
    const app = await testApp()
    const response = await create(app, { email: 'budi@x.id', jumlah: 3 })
    assert.equal(response.statusCode, 201, response.body)
    assert.equal(response.headers.location, '/pesanan/1')
    assert.deepEqual(orderOf(response), {
      id: 1,
      email: 'budi@x.id',
      jumlah: 3,
      status: 'MENUNGGU',
    })
  })

  test('ids are assigned from 1, increasing', async () => {
    const app = await testApp()
    for (const n of [1, 2, 3]) {
      const response = await create(app, { email: `p${n}@x.id`, jumlah: n })
      assert.equal(response.statusCode, 201)
      assert.equal(response.headers.location, `/pesanan/${n}`)
      assert.equal(orderOf(response).id, n)
    }
  })

  test('jumlah 1.0 in JSON is the integer 1; large safe integers are accepted', async () => {
    const app = await testApp()
    const response = await create(app, '{"email":"a@x.id","jumlah":1.0}')
    assert.equal(response.statusCode, 201, response.body)
    assert.equal(orderOf(response).jumlah, 1)
    const big = await create(app, { email: 'a@x.id', jumlah: 2 ** 53 - 1 })
    assert.equal(big.statusCode, 201, big.body)
    assert.equal(orderOf(big).jumlah, 2 ** 53 - 1)
  })

  test('status, id and unknown fields sent in the body are ignored', async () => {
    const app = await testApp()
    const response = await create(
      app,
      '{"email":"a@x.id","jumlah":2,"status":"LUNAS","id":50,"catatan":"x",' +
        '"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}',
    )
    assert.equal(response.statusCode, 201, response.body)
    assert.deepEqual(orderOf(response), { id: 1, email: 'a@x.id', jumlah: 2, status: 'MENUNGGU' })
    assert.equal(({} as Record<string, unknown>).polluted, undefined)
  })
})

describe('POST /pesanan: validation (400 VALIDATION_ERROR)', () => {
  test('email and jumlah both wrong: both are in details', async () => {
    const app = await testApp()
    for (let i = 0; i < Math.max(BAD_EMAILS.length, BAD_JUMLAH.length); i++) {
      const email = BAD_EMAILS[i % BAD_EMAILS.length]
      const jumlah = BAD_JUMLAH[i % BAD_JUMLAH.length]
      assertE2(
        await create(app, { email, jumlah }),
        400,
        'VALIDATION_ERROR',
        violations('email', 'jumlah'),
      )
    }
  })

  test('a bad email alone reports only email', async () => {
    const app = await testApp()
    for (const email of BAD_EMAILS) {
      assertE2(
        await create(app, { email, jumlah: 2 }),
        400,
        'VALIDATION_ERROR',
        violations('email'),
      )
    }
  })

  test('a bad jumlah alone reports only jumlah (0, -1, 1.5, "3", null, missing, 1e300...)', async () => {
    const app = await testApp()
    for (const jumlah of BAD_JUMLAH) {
      assertE2(
        await create(app, { email: 'a@x.id', jumlah }),
        400,
        'VALIDATION_ERROR',
        violations('jumlah'),
      )
    }
    assertE2(
      await create(app, '{"email":"a@x.id","jumlah":1e300}'),
      400,
      'VALIDATION_ERROR',
      violations('jumlah'),
    )
  })

  test('a body that is not an object reports both fields', async () => {
    const app = await testApp()
    for (const payload of ['{}', '[]', '"teks"', '7', 'false', 'null']) {
      assertE2(await create(app, payload), 400, 'VALIDATION_ERROR', violations('email', 'jumlah'))
    }
  })

  test('fields under __proto__ are not fields of the body', async () => {
    const app = await testApp()
    assertE2(
      await create(app, '{"__proto__":{"email":"a@x.id","jumlah":2}}'),
      400,
      'VALIDATION_ERROR',
      violations('email', 'jumlah'),
    )
  })

  test('a rejected create adds no order', async () => {
    const app = await testApp()
    await create(app, { email: 'x', jumlah: 0 })
    assertE2(await callD(app, { url: '/pesanan/1' }), 404, 'NOT_FOUND')
    assert.equal((await create(app, { email: 'a@x.id', jumlah: 1 })).headers.location, '/pesanan/1')
  })
})

describe('POST /pesanan: body reading', () => {
  test('malformed JSON, and a JSON content type with an empty body, are 400 INVALID_JSON', async () => {
    const app = await testApp()
    for (const payload of ['{', '{"email":"a@x.id",}', "{'jumlah':1}", '']) {
      assertE2(await create(app, payload), 400, 'INVALID_JSON')
    }
    assertE2(
      await callD(app, { method: 'POST', url: '/pesanan', headers: json }),
      400,
      'INVALID_JSON',
    )
  })

  test('text/plain, application/x-json and no Content-Type (with or without a body) are 415', async () => {
    const app = await testApp()
    const body = JSON.stringify({ email: 'a@x.id', jumlah: 1 })
    for (const type of ['text/plain', 'application/x-json', 'text/json']) {
      assertE2(await create(app, body, { 'content-type': type }), 415, 'UNSUPPORTED_MEDIA_TYPE')
    }
    assertE2(await create(app, body, {}), 415, 'UNSUPPORTED_MEDIA_TYPE')
    assertE2(await callD(app, { method: 'POST', url: '/pesanan' }), 415, 'UNSUPPORTED_MEDIA_TYPE')
    assertE2(await callD(app, { url: '/pesanan/1' }), 404, 'NOT_FOUND')
  })

  test('application/json; charset=utf-8 is accepted', async () => {
    const app = await testApp()
    const response = await create(
      app,
      { email: 'a@x.id', jumlah: 1 },
      { 'content-type': 'application/json; charset=utf-8' },
    )
    assert.equal(response.statusCode, 201, response.body)
  })

  test('a body over 1 MiB is 413 BODY_TOO_LARGE naming 1048576; exactly 1 MiB is read', async () => {
    const app = await testApp()
    const padded = (size: number) => {
      const head = '{"jumlah":1,"email":"a@x.id","catatan":"'
      return `${head}${'c'.repeat(size - head.length - 2)}"}`
    }
    assert.equal(padded(MiB).length, MiB)
    const error = assertE2(await create(app, padded(MiB + 1)), 413, 'BODY_TOO_LARGE')
    assert.ok(error.message.includes('1048576'), error.message)
    const atLimit = await create(app, padded(MiB))
    assert.equal(atLimit.statusCode, 201, atLimit.body.slice(0, 200))
    assert.equal(atLimit.headers.location, '/pesanan/1')
  })
})

describe('GET /pesanan/<id>', () => {
  test('200 { data } with the order as created', async () => {
    const app = await testApp()
    await create(app, { email: 'a@x.id', jumlah: 1 })
    const created = orderOf(await create(app, { email: 'b@x.id', jumlah: 9 }))
    const response = await callD(app, { url: '/pesanan/2' })
    assert.equal(response.statusCode, 200)
    assert.deepEqual(orderOf(response), created)
  })

  test('an id that is not an integer is 400 INVALID_ID', async () => {
    const app = await testApp()
    await create(app, { email: 'a@x.id', jumlah: 1 })
    for (const id of ['abc', '1.5', '1e3', '+1', '%201', '%00', '0x1']) {
      assertE2(await callD(app, { url: `/pesanan/${id}` }), 400, 'INVALID_ID')
    }
  })

  test('a well-formed id that names no order is 404 NOT_FOUND', async () => {
    const app = await testApp()
    await create(app, { email: 'a@x.id', jumlah: 1 })
    for (const id of ['0', '-1', '2', '99999999999999999999']) {
      assertE2(await callD(app, { url: `/pesanan/${id}` }), 404, 'NOT_FOUND')
    }
  })
})

describe('POST /pesanan/<id>/bayar', () => {
  test('pays a waiting order: 200 { data } with status LUNAS, other fields unchanged', async () => {
    const app = await testApp()
    const created = orderOf(await create(app, { email: 'budi@x.id', jumlah: 4 }))
    const response = await pay(app, 1)
    assert.equal(response.statusCode, 200, response.body)
    assert.deepEqual(orderOf(response), { ...created, status: 'LUNAS' })
    assert.deepEqual(orderOf(await callD(app, { url: '/pesanan/1' })), {
      ...created,
      status: 'LUNAS',
    })
  })

  test('paying again is 409 SUDAH_DIBAYAR with details exactly { status: LUNAS }; the order stays LUNAS', async () => {
    const app = await testApp()
    const created = orderOf(await create(app, { email: 'budi@x.id', jumlah: 4 }))
    assert.equal((await pay(app, 1)).statusCode, 200)
    for (let i = 0; i < 3; i++) {
      assertE2(await pay(app, 1), 409, 'SUDAH_DIBAYAR', { status: 'LUNAS' })
    }
    assert.deepEqual(orderOf(await callD(app, { url: '/pesanan/1' })), {
      ...created,
      status: 'LUNAS',
    })
  })

  test('paying one order leaves the others waiting', async () => {
    const app = await testApp()
    for (const n of [1, 2, 3]) await create(app, { email: `p${n}@x.id`, jumlah: n })
    assert.equal((await pay(app, 2)).statusCode, 200)
    const statuses = []
    for (const id of [1, 2, 3]) {
      statuses.push(orderOf(await callD(app, { url: `/pesanan/${id}` })).status)
    }
    assert.deepEqual(statuses, ['MENUNGGU', 'LUNAS', 'MENUNGGU'])
  })

  test('a missing order is 404 NOT_FOUND; an id that is not an integer is 400 INVALID_ID', async () => {
    const app = await testApp()
    await create(app, { email: 'a@x.id', jumlah: 1 })
    for (const id of ['2', '0', '-1', '99999999999999999999']) {
      assertE2(await pay(app, id), 404, 'NOT_FOUND')
    }
    for (const id of ['abc', '1.5', '+1', '%201']) {
      assertE2(await pay(app, id), 400, 'INVALID_ID')
    }
    assert.equal(orderOf(await callD(app, { url: '/pesanan/1' })).status, 'MENUNGGU')
  })

  test('a body or an odd Content-Type sent with bayar does not matter', async () => {
    const app = await testApp()
    for (const n of [1, 2, 3, 4, 5]) await create(app, { email: `p${n}@x.id`, jumlah: n })
    const sent = [
      { headers: json, payload: '{' },
      { headers: json, payload: '{"status":"MENUNGGU","jumlah":99}' },
      { headers: { 'content-type': 'text/plain' }, payload: 'bayar' },
      { headers: { 'content-type': 'application/x-json' }, payload: '{}' },
      { payload: 'tanpa content-type' },
    ]
    for (const [i, extra] of sent.entries()) {
      const id = i + 1
      const response = await callD(app, { method: 'POST', url: `/pesanan/${id}/bayar`, ...extra })
      assert.equal(response.statusCode, 200, `${JSON.stringify(extra)}: ${response.body}`)
      assert.deepEqual(orderOf(response), {
        id,
        email: `p${id}@x.id`,
        jumlah: id,
        status: 'LUNAS',
      })
    }
    assertE2(
      await callD(app, { method: 'POST', url: '/pesanan/1/bayar', headers: json, payload: '{' }),
      409,
      'SUDAH_DIBAYAR',
      { status: 'LUNAS' },
    )
  })

  test('20 concurrent payments of one waiting order: exactly one 200 and nineteen 409', async () => {
    const app = await testApp()
    await create(app, { email: 'a@x.id', jumlah: 1 })
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => app.inject({ method: 'POST', url: '/pesanan/1/bayar' })),
    )
    const statuses = responses.map((response) => response.statusCode)
    assert.equal(statuses.filter((s) => s === 200).length, 1, `statuses: ${statuses}`)
    assert.equal(statuses.filter((s) => s === 409).length, 19, `statuses: ${statuses}`)
    for (const response of responses) {
      if (response.statusCode === 409) {
        assertE2(response, 409, 'SUDAH_DIBAYAR', { status: 'LUNAS' })
      } else {
        assert.equal(orderOf(response).status, 'LUNAS')
      }
    }
    assert.equal(orderOf(await callD(app, { url: '/pesanan/1' })).status, 'LUNAS')
  })
})

describe('/pesanan: methods not registered (405 METHOD_NOT_ALLOWED)', () => {
  test('405 E2 with Allow on each /pesanan path, whatever body is sent', async () => {
    const app = await testApp()
    await create(app, { email: 'a@x.id', jumlah: 1 })
    const bodies = [
      {},
      { headers: json, payload: '{' },
      { headers: { 'content-type': 'text/plain' }, payload: 'x' },
      { headers: json, payload: `"${'x'.repeat(MiB + 10)}"` },
    ]
    await assertNotAllowed(
      app,
      [
        ['GET', '/pesanan', 'POST'],
        ['PUT', '/pesanan', 'POST'],
        ['DELETE', '/pesanan', 'POST'],
        ['DELETE', '/pesanan/1', 'GET, HEAD'],
        ['PUT', '/pesanan/1', 'GET, HEAD'],
        ['PATCH', '/pesanan/1', 'GET, HEAD'],
        ['POST', '/pesanan/1', 'GET, HEAD'],
        ['GET', '/pesanan/1/bayar', 'POST'],
        ['PUT', '/pesanan/1/bayar', 'POST'],
        ['DELETE', '/pesanan/abc/bayar', 'POST'],
      ],
      bodies,
    )
    assert.equal(orderOf(await callD(app, { url: '/pesanan/1' })).status, 'MENUNGGU')
  })

  test('HEAD /pesanan/<id> is served as GET, without a body', async () => {
    const app = await testApp()
    await create(app, { email: 'a@x.id', jumlah: 1 })
    const response = await app.inject({ method: 'HEAD', url: '/pesanan/1' })
    assert.equal(response.statusCode, 200)
    assert.equal(response.body, '')
  })
})

describe('/pesanan: no credential needed', () => {
  test('create, read and pay answer without a credential, and an unknown token is not checked', async () => {
    const app = await testApp()
    const headers = { ...bearer('no-such-token'), 'x-api-key': 'nope' }
    const created = await create(app, { email: 'a@x.id', jumlah: 1 }, { ...json, ...headers })
    assert.equal(created.statusCode, 201)
    assert.equal((await callD(app, { url: '/pesanan/1', headers })).statusCode, 200)
    const paid = await callD(app, { method: 'POST', url: '/pesanan/1/bayar', headers })
    assert.equal(paid.statusCode, 200)
    assert.equal(paid.headers['www-authenticate'], undefined)
  })
})
