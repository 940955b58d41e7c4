// No secret in any response or log line (issue 5 "Done when"; Part 1 Surface D: the password is
// never present in any representation; Part 2 Errors: internal detail goes to the server log
// only; decisions.md 6: passwords stored only as a salted hash). Every surface D endpoint is
// driven with credentials in Authorization and X-API-Key, valid and invalid, and users are
// created with distinctive passwords in valid and invalid bodies, with logs captured at `trace`.
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import type { UsersVariant } from '../../../src/config.js'
import type { UserStore } from '../../../src/surfaces/supporting/users/store.js'
import { json, storesOf, testApp } from '../../support/helpers.js'

// Distinctive secrets: none of these strings can appear by accident in a response or log line.
const ADMIN_SECRET = 'Adm1n-S3kret-q7Zx9LwPc2'
const BUDI_SECRET = 'Bud1-S3kret-m4Tr8KvNy5'
const SITI_SECRET = 'S1ti-S3kret-h6Wp3JbQe8'
const WRONG_SECRET = 'Wr0ng-S3kret-f2Gd7XsRa4'
const NEAR_MISS = `${BUDI_SECRET}-n3ar`

const PASSWORD_1 = 'Pw0rd-Valid-k9Vb2NcXq1'
const PASSWORD_2 = 'Pw0rd-Valid-t3Yh6MzLw7'
const PASSWORD_SHORT = 'Pq7#Zk2' // 7 characters: too short for the enveloped variant
const PASSWORD_IN_BAD_JSON = 'Pw0rd-BadJson-r5Sd8FgJu3'
const PASSWORD_IN_BAD_JSON_2 = 'Pw0rd-BadJson-e1Wq4HnBv6'
const PASSWORD_DUPLICATE = 'Pw0rd-Duplicate-c8Xk3PmTy2'
const PASSWORD_NO_NAME = 'Pw0rd-NoName-a2Lf9GdWs5'
const PASSWORD_WRONG_TYPE = 'Pw0rd-TextPlain-z6Rb1VcQm4'
const PASSWORD_TOO_LARGE = 'Pw0rd-TooLarge-u4Np7KjXe9'

const SECRETS = [ADMIN_SECRET, BUDI_SECRET, SITI_SECRET, WRONG_SECRET, NEAR_MISS]
const PASSWORDS = [
  PASSWORD_1,
  PASSWORD_2,
  PASSWORD_SHORT,
  PASSWORD_IN_BAD_JSON,
  PASSWORD_IN_BAD_JSON_2,
  PASSWORD_DUPLICATE,
  PASSWORD_NO_NAME,
  PASSWORD_WRONG_TYPE,
  PASSWORD_TOO_LARGE,
]

const seed = {
  credentials: {
    [ADMIN_SECRET]: { nama: 'ratu', peran: 'admin' },
    [BUDI_SECRET]: { nama: 'budi', peran: 'user' },
    [SITI_SECRET]: { nama: 'siti', peran: 'user' },
  },
  produk: [
    { nama: 'Buku', harga: 50000, stok: 12 },
    { nama: 'Pensil', harga: 3000, stok: 150 },
  ],
  dokumen: [
    { judul: 'Rencana', pemilik: 'budi' },
    { judul: 'Anggaran', pemilik: 'budi' },
    { judul: 'Laporan bulanan', pemilik: 'siti' },
    { judul: 'Kebijakan', pemilik: 'ratu' },
    { judul: 'Arsip', pemilik: 'ratu' },
  ],
}

/** Every way a request presents a credential, valid or not; the empty set presents none. */
const CREDENTIAL_HEADERS: Record<string, string>[] = [
  {},
  { authorization: `Bearer ${ADMIN_SECRET}` },
  { authorization: `Bearer ${BUDI_SECRET}` },
  { authorization: `bearer   ${SITI_SECRET}  ` },
  { 'x-api-key': ADMIN_SECRET },
  { 'x-api-key': BUDI_SECRET },
  { 'x-api-key': SITI_SECRET },
  { authorization: `Bearer ${WRONG_SECRET}` },
  { 'x-api-key': WRONG_SECRET },
  { 'x-api-key': NEAR_MISS },
  { authorization: `Bearer ${NEAR_MISS}`, 'x-api-key': ADMIN_SECRET },
  { authorization: `Bearer ${BUDI_SECRET}`, 'x-api-key': WRONG_SECRET },
  { authorization: `Basic ${SITI_SECRET}`, 'x-api-key': SITI_SECRET },
  { authorization: `Basic ${WRONG_SECRET}` },
  { authorization: `Token ${ADMIN_SECRET}` },
]

/** Every surface D operation, including ones that fail (400, 404, 405, 409, 429). */
const ENDPOINTS: InjectOptions[] = [
  { method: 'GET', url: '/users' },
  { method: 'GET', url: '/users/1' },
  { method: 'GET', url: '/users/abc' },
  {
    method: 'POST',
    url: '/pesanan',
    headers: json,
    payload: JSON.stringify({ email: 'pembeli@contoh.id', jumlah: 2 }),
  },
  { method: 'POST', url: '/pesanan', headers: json, payload: '{"email":' },
  { method: 'GET', url: '/pesanan/1' },
  { method: 'POST', url: '/pesanan/1/bayar' },
  { method: 'GET', url: '/pesanan/abc' },
  { method: 'GET', url: '/laporan-penjualan' },
  { method: 'GET', url: '/produk' },
  { method: 'GET', url: '/produk/1' },
  { method: 'GET', url: '/produk/99' },
  { method: 'GET', url: '/dokumen' },
  { method: 'GET', url: '/dokumen/1' },
  { method: 'GET', url: '/dokumen/3' },
  { method: 'GET', url: '/dokumen/abc' },
  { method: 'GET', url: '/dokumen/%zz' },
  { method: 'DELETE', url: '/dokumen/5' },
  { method: 'GET', url: '/profil' },
  { method: 'HEAD', url: '/profil' },
  { method: 'GET', url: '/panel-admin' },
  { method: 'GET', url: '/laporan' },
  { method: 'HEAD', url: '/laporan' },
  { method: 'POST', url: '/laporan' },
  { method: 'PATCH', url: '/dokumen/1' },
]

/** POST /users bodies with passwords, valid and not, for both variants. */
const USER_BODIES: InjectOptions[] = [
  {
    headers: json,
    payload: JSON.stringify({
      name: 'Pemilik Satu',
      email: 'satu@contoh.id',
      password: PASSWORD_1,
    }),
  },
  {
    headers: { ...json, authorization: `Bearer ${BUDI_SECRET}`, 'x-api-key': SITI_SECRET },
    payload: JSON.stringify({ name: 'Pemilik Dua', email: 'dua@contoh.id', password: PASSWORD_2 }),
  },
  {
    headers: json,
    payload: JSON.stringify({
      name: 'Pendek',
      email: 'pendek@contoh.id',
      password: PASSWORD_SHORT,
    }),
  },
  {
    headers: json,
    payload: `{"name":"Rusak","email":"rusak@contoh.id","password":"${PASSWORD_IN_BAD_JSON}",}`,
  },
  {
    headers: json,
    payload: `{"name":"Rusak","password":"${PASSWORD_IN_BAD_JSON_2}" "email"`,
  },
  {
    headers: json,
    payload: JSON.stringify({
      name: 'Kembar',
      email: 'SATU@contoh.id',
      password: PASSWORD_DUPLICATE,
    }),
  },
  {
    headers: json,
    payload: JSON.stringify({ name: '  ', email: 'tanpa-at', password: PASSWORD_NO_NAME }),
  },
  {
    headers: { 'content-type': 'text/plain' },
    payload: JSON.stringify({
      name: 'Teks',
      email: 'teks@contoh.id',
      password: PASSWORD_WRONG_TYPE,
    }),
  },
  {
    headers: json,
    payload: JSON.stringify({
      name: 'Besar',
      email: 'besar@contoh.id',
      password: PASSWORD_TOO_LARGE,
      padding: PASSWORD_TOO_LARGE.repeat(50_000),
    }),
  },
]

interface Run {
  app: FastifyInstance
  users: UserStore
  logs: Record<string, unknown>[]
  responses: { request: string; response: LightMyRequestResponse }[]
}

/**
 * Builds an app on the custom seed, logging at trace, and drives every request above. The run
 * is shared by the tests of a suite, which close it when they are done.
 */
async function drive(usersVariant: UsersVariant): Promise<Run> {
  const logs: Record<string, unknown>[] = []
  const app = await testApp({
    logs,
    logLevel: 'trace',
    seed,
    config: { usersVariant },
    closedBy: 'caller',
  })
  const responses: Run['responses'] = []
  const send = async (options: InjectOptions) => {
    const response = await app.inject(options)
    const request = `${options.method} ${options.url} ${JSON.stringify(options.headers ?? {})}`
    responses.push({ request, response })
    return response
  }
  for (const body of USER_BODIES) await send({ method: 'POST', url: '/users', ...body })
  for (const credential of CREDENTIAL_HEADERS) {
    for (const endpoint of ENDPOINTS) {
      await send({ ...endpoint, headers: { ...endpoint.headers, ...credential } })
    }
  }
  return { app, users: storesOf(app).users, logs, responses }
}

/** The ids of the users the run created (from the 201s' Location). */
function createdIds(run: Run): number[] {
  return run.responses
    .filter(
      ({ request, response }) => request.startsWith('POST /users') && response.statusCode === 201,
    )
    .map(({ response }) => Number(String(response.headers.location).replace('/users/', '')))
}

function assertNothingLeaks(run: Run, forbidden: string[]) {
  for (const { request, response } of run.responses) {
    const seen = `${response.body}\n${JSON.stringify(response.headers)}`
    for (const secret of forbidden) {
      assert.ok(
        !seen.includes(secret),
        `the answer to ${request} contains ${secret}: ${seen.slice(0, 2000)}`,
      )
    }
  }
  for (const line of run.logs) {
    const text = JSON.stringify(line)
    for (const secret of forbidden) {
      assert.ok(!text.includes(secret), `a log line contains ${secret}: ${text.slice(0, 2000)}`)
    }
  }
}

/** The requests of `run` that wrote no log line with their request id. */
function unlogged(run: Run) {
  const loggedIds = new Set(run.logs.map((line) => line.reqId))
  return run.responses
    .filter(({ response }) => !loggedIds.has(response.headers['x-request-id']))
    .map(({ request, response }) => `${response.statusCode} ${request}`)
}

const undecodable = (request: string) => request.includes('%zz')

for (const variant of ['enveloped', 'flat'] as const) {
  describe(`no secret in any response or log line, users variant ${variant}`, () => {
    let started: Promise<Run> | undefined
    const runOnce = () => {
      started ??= drive(variant)
      return started
    }
    after(async () => (await started)?.app.close())

    test('the run exercised what it claims: 201s, 400s, 401s, 403s, 409, 429, 200s with identities', async () => {
      const run = await runOnce()
      const statuses = new Set(run.responses.map(({ response }) => response.statusCode))
      for (const status of [200, 201, 204, 400, 401, 403, 404, 405, 409, 413, 415, 429]) {
        assert.ok(statuses.has(status), `some request answered ${status}`)
      }
      const profiles = run.responses
        .filter(
          ({ request, response }) =>
            request.startsWith('GET /profil') && response.statusCode === 200,
        )
        .map(({ response }) => response.json().data.nama)
      assert.deepEqual([...new Set(profiles)].sort(), ['budi', 'ratu', 'siti'])
      assert.equal(createdIds(run).length, variant === 'enveloped' ? 2 : 3)
    })

    test('no response body or header and no log line holds a credential secret', async () => {
      assertNothingLeaks(await runOnce(), SECRETS)
    })

    test('no response body or header and no log line holds a password', async () => {
      assertNothingLeaks(await runOnce(), PASSWORDS)
    })

    test('no response and no log line holds a stored password hash, nor "scrypt$"', async () => {
      const run = await runOnce()
      const hashes = await Promise.all(createdIds(run).map((id) => run.users.passwordHash(id)))
      const stored = hashes.filter((hash): hash is string => hash !== undefined)
      if (variant === 'enveloped') {
        assert.equal(stored.length, hashes.length, 'every enveloped user has a hash')
        for (const hash of stored) assert.match(hash, /^scrypt\$/)
      } else {
        assert.deepEqual(stored, [], 'the flat variant ignores the password and keeps no hash')
      }
      // The whole hash, its salt and its key, each on its own.
      const parts = stored.flatMap((hash) => [hash, ...hash.split('$').slice(4)])
      assertNothingLeaks(run, [...parts, 'scrypt$'])
    })

    test('every request to a decodable URL produced a log line with its reqId', async () => {
      const run = await runOnce()
      assert.ok(run.responses.length > 300, 'the run sent its requests')
      assert.deepEqual(
        unlogged(run).filter((line) => !undecodable(line)),
        [],
        'the greps above are not vacuous: each request was logged',
      )
    })

    test('a request to an undecodable URL (/dokumen/%zz) produced a log line with its reqId too', async () => {
      const run = await runOnce()
      assert.ok(run.responses.some(({ request }) => undecodable(request)))
      assert.deepEqual(unlogged(run).filter(undecodable), [])
    })
  })
}
