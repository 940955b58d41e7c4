// Surface D: /users in both USERS_VARIANT values (Part 1 Surface D, Part 2 E2 codes and
// Limits, decisions.md sections 2, 3 and 6: users, body size, lengths in code points).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import type { UsersVariant } from '../../../src/config.js'
import { verifyPassword } from '../../../src/surfaces/supporting/users/password.js'
import { userViolations } from '../../../src/surfaces/supporting/users/rules.js'
import { json, storesOf, testApp } from '../../support/helpers.js'
import { assertE2, assertNotAllowed, bearer, callD } from '../../support/supporting.js'

const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/
const MiB = 1048576
const VARIANTS = ['enveloped', 'flat'] as const

const build = (variant: UsersVariant) => testApp({ config: { usersVariant: variant } })

/** The fields each variant requires, alphabetical. */
const required = (variant: UsersVariant) =>
  variant === 'enveloped' ? (['email', 'name', 'password'] as const) : (['email', 'name'] as const)

/** The expected `details` of a VALIDATION_ERROR naming `fields`. */
function violations(...fields: (keyof typeof userViolations)[]): Record<string, string> {
  return Object.fromEntries(fields.map((field) => [field, userViolations[field]]))
}

const valid = (n = 1) => ({ name: `Pengguna ${n}`, email: `p${n}@x.id`, password: 'rahasia123' })

function post(
  app: FastifyInstance,
  variant: UsersVariant,
  payload: unknown,
  headers: Record<string, string> = json,
) {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload)
  return callD(app, { method: 'POST', url: '/users', headers, payload: body }, variant)
}

/** The user of a 201/200 answer, after checking the variant's envelope. */
function userOf(response: LightMyRequestResponse, variant: UsersVariant) {
  const body = response.json()
  if (variant === 'flat') return body
  assert.deepEqual(Object.keys(body), ['data'], `enveloped answer: ${response.body}`)
  return body.data
}

function assertUserShape(user: Record<string, unknown>) {
  assert.deepEqual(Object.keys(user).sort(), ['created_at', 'email', 'id', 'name'])
  assert.ok(Number.isInteger(user.id))
  assert.equal(typeof user.name, 'string')
  assert.equal(typeof user.email, 'string')
  assert.match(String(user.created_at), RFC3339_UTC)
}

async function list(app: FastifyInstance, variant: UsersVariant) {
  const response = await callD(app, { url: '/users' }, variant)
  assert.equal(response.statusCode, 200)
  return response.json()
}

for (const variant of VARIANTS) {
  describe(`/users, ${variant} variant: list`, () => {
    test('GET /users is { data: [], meta: { page: 1, total: 0 } } at first', async () => {
      const app = await build(variant)
      const response = await callD(app, { url: '/users' }, variant)
      assert.equal(response.statusCode, 200)
      assert.match(String(response.headers['content-type']), /^application\/json/)
      assert.deepEqual(response.json(), { data: [], meta: { page: 1, total: 0 } })
    })

    test('after creates, data is every user in id order, total the count, page always 1', async () => {
      const app = await build(variant)
      const created = []
      for (const n of [1, 2, 3]) {
        const response = await post(app, variant, valid(n))
        assert.equal(response.statusCode, 201)
        created.push(userOf(response, variant))
      }
      const body = await list(app, variant)
      assert.deepEqual(Object.keys(body).sort(), ['data', 'meta'])
      assert.deepEqual(body.meta, { page: 1, total: 3 })
      assert.deepEqual(body.data, created)
      assert.deepEqual(
        body.data.map((user: { id: number }) => user.id),
        [1, 2, 3],
      )
      for (const user of body.data) assertUserShape(user)
    })
  })

  describe(`POST /users, ${variant} variant: create`, () => {
    test('201 with Location /users/<id>; the User is exactly { id, name, email, created_at }', async () => {
      const app = await build(variant)
      const before = Date.now()
      const response = await post(app, variant, valid(1))
      const after = Date.now()
      assert.equal(response.statusCode, 201, response.body)
      assert.equal(response.headers.location, '/users/1')
      assert.match(String(response.headers['content-type']), /^application\/json/)
      const user = userOf(response, variant)
      assertUserShape(user)
      assert.equal(user.id, 1)
      assert.equal(user.name, 'Pengguna 1')
      assert.equal(user.email, 'p1@x.id')
      const stamp = Date.parse(user.created_at)
      assert.ok(Number.isFinite(stamp), `created_at parses: ${user.created_at}`)
      assert.ok(stamp >= before && stamp <= after, `created_at is now: ${user.created_at}`)
    })

    test('ids are assigned from 1, increasing, each in its Location', async () => {
      const app = await build(variant)
      for (const n of [1, 2, 3, 4]) {
        const response = await post(app, variant, valid(n))
        assert.equal(response.statusCode, 201)
        assert.equal(response.headers.location, `/users/${n}`)
        assert.equal(userOf(response, variant).id, n)
      }
    })

    test('name and email are stored trimmed', async () => {
      const app = await build(variant)
      const response = await post(app, variant, {
        name: '  Budi Santoso \t',
        email: ' \n budi@x.id  ',
        password: 'rahasia123',
      })
      assert.equal(response.statusCode, 201, response.body)
      const user = userOf(response, variant)
      assert.equal(user.name, 'Budi Santoso')
      assert.equal(user.email, 'budi@x.id')
      const read = userOf(await callD(app, { url: '/users/1' }, variant), variant)
      assert.equal(read.name, 'Budi Santoso')
      assert.equal(read.email, 'budi@x.id')
    })

    test('GET /users/<id> returns the same representation as the create', async () => {
      const app = await build(variant)
      await post(app, variant, valid(1))
      const created = await post(app, variant, valid(2))
      const response = await callD(app, { url: '/users/2' }, variant)
      assert.equal(response.statusCode, 200)
      assert.match(String(response.headers['content-type']), /^application\/json/)
      assert.deepEqual(response.json(), created.json())
      assertUserShape(userOf(response, variant))
    })

    test('the service sets id and created_at: values sent for them are ignored', async () => {
      const app = await build(variant)
      const before = Date.now()
      const response = await post(app, variant, {
        ...valid(1),
        id: 77,
        created_at: '1999-01-01T00:00:00Z',
        password_hash: 'x',
        role: 'admin',
      })
      assert.equal(response.statusCode, 201, response.body)
      const user = userOf(response, variant)
      assertUserShape(user)
      assert.equal(user.id, 1)
      assert.ok(Date.parse(user.created_at) >= before)
    })
  })

  describe(`POST /users, ${variant} variant: validation (400 VALIDATION_ERROR)`, () => {
    test('an empty object reports every required field at once, keys alphabetical', async () => {
      const app = await build(variant)
      assertE2(
        await post(app, variant, {}),
        400,
        'VALIDATION_ERROR',
        violations(...required(variant)),
      )
    })

    test('a body that is an array, a string, a number, a boolean or null reports every required field', async () => {
      const app = await build(variant)
      for (const payload of [
        '[]',
        '[{"name":"A","email":"a@x.id"}]',
        '"teks"',
        '42',
        'true',
        'null',
      ]) {
        assertE2(
          await post(app, variant, payload),
          400,
          'VALIDATION_ERROR',
          violations(...required(variant)),
        )
      }
      assert.deepEqual((await list(app, variant)).meta.total, 0)
    })

    test('wrong types: name 5, email true, password 12345678 (a number) are all violations', async () => {
      const app = await build(variant)
      const expected =
        variant === 'enveloped'
          ? violations('email', 'name', 'password')
          : violations('email', 'name')
      assertE2(
        await post(app, variant, { name: 5, email: true, password: 12345678 }),
        400,
        'VALIDATION_ERROR',
        expected,
      )
    })

    test('name must be non-blank text; each bad name alone reports only name', async () => {
      const app = await build(variant)
      for (const name of [undefined, null, '', '   ', '\t\n', 5, true, ['Budi'], { first: 'B' }]) {
        assertE2(
          await post(app, variant, { ...valid(), name }),
          400,
          'VALIDATION_ERROR',
          violations('name'),
        )
      }
    })

    test('email must be text containing @; each bad email alone reports only email', async () => {
      const app = await build(variant)
      for (const email of [
        undefined,
        null,
        '',
        '  ',
        'budi.x.id',
        5,
        true,
        ['a@x.id'],
        { a: '@' },
      ]) {
        assertE2(
          await post(app, variant, { ...valid(), email }),
          400,
          'VALIDATION_ERROR',
          violations('email'),
        )
      }
    })

    test('a rejected create adds no user', async () => {
      const app = await build(variant)
      await post(app, variant, { name: '', email: 'x' })
      assert.deepEqual((await list(app, variant)).meta, { page: 1, total: 0 })
      const first = await post(app, variant, valid(1))
      assert.equal(first.headers.location, '/users/1')
    })
  })

  describe(`POST /users, ${variant} variant: duplicate email (409 EMAIL_TELAH_DIPAKAI)`, () => {
    test('an email already registered, in any letter case, is 409 naming the email; no user is added', async () => {
      const app = await build(variant)
      assert.equal((await post(app, variant, { ...valid(1), email: 'budi@x.id' })).statusCode, 201)
      for (const email of ['budi@x.id', 'Budi@X.id', 'BUDI@X.ID', '  bUdI@x.Id ']) {
        const response = await post(app, variant, { ...valid(2), email })
        const error = assertE2(response, 409, 'EMAIL_TELAH_DIPAKAI')
        assert.ok(
          error.message.includes(email.trim()),
          `message names ${email.trim()}: ${error.message}`,
        )
      }
      const body = await list(app, variant)
      assert.equal(body.meta.total, 1)
      assert.equal(body.data.length, 1)
      assert.equal(body.data[0].email, 'budi@x.id')
      // The failed creates used no id.
      assert.equal((await post(app, variant, valid(3))).headers.location, '/users/2')
    })

    test('20 concurrent creates of one email (varying case): exactly one 201, nineteen 409', async () => {
      const app = await build(variant)
      const spellings = Array.from({ length: 20 }, (_, i) =>
        [...'sama@contoh.id'].map((c, j) => ((i >> (j % 5)) & 1 ? c.toUpperCase() : c)).join(''),
      )
      const responses = await Promise.all(
        spellings.map((email, i) =>
          app.inject({
            method: 'POST',
            url: '/users',
            headers: json,
            payload: JSON.stringify({ ...valid(i), email }),
          }),
        ),
      )
      const statuses = responses.map((response) => response.statusCode)
      assert.equal(statuses.filter((s) => s === 201).length, 1, `statuses: ${statuses}`)
      assert.equal(statuses.filter((s) => s === 409).length, 19, `statuses: ${statuses}`)
      for (const response of responses) {
        if (response.statusCode === 409) assertE2(response, 409, 'EMAIL_TELAH_DIPAKAI')
      }
      const winner = userOf(
        responses.find((r) => r.statusCode === 201) as LightMyRequestResponse,
        variant,
      )
      const body = await list(app, variant)
      assert.deepEqual(body.meta, { page: 1, total: 1 })
      assert.deepEqual(body.data, [winner])
    })
  })

  describe(`POST /users, ${variant} variant: body reading`, () => {
    test('malformed JSON is 400 INVALID_JSON', async () => {
      const app = await build(variant)
      for (const payload of ['{', '{"name":"A",}', 'nul', "{'name':'A'}", '{"name":"A"} x']) {
        assertE2(await post(app, variant, payload), 400, 'INVALID_JSON')
      }
    })

    test('a JSON content type with an empty body is 400 INVALID_JSON', async () => {
      const app = await build(variant)
      assertE2(await post(app, variant, ''), 400, 'INVALID_JSON')
      assertE2(
        await callD(app, { method: 'POST', url: '/users', headers: json }, variant),
        400,
        'INVALID_JSON',
      )
    })

    test('a Content-Type not starting with application/json is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
      const app = await build(variant)
      const body = JSON.stringify(valid(1))
      for (const type of ['text/plain', 'application/x-json', 'text/json', 'application/xml']) {
        assertE2(
          await post(app, variant, body, { 'content-type': type }),
          415,
          'UNSUPPORTED_MEDIA_TYPE',
        )
      }
      assert.equal((await list(app, variant)).meta.total, 0)
    })

    test('no Content-Type is 415, with a body and without one', async () => {
      const app = await build(variant)
      assertE2(
        await post(app, variant, JSON.stringify(valid(1)), {}),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      )
      assertE2(
        await callD(app, { method: 'POST', url: '/users' }, variant),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      )
    })

    test('application/json; charset=utf-8 is accepted', async () => {
      const app = await build(variant)
      const response = await post(app, variant, valid(1), {
        'content-type': 'application/json; charset=utf-8',
      })
      assert.equal(response.statusCode, 201, response.body)
    })

    test('a body over 1 MiB is 413 BODY_TOO_LARGE naming 1048576; exactly 1 MiB is read', async () => {
      const app = await build(variant)
      const padded = (size: number) => {
        const head = `{"email":"a@x.id","password":"rahasia123","name":"`
        return `${head}${'n'.repeat(size - head.length - 2)}"}`
      }
      assert.equal(padded(MiB).length, MiB)
      const error = assertE2(await post(app, variant, padded(MiB + 1)), 413, 'BODY_TOO_LARGE')
      assert.ok(error.message.includes('1048576'), error.message)
      assertE2(await post(app, variant, `[${' '.repeat(2 * MiB)}]`), 413, 'BODY_TOO_LARGE')
      assert.equal((await list(app, variant)).meta.total, 0)
      const atLimit = await post(app, variant, padded(MiB))
      assert.equal(atLimit.statusCode, 201)
    })

    test('unknown fields and __proto__ / constructor keys are ignored: no 500, no prototype change', async () => {
      const app = await build(variant)
      const payload =
        '{"name":"Budi","email":"budi@x.id","password":"rahasia123","hobi":"catur",' +
        '"__proto__":{"polluted":"yes","name":"X"},' +
        '"constructor":{"prototype":{"polluted":"yes"}},"toString":"x","hasOwnProperty":1}'
      const response = await post(app, variant, payload)
      assert.equal(response.statusCode, 201, response.body)
      const user = userOf(response, variant)
      assertUserShape(user)
      assert.equal(user.name, 'Budi')
      assert.equal(({} as Record<string, unknown>).polluted, undefined)
      assert.equal(Object.hasOwn(Object.prototype, 'polluted'), false)
    })

    test('fields under __proto__ or constructor are not fields of the body', async () => {
      const app = await build(variant)
      const payload = JSON.stringify({ name: 'A' }).replace(
        '}',
        ',"__proto__":{"email":"a@x.id","password":"rahasia123"}}',
      )
      assertE2(
        await post(app, variant, payload),
        400,
        'VALIDATION_ERROR',
        violations(...required(variant).filter((field) => field !== 'name')),
      )
      assertE2(
        await post(app, variant, '{"constructor":{"name":"A","email":"a@x.id"}}'),
        400,
        'VALIDATION_ERROR',
        violations(...required(variant)),
      )
      assert.equal(({} as Record<string, unknown>).email, undefined)
    })
  })

  describe(`GET /users/<id>, ${variant} variant`, () => {
    test('an id that is not an integer is 400 INVALID_ID', async () => {
      const app = await build(variant)
      await post(app, variant, valid(1))
      for (const id of ['abc', '1.5', '1e3', '+1', '%201', '1%20', '%00', '0x1', '1a', '--1']) {
        assertE2(await callD(app, { url: `/users/${id}` }, variant), 400, 'INVALID_ID')
      }
    })

    test('a well-formed id that names no user is 404 NOT_FOUND', async () => {
      const app = await build(variant)
      await post(app, variant, valid(1))
      for (const id of ['0', '-1', '2', '99999999999999999999']) {
        assertE2(await callD(app, { url: `/users/${id}` }, variant), 404, 'NOT_FOUND')
      }
    })

    test('HEAD /users and HEAD /users/<id> are served as GET, without a body', async () => {
      const app = await build(variant)
      await post(app, variant, valid(1))
      for (const url of ['/users', '/users/1']) {
        const response = await app.inject({ method: 'HEAD', url })
        assert.equal(response.statusCode, 200, url)
        assert.equal(response.body, '')
      }
    })

    test('other paths below /users are the service E1 404', async () => {
      const app = await build(variant)
      await post(app, variant, valid(1))
      const response = await callD(app, { url: '/users/1/x' }, variant)
      assert.equal(response.statusCode, 404)
      assert.equal(response.json().error.kode, 'TIDAK_ADA')
    })
  })

  describe(`/users, ${variant} variant: methods not registered (405 METHOD_NOT_ALLOWED)`, () => {
    test('405 E2 with Allow, whatever body is sent', async () => {
      const app = await build(variant)
      await post(app, variant, valid(1))
      const bodies = [
        {},
        { headers: json, payload: JSON.stringify(valid(2)) },
        { headers: json, payload: '{' },
        { headers: { 'content-type': 'text/plain' }, payload: 'teks' },
        { headers: json, payload: `"${'x'.repeat(MiB + 10)}"` },
      ]
      await assertNotAllowed(
        app,
        [
          ['PUT', '/users', 'GET, HEAD, POST'],
          ['DELETE', '/users', 'GET, HEAD, POST'],
          ['PATCH', '/users', 'GET, HEAD, POST'],
          ['PUT', '/users/1', 'GET, HEAD'],
          ['DELETE', '/users/1', 'GET, HEAD'],
          ['PATCH', '/users/1', 'GET, HEAD'],
          ['POST', '/users/1', 'GET, HEAD'],
          ['DELETE', '/users/abc', 'GET, HEAD'],
        ],
        bodies,
      )
      assert.equal((await list(app, variant)).meta.total, 1)
    })
  })

  describe(`/users, ${variant} variant: no credential needed`, () => {
    test('create, read and list answer without a credential, and an unknown token is not checked', async () => {
      const app = await build(variant)
      const headers = { ...json, ...bearer('no-such-token'), 'x-api-key': 'nope' }
      const created = await post(app, variant, valid(1), headers)
      assert.equal(created.statusCode, 201)
      assert.equal(created.headers['www-authenticate'], undefined)
      assert.equal((await callD(app, { url: '/users/1', headers }, variant)).statusCode, 200)
      assert.equal((await callD(app, { url: '/users', headers }, variant)).statusCode, 200)
    })
  })
}

describe('POST /users, enveloped variant: password', () => {
  test('password is required text of at least 8 characters', async () => {
    const app = await build('enveloped')
    for (const password of [
      undefined,
      null,
      '',
      'abcdefg',
      '1234567',
      12345678,
      true,
      ['abcdefgh'],
    ]) {
      assertE2(
        await post(app, 'enveloped', { ...valid(), password }),
        400,
        'VALIDATION_ERROR',
        violations('password'),
      )
    }
    assert.equal(
      (await post(app, 'enveloped', { ...valid(1), password: 'abcdefgh' })).statusCode,
      201,
    )
  })

  test('password length counts code points: 7 emoji fail, 8 emoji pass', async () => {
    const app = await build('enveloped')
    // 7 emoji are 14 UTF-16 code units: counting units would wrongly accept them.
    assertE2(
      await post(app, 'enveloped', { ...valid(1), password: '😀'.repeat(7) }),
      400,
      'VALIDATION_ERROR',
      violations('password'),
    )
    const response = await post(app, 'enveloped', { ...valid(1), password: '😀'.repeat(8) })
    assert.equal(response.statusCode, 201, response.body)
  })

  test('name, email and password violations are reported together', async () => {
    const app = await build('enveloped')
    assertE2(
      await post(app, 'enveloped', { name: ' ', email: 'tanpa-at', password: 'pendek' }),
      400,
      'VALIDATION_ERROR',
      violations('email', 'name', 'password'),
    )
  })

  test('the password is kept only as a salted scrypt hash that verifies', async () => {
    const app = await testApp()
    const { users } = storesOf(app)
    const password = 'sandi-rahasia-99'
    for (const n of [1, 2]) {
      assert.equal((await post(app, 'enveloped', { ...valid(n), password })).statusCode, 201)
    }
    const first = await users.passwordHash(1)
    const second = await users.passwordHash(2)
    assert.equal(typeof first, 'string')
    assert.equal(typeof second, 'string')
    assert.notEqual(first, password)
    assert.ok(first?.startsWith('scrypt$'), String(first))
    assert.ok(second?.startsWith('scrypt$'), String(second))
    assert.ok(!first?.includes(password))
    assert.notEqual(first, second, 'one password, two users: two different salted hashes')
    assert.equal(await verifyPassword(password, first as string), true)
    assert.equal(await verifyPassword(password, second as string), true)
    assert.equal(await verifyPassword('sandi-rahasia-98', first as string), false)
    assert.equal(await verifyPassword('', first as string), false)
  })

  test('neither the password nor its hash appears in any response body or header', async () => {
    const app = await testApp()
    const { users } = storesOf(app)
    const password = 'Kata-Sandi-Unik-42'
    const created = await post(app, 'enveloped', { ...valid(1), password })
    assert.equal(created.statusCode, 201)
    const hash = (await users.passwordHash(1)) as string
    const [, , , , salt, key] = hash.split('$')
    const responses = [
      created,
      await callD(app, { url: '/users/1' }),
      await callD(app, { url: '/users' }),
      await app.inject({ method: 'HEAD', url: '/users/1' }),
    ]
    for (const response of responses) {
      const seen = response.body + JSON.stringify(response.headers)
      for (const secret of [password, hash, salt as string, key as string, 'scrypt']) {
        assert.ok(!seen.includes(secret), `${secret} leaked: ${seen}`)
      }
      assert.ok(!/password|hash/i.test(response.body), response.body)
    }
  })
})

describe('POST /users, flat variant: password ignored', () => {
  test('password is not required, and a bad one is ignored rather than reported', async () => {
    const app = await build('flat')
    for (const [n, password] of [
      [1, undefined],
      [2, 'x'],
      [3, 5],
      [4, null],
    ] as const) {
      const response = await post(app, 'flat', { name: `N${n}`, email: `n${n}@x.id`, password })
      assert.equal(response.statusCode, 201, response.body)
      assertUserShape(userOf(response, 'flat'))
    }
  })

  test('no password or hash is kept in the flat variant', async () => {
    const app = await testApp({ config: { usersVariant: 'flat' } })
    const { users } = storesOf(app)
    const response = await post(app, 'flat', valid(1))
    assert.equal(response.statusCode, 201)
    assert.ok(!response.body.includes('rahasia123'))
    assert.equal(await users.passwordHash(1), undefined)
  })
})
