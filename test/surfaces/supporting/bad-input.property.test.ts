// Property-based tests: whatever a client throws at surface D, in both USERS_VARIANT values:
// any method, any D path (every endpoint, odd ids, undecodable escapes, paths below that name
// nothing), any credential (none, each demo secret as Bearer with any scheme case and spacing
// or as X-API-Key, unknown secrets, other schemes, both headers together), any Content-Type and
// any body (JSON of any type, objects with tricky keys, raw text and bytes, bodies at and over
// 1 MiB). The answer is never a 5xx, it is in surface D's form (E2 `{ error: { code, message,
// details? } }` in JSON, documented success shapes with exact keys), it is the answer the spec's
// rules give for that request (computed here, independently of the app, from a model of the
// stored users, orders and documents and of the /laporan token buckets on a fake clock), and
// nothing leaks into Object.prototype.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import http from 'node:http'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import type { FastifyInstance, HTTPMethods } from 'fastify'
import { defaults } from '../../../src/config.js'
import { TokenBucketLimiter } from '../../../src/rate-limit/token-bucket.js'
import { demoSeed } from '../../../src/seed.js'
import { oracleSender } from '../../support/bad-input.js'
import { conditionalHeadersProperty } from '../../support/conditional-kit.js'
import { call, testApp } from '../../support/helpers.js'
import * as kit from '../../support/property-kit.js'
import { ADMIN, BUDI, SITI } from '../../support/supporting.js'

/** About 150 runs a property keeps the file well under 20 s; failures show the assertion. */
const PARAMETERS = { numRuns: 150, includeErrorInReport: true }

type Variant = 'enveloped' | 'flat'
const VARIANTS: Variant[] = ['enveloped', 'flat']

/** Decisions 6: every surface D endpoint accepts at most 1 MiB. */
const BODY_LIMIT = 1024 * 1024
const CHALLENGE = 'Bearer realm="api"'
const PASSWORD_MIN = 8
/** Part 2 Limits: the /laporan bucket, as configured by default (decisions 5). */
const CAPACITY = 3
const REFILL_PER_SECOND = 1
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/

const STATUSES = new Set([200, 201, 204, 400, 401, 403, 404, 405, 409, 413, 415, 429])
const E2_CODES = new Set([
  'INVALID_JSON',
  'INVALID_ID',
  'VALIDATION_ERROR',
  'UNAUTHENTICATED',
  'MISSING_API_KEY',
  'FORBIDDEN',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'SUDAH_DIBAYAR',
  'EMAIL_TELAH_DIPAKAI',
  'BODY_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMIT_EXCEEDED',
])

type Peran = 'user' | 'admin'
interface Identity {
  nama: string
  peran: Peran
}

/**
 * The demo credential table (docs/operating.md#demo-data): one secret, one identity, both forms.
 */
const IDENTITIES: ReadonlyMap<string, Identity> = new Map([
  [ADMIN, { nama: 'admin', peran: 'admin' }],
  [BUDI, { nama: 'budi', peran: 'user' }],
  [SITI, { nama: 'siti', peran: 'user' }],
])

interface User {
  id: number
  name: string
  email: string
  created_at: string
}
interface Order {
  id: number
  email: string
  jumlah: number
  status: 'MENUNGGU' | 'LUNAS'
}
interface Product {
  id: number
  nama: string
  harga: number
  stok: number
}
interface Dokumen {
  id: number
  judul: string
  pemilik: string
}

/** The demo products and documents, ids from 1 in seed order. */
const PRODUCTS: Product[] = demoSeed.produk.map((product, i) => ({ id: i + 1, ...product }))
const DOCUMENTS: Dokumen[] = demoSeed.dokumen.map((document, i) => ({ id: i + 1, ...document }))

/** What `GET /laporan-penjualan` serves with the default LAPORAN_PENJUALAN_FILE. */
const SALES_REPORT = readFileSync(defaults.laporanPenjualanFile, 'utf8')

// ---------------------------------------------------------------------------------------------
// The endpoints of surface D (Part 1, Part 2 Authentication, decisions 2 and 6)

type Access = 'none' | 'credential' | 'api-key'

interface EndpointSpec {
  /** Path segments; `null` is the `{id}` segment. */
  segments: (string | null)[]
  /** The registered methods; HEAD is served wherever GET is. */
  methods: string[]
  access: Access
  /** The role policy by method (Part 2): roles allowed; every other role is 403. */
  roles?: Record<string, Peran[]>
}

const ENDPOINTS = {
  users: { segments: ['users'], methods: ['GET', 'POST'], access: 'none' },
  user: { segments: ['users', null], methods: ['GET'], access: 'none' },
  pesanan: { segments: ['pesanan'], methods: ['POST'], access: 'none' },
  order: { segments: ['pesanan', null], methods: ['GET'], access: 'none' },
  bayar: { segments: ['pesanan', null, 'bayar'], methods: ['POST'], access: 'none' },
  produk: { segments: ['produk'], methods: ['GET'], access: 'none' },
  product: { segments: ['produk', null], methods: ['GET'], access: 'none' },
  dokumen: {
    segments: ['dokumen'],
    methods: ['GET'],
    access: 'credential',
    roles: { GET: ['user', 'admin'] },
  },
  document: {
    segments: ['dokumen', null],
    methods: ['GET', 'DELETE'],
    access: 'credential',
    roles: { GET: ['user', 'admin'], DELETE: ['admin'] },
  },
  profil: {
    segments: ['profil'],
    methods: ['GET'],
    access: 'credential',
    roles: { GET: ['user', 'admin'] },
  },
  'panel-admin': {
    segments: ['panel-admin'],
    methods: ['GET'],
    access: 'credential',
    roles: { GET: ['admin'] },
  },
  laporan: { segments: ['laporan'], methods: ['GET'], access: 'api-key' },
  'laporan-penjualan': { segments: ['laporan-penjualan'], methods: ['GET'], access: 'none' },
} satisfies Record<string, EndpointSpec>

type Endpoint = keyof typeof ENDPOINTS
const ENDPOINT_NAMES = Object.keys(ENDPOINTS) as Endpoint[]
const spec = (endpoint: Endpoint): EndpointSpec => ENDPOINTS[endpoint]
const hasId = (endpoint: Endpoint) => spec(endpoint).segments.includes(null)
const LIST_ENDPOINTS = ENDPOINT_NAMES.filter((endpoint) => !hasId(endpoint))
const ITEM_ENDPOINTS = ENDPOINT_NAMES.filter(hasId)

function urlOf(endpoint: Endpoint, id = ''): string {
  return `/${spec(endpoint)
    .segments.map((segment) => segment ?? id)
    .join('/')}`
}

/** The methods an `Allow` header must list: the registered ones, and HEAD with GET. */
function allowOf(endpoint: Endpoint): string[] {
  const { methods } = spec(endpoint)
  return [...methods, ...(methods.includes('GET') ? ['HEAD'] : [])].sort()
}

/** Which surface D endpoint a URL, as the client sent it, names. */
type Target =
  | {
      kind: 'endpoint'
      endpoint: Endpoint
      /** The `{id}` segment as read (`kit.segmentAsRead`); undefined when there is none. */
      raw?: string | undefined
      /** The `{id}` segment is empty (`/users/`): the item route or no route at all. */
      emptyId: boolean
    }
  | { kind: 'elsewhere' }

function targetOf(url: string): Target {
  // Each segment is read alone; one that cannot be decoded is its own text
  // (docs/decisions.md#undecodable-path-segments): `/dokumen/%zz` gets the checks of the path, then
  // 400 INVALID_ID; `/users%zz` names nothing.
  const segments = (url.split('?', 1)[0] ?? '').split('/').slice(1).map(kit.segmentAsRead)
  for (const endpoint of ENDPOINT_NAMES) {
    const template = spec(endpoint).segments
    if (template.length !== segments.length) continue
    if (!template.every((part, i) => part === null || part === segments[i])) continue
    const at = template.indexOf(null)
    if (at === -1) return { kind: 'endpoint', endpoint, emptyId: false }
    const raw = segments[at] ?? ''
    return { kind: 'endpoint', endpoint, raw, emptyId: raw === '' }
  }
  return { kind: 'elsewhere' }
}

/**
 * A surface D id: an integer in decimal, optionally negative, of any length
 * (docs/decisions.md#ids-in-paths); anything else is 400. One past the safe range, 0 or negative
 * names nothing: 404.
 */
function idOf(raw: string | undefined): number | undefined {
  return raw !== undefined && /^-?[0-9]+$/.test(raw) ? Number(raw) : undefined
}

// ---------------------------------------------------------------------------------------------
// Credentials (Part 2 Authentication, decisions 6)

interface Credentials {
  authorization?: string | undefined
  apiKey?: string | undefined
}

/**
 * The secret a request presents on a credentialed endpoint (Part 2 rules 1 and 2): with the
 * Bearer scheme (the word before the first space, any case) the token after that space,
 * trimmed, decides alone, even empty; any other `Authorization` is ignored and `X-API-Key`
 * (when not empty) is consulted.
 */
function presentedSecret({ authorization, apiKey }: Credentials): string | undefined {
  if (authorization !== undefined) {
    const space = authorization.indexOf(' ')
    const scheme = space === -1 ? authorization : authorization.slice(0, space)
    if (scheme.toLowerCase() === 'bearer') {
      return space === -1 ? '' : authorization.slice(space + 1).trim()
    }
  }
  return apiKey === undefined || apiKey === '' ? undefined : apiKey
}

// ---------------------------------------------------------------------------------------------
// What the spec says about a request, computed without the app

interface Sent extends Credentials {
  method: string
  url: string
  contentType?: string | undefined
  payload?: string | Buffer | undefined
  /** Whole seconds the fake clock of the /laporan limiter moves on before the request. */
  advance?: number | undefined
}

interface Bucket {
  tokens: number
  /** Fake-clock milliseconds when `tokens` was computed. */
  at: number
}

interface Model {
  variant: Variant
  users: Map<number, User>
  /** Registered emails, lowercased (uniqueness ignores letter case). */
  emails: Set<string>
  orders: Map<number, Order>
  documents: Map<number, Dokumen>
  /** The /laporan buckets by API key. */
  buckets: Map<string, Bucket>
  /** The limiter's fake clock, in milliseconds. */
  clock: { now: number }
  /** The largest id handed out so far: ids are increasing (Part 1 convention 4). */
  lastUserId: number
  lastOrderId: number
}

/** One acceptable answer. */
type Outcome =
  | { status: 404; kind: 'e1' }
  | {
      status: number
      kind: 'e2'
      code: string
      /** VALIDATION_ERROR: exactly these `details` keys, in this (alphabetical) order. */
      fields?: string[]
      /** `details` exactly (SUDAH_DIBAYAR). */
      details?: Record<string, string>
      /** 405: the methods `Allow` lists. */
      allow?: string[]
      /** Texts the message must contain (Part 2: 413 the limit, 409 the email, 403 the role). */
      mentions?: string[][]
    }
  | { status: 200; kind: 'users' }
  | { status: 201; kind: 'user-created'; name: string; email: string }
  | { status: 200; kind: 'user'; user: User }
  | { status: 201; kind: 'order-created'; emails: string[]; jumlah: number }
  | { status: 200; kind: 'order'; order: Order; paid: boolean }
  | { status: 200; kind: 'products' }
  | { status: 200; kind: 'product'; product: Product }
  | { status: 200; kind: 'documents'; documents: Dokumen[] }
  | { status: 200; kind: 'document'; document: Dokumen }
  | { status: 204; kind: 'deleted'; id: number }
  | { status: 200; kind: 'identity'; identity: Identity }
  | { status: 200 | 429; kind: 'laporan'; key: string; tokens: number }
  | { status: 200; kind: 'sales' }

const e1: Outcome = { status: 404, kind: 'e1' }
type E2Outcome = Extract<Outcome, { kind: 'e2' }>
const e2 = (status: number, code: string, more: Partial<E2Outcome> = {}): Outcome => ({
  status,
  kind: 'e2',
  code,
  ...more,
})
const unsupported = e2(415, 'UNSUPPORTED_MEDIA_TYPE')
const tooLarge = e2(413, 'BODY_TOO_LARGE', { mentions: [[String(BODY_LIMIT)]] })
const invalidJson = e2(400, 'INVALID_JSON')
/**
 * 400 INVALID_ID, echoing the id segment as read (docs/decisions.md#ids-in-paths), maybe quoted.
 */
const invalidId = (raw: string) => e2(400, 'INVALID_ID', { mentions: [[raw, JSON.stringify(raw)]] })
/** 404 NOT_FOUND, naming the id as read however long (docs/decisions.md#ids-in-paths). */
const notFound = (raw: string) => e2(404, 'NOT_FOUND', { mentions: [[` ${raw} not found`]] })
const validation = (fields: string[]) => e2(400, 'VALIDATION_ERROR', { fields })

/**
 * The answers the spec allows for `sent`, given the model: Part 1 surface D, Part 2 Authentication,
 * E2 codes and rate-limit rules, the spec's decisions 2, 5 and 6, and the choices of
 * docs/decisions.md where the spec is silent.
 */
function expected(sent: Sent, target: Target, model: Model): Outcome[] {
  if (target.kind === 'elsewhere') return [e1]
  const { endpoint } = target
  const outcomes = endpointOutcomes(sent, endpoint, target.raw, model)
  // `/users/` names the item route with an empty id, or no route: either reading is fair.
  return target.emptyId ? [...outcomes, e1] : outcomes
}

function endpointOutcomes(
  sent: Sent,
  endpoint: Endpoint,
  raw: string | undefined,
  model: Model,
): Outcome[] {
  const { methods } = spec(endpoint)
  const method = sent.method === 'HEAD' && methods.includes('GET') ? 'GET' : sent.method
  // Decisions 2: a method not registered on a known D path, whatever the credential or body.
  if (!methods.includes(method)) {
    return [e2(405, 'METHOD_NOT_ALLOWED', { allow: allowOf(endpoint) })]
  }
  const readsBody = method === 'POST' && !hasId(endpoint)
  const outcomes = routeOutcomes(sent, endpoint, method, raw, model)
  // A route that takes no body ignores one, or refuses it over 1 MiB
  // (docs/decisions.md#body-size-1-mib).
  if (!readsBody && kit.bytesOf(sent.payload) > BODY_LIMIT) return [...outcomes, tooLarge]
  return outcomes
}

/** Access checks (401, then 403), then the route's own steps. */
function routeOutcomes(
  sent: Sent,
  endpoint: Endpoint,
  method: string,
  raw: string | undefined,
  model: Model,
): Outcome[] {
  const { access, roles } = spec(endpoint)
  let identity: Identity | undefined
  if (access === 'credential') {
    const secret = presentedSecret(sent)
    identity = secret === undefined ? undefined : IDENTITIES.get(secret)
    if (identity === undefined) return [e2(401, 'UNAUTHENTICATED')]
    if (!(roles?.[method] ?? []).includes(identity.peran)) {
      const root = `/${spec(endpoint).segments[0]}`
      return [e2(403, 'FORBIDDEN', { mentions: [[identity.peran], [root]] })]
    }
  }
  if (access === 'api-key') {
    // Decisions 6: only X-API-Key counts on /laporan; missing (or empty) is MISSING_API_KEY.
    if (sent.apiKey === undefined || sent.apiKey === '') return [e2(401, 'MISSING_API_KEY')]
    identity = IDENTITIES.get(sent.apiKey)
    if (identity === undefined) return [e2(401, 'UNAUTHENTICATED')]
  }
  const id = idOf(raw)
  const invalid = invalidId(raw ?? '')
  const missing = notFound(raw ?? '')
  switch (endpoint) {
    case 'users':
      if (method === 'GET') return [{ status: 200, kind: 'users' }]
      return jsonBody(sent, (body) => userCreate(body, model))
    case 'user': {
      if (id === undefined) return [invalid]
      const user = model.users.get(id)
      return [user === undefined ? missing : { status: 200, kind: 'user', user }]
    }
    case 'pesanan':
      return jsonBody(sent, orderCreate)
    case 'order':
    case 'bayar': {
      if (id === undefined) return [invalid]
      const order = model.orders.get(id)
      if (order === undefined) return [missing]
      if (endpoint === 'order') return [{ status: 200, kind: 'order', order, paid: false }]
      // Part 1 order states: MENUNGGU becomes LUNAS once; paying again is 409.
      if (order.status === 'LUNAS') {
        return [e2(409, 'SUDAH_DIBAYAR', { details: { status: 'LUNAS' } })]
      }
      return [{ status: 200, kind: 'order', order: { ...order, status: 'LUNAS' }, paid: true }]
    }
    case 'produk':
      return [{ status: 200, kind: 'products' }]
    case 'product': {
      if (id === undefined) return [invalid]
      const product = PRODUCTS.find((candidate) => candidate.id === id)
      return [product === undefined ? missing : { status: 200, kind: 'product', product }]
    }
    case 'dokumen': {
      const { nama, peran } = identity as Identity
      const documents = [...model.documents.values()].filter(
        (document) => peran === 'admin' || document.pemilik === nama,
      )
      return [{ status: 200, kind: 'documents', documents }]
    }
    case 'document': {
      // Part 2: credential, role policy, integer id, existence, then ownership.
      if (id === undefined) return [invalid]
      const document = model.documents.get(id)
      if (document === undefined) return [missing]
      if (method === 'DELETE') return [{ status: 204, kind: 'deleted', id }]
      const { nama, peran } = identity as Identity
      if (peran !== 'admin' && document.pemilik !== nama) return [e2(403, 'FORBIDDEN')]
      return [{ status: 200, kind: 'document', document }]
    }
    case 'profil':
    case 'panel-admin':
      return [{ status: 200, kind: 'identity', identity: identity as Identity }]
    case 'laporan':
      return [laporan(sent.apiKey as string, model)]
    case 'laporan-penjualan':
      return [{ status: 200, kind: 'sales' }]
  }
}

/** Part 2 rate-limit rules 1 to 3: a bucket per key, created full, refilled by elapsed time. */
function laporan(key: string, model: Model): Outcome {
  const bucket = model.buckets.get(key)
  const elapsed = bucket === undefined ? 0 : (model.clock.now - bucket.at) / 1000
  const tokens =
    bucket === undefined
      ? CAPACITY
      : Math.min(CAPACITY, bucket.tokens + elapsed * REFILL_PER_SECOND)
  if (tokens >= 1) return { status: 200, kind: 'laporan', key, tokens: tokens - 1 }
  return { status: 429, kind: 'laporan', key, tokens }
}

/**
 * The steps of a JSON body (decisions 6, E2 codes): a Content-Type starting `application/json`
 * (else 415, also without a body), at most 1 MiB (else 413), valid JSON (else 400 INVALID_JSON;
 * an empty body too), then the route's rules. The spec orders neither 415 against 413 nor a
 * header that starts right but is no media type (`application/json garbage`): those may be 415.
 */
function jsonBody(sent: Sent, then: (body: unknown) => Outcome[]): Outcome[] {
  const type = sent.contentType
  const startsJson = (text: string) => /^application\/json/i.test(text)
  const over = kit.bytesOf(sent.payload) > BODY_LIMIT
  if (type === undefined || !startsJson(type)) {
    const refused = over ? [unsupported, tooLarge] : [unsupported]
    // Leading whitespace is not part of a header value on the wire (RFC 9110 5.5).
    if (type === undefined || !startsJson(type.trimStart())) return refused
    return [...refused, ...readJson(sent, over, then)]
  }
  const alternatives = kit.mediaTypeOf(type) === undefined ? [unsupported] : []
  return [...alternatives, ...readJson(sent, over, then)]
}

function readJson(sent: Sent, over: boolean, then: (body: unknown) => Outcome[]): Outcome[] {
  if (over) return [tooLarge]
  if (sent.payload === undefined) return [invalidJson]
  let body: unknown
  try {
    body = JSON.parse(kit.textOf(sent.payload))
  } catch {
    return [invalidJson]
  }
  return then(body)
}

/** Own fields of a body; a body that is not an object has none (every field is missing). */
function fieldsOf(body: unknown): (name: string) => unknown {
  const fields = kit.isPlainObject(body) ? body : {}
  return (name) => kit.own(fields, name)
}

/**
 * Users, both variants (Part 1, docs/supporting.md#users): `name` text not blank after trimming,
 * `email` text containing `@`; enveloped also `password` text of at least 8 code points. The
 * violated fields, sorted.
 */
function userViolations(body: unknown, variant: Variant): string[] {
  const read = fieldsOf(body)
  const violated: string[] = []
  const name = read('name')
  if (typeof name !== 'string' || name.trim() === '') violated.push('name')
  const email = read('email')
  if (typeof email !== 'string' || !email.includes('@')) violated.push('email')
  const password = read('password')
  if (
    variant === 'enveloped' &&
    (typeof password !== 'string' || kit.codePoints(password) < PASSWORD_MIN)
  ) {
    violated.push('password')
  }
  return violated.sort()
}

function userCreate(body: unknown, model: Model): Outcome[] {
  const violated = userViolations(body, model.variant)
  if (violated.length > 0) return [validation(violated)]
  const read = fieldsOf(body)
  const name = (read('name') as string).trim()
  const email = (read('email') as string).trim()
  if (model.emails.has(email.toLowerCase())) {
    return [e2(409, 'EMAIL_TELAH_DIPAKAI', { mentions: [[email, JSON.stringify(email)]] })]
  }
  return [{ status: 201, kind: 'user-created', name, email }]
}

/**
 * Orders (Part 1): `email` text containing `@`, `jumlah` an integer greater than 0; both
 * reported together. An integer past 2^53 cannot be told apart from its neighbours once parsed:
 * accepted or refused. The email may be stored as sent or trimmed (the spec does not say).
 */
function orderCreate(body: unknown): Outcome[] {
  const read = fieldsOf(body)
  const email = read('email')
  const jumlah = read('jumlah')
  const emailOk = typeof email === 'string' && email.includes('@')
  const integer = typeof jumlah === 'number' && Number.isInteger(jumlah) && jumlah > 0
  const jumlahOk = integer && Number.isSafeInteger(jumlah)
  const violated = [...(emailOk ? [] : ['email']), ...(jumlahOk ? [] : ['jumlah'])]
  const created = (): Outcome => ({
    status: 201,
    kind: 'order-created',
    emails: [email as string, (email as string).trim()],
    jumlah: jumlah as number,
  })
  if (violated.length === 0) return [created()]
  if (integer && emailOk) return [validation(violated), created()]
  return [validation(violated)]
}

// ---------------------------------------------------------------------------------------------
// The checks every answer must pass

const assertNotPolluted = kit.pollutionCheck([
  'polluted',
  'name',
  'email',
  'password',
  'jumlah',
  'status',
  'judul',
  'pemilik',
  'nama',
  'peran',
  'data',
  'id',
  'x',
])

function isTimestamp(value: unknown): boolean {
  return typeof value === 'string' && RFC3339_UTC.test(value) && !Number.isNaN(Date.parse(value))
}

function keysOf(value: unknown, what: string): string[] {
  assert.ok(kit.isPlainObject(value), `not an object: ${what}`)
  return Object.keys(value).sort()
}

/** `{ data: <x> }` exactly; returns `x`. */
function dataOf(body: unknown, what: string): unknown {
  assert.deepEqual(keysOf(body, what), ['data'], `not exactly { data }: ${what}`)
  return (body as { data: unknown }).data
}

/** A user with exactly the documented keys (the password never among them). */
function assertUserShape(user: unknown, what: string): asserts user is User {
  assert.deepEqual(keysOf(user, what), ['created_at', 'email', 'id', 'name'], what)
  const { id, name, email, created_at } = user as User
  assert.ok(Number.isSafeInteger(id) && id >= 1, `user id: ${what}`)
  assert.ok(typeof name === 'string' && typeof email === 'string', `user fields: ${what}`)
  assert.ok(isTimestamp(created_at), `created_at is not RFC 3339 UTC: ${what}`)
}

function assertOrderShape(order: unknown, what: string): asserts order is Order {
  assert.deepEqual(keysOf(order, what), ['email', 'id', 'jumlah', 'status'], what)
  const { id, email, jumlah, status } = order as Order
  assert.ok(Number.isSafeInteger(id) && id >= 1, `order id: ${what}`)
  assert.equal(typeof email, 'string', what)
  assert.ok(Number.isInteger(jumlah) && jumlah > 0, `jumlah: ${what}`)
  assert.ok(status === 'MENUNGGU' || status === 'LUNAS', `status: ${what}`)
}

const byId = <T extends { id: number }>(items: T[]) => [...items].sort((a, b) => a.id - b.id)

/** The E2 body exactly: `{ error: { code, message, details? } }`; returns the error. */
function assertE2Body(
  answer: kit.Answer,
  what: string,
): { code: string; message: string; details?: Record<string, string> } {
  const body = kit.parseJson(answer, what)
  assert.deepEqual(
    keysOf(body, what),
    ['error'],
    `E2 body must have exactly the key error: ${what}`,
  )
  const { error } = body as { error: unknown }
  assert.ok(kit.isPlainObject(error), `E2 error is not an object: ${what}`)
  const { code, message, details, ...rest } = error
  assert.deepEqual(rest, {}, `E2 error with extra members: ${what}`)
  assert.ok(typeof code === 'string' && E2_CODES.has(code), `not an E2 code of surface D: ${what}`)
  assert.ok(typeof message === 'string' && message !== '', `E2 message is not text: ${what}`)
  if (!Object.hasOwn(error, 'details')) return { code, message }
  assert.ok(kit.isPlainObject(details), `details is not an object: ${what}`)
  const keys = Object.keys(details)
  assert.ok(keys.length > 0, `empty details: ${what}`)
  assert.deepEqual(keys, [...keys].sort(), `details keys not in alphabetical order: ${what}`)
  assert.ok(
    Object.values(details).every((reason) => typeof reason === 'string' && reason !== ''),
    `details holds a reason that is not text: ${what}`,
  )
  return { code, message, details: details as Record<string, string> }
}

/** Surface D's forms, from the status and target alone. */
function assertShape(sent: Sent, target: Target, answer: kit.Answer, what: string): void {
  const { statusCode } = answer
  assert.ok(statusCode < 500, `server error: ${what}`)
  if (target.kind === 'elsewhere') return
  assert.ok(STATUSES.has(statusCode), `status surface D never gives: ${what}`)
  if (statusCode === 401) assert.equal(answer.headers['www-authenticate'], CHALLENGE, what)
  if (sent.method === 'HEAD' || statusCode === 204) {
    assert.equal(answer.body, '', `body on a HEAD or 204 answer: ${what}`)
    return
  }
  // Part 1 convention 2: every JSON response carries Content-Type application/json.
  kit.parseJson(answer, what)
  if (statusCode >= 400 && !target.emptyId) assertE2Body(answer, what)
}

const RATE_LIMIT_HEADERS = ['ratelimit', 'ratelimit-policy', 'retry-after']

/** Throws unless `answer` is `outcome`. */
function assertOutcome(
  outcome: Outcome,
  sent: Sent,
  answer: kit.Answer,
  model: Model,
  what: string,
): void {
  assert.equal(answer.statusCode, outcome.status, what)
  const head = sent.method === 'HEAD'
  const body = () => kit.parseJson(answer, what)
  switch (outcome.kind) {
    case 'e1': {
      if (head) return
      const error = (body() as { error?: unknown }).error
      assert.ok(kit.isPlainObject(error), `not the service's E1 404: ${what}`)
      assert.equal(error.kode, 'TIDAK_ADA', `not the service's E1 404: ${what}`)
      assert.equal(typeof error.pesan, 'string', what)
      return
    }
    case 'e2': {
      if (outcome.allow !== undefined) {
        const allow = String(answer.headers.allow ?? '')
        assert.deepEqual(allow.split(/\s*,\s*/).sort(), outcome.allow, `Allow: ${what}`)
      }
      if (outcome.status === 401) {
        assert.equal(answer.headers['www-authenticate'], CHALLENGE, what)
        for (const name of RATE_LIMIT_HEADERS) {
          assert.equal(answer.headers[name], undefined, `${name} on a 401: ${what}`)
        }
      }
      if (head) return
      const error = assertE2Body(answer, what)
      assert.equal(error.code, outcome.code, what)
      if (outcome.fields !== undefined) {
        assert.deepEqual(Object.keys(error.details ?? {}), outcome.fields, `details: ${what}`)
      } else if (outcome.details !== undefined) {
        assert.deepEqual(error.details, outcome.details, what)
      } else {
        assert.equal(error.details, undefined, `details on ${outcome.code}: ${what}`)
      }
      for (const any of outcome.mentions ?? []) {
        assert.ok(
          any.some((text) => error.message.includes(text)),
          `message does not name ${any.join(' or ')}: ${what}`,
        )
      }
      return
    }
    case 'users': {
      if (head) return
      const list = body()
      assert.deepEqual(keysOf(list, what), ['data', 'meta'], what)
      const { data, meta } = list as { data: unknown[]; meta: unknown }
      assert.deepEqual(meta, { page: 1, total: model.users.size }, `meta: ${what}`)
      assert.ok(Array.isArray(data), what)
      for (const user of data) assertUserShape(user, what)
      assert.deepEqual(byId(data as User[]), byId([...model.users.values()]), what)
      return
    }
    case 'user-created': {
      const created = model.variant === 'enveloped' ? dataOf(body(), what) : body()
      assertUserShape(created, what)
      assert.ok(created.id > model.lastUserId, `ids must increase: ${what}`)
      assert.deepEqual(
        { name: created.name, email: created.email },
        { name: outcome.name, email: outcome.email },
        `name and email are stored trimmed: ${what}`,
      )
      const stamp = Date.parse(created.created_at)
      assert.ok(Math.abs(stamp - Date.now()) < 60_000, `created_at is not now: ${what}`)
      assert.equal(answer.headers.location, `/users/${created.id}`, what)
      return
    }
    case 'user':
      if (head) return
      assert.deepEqual(
        model.variant === 'enveloped' ? dataOf(body(), what) : body(),
        outcome.user,
        what,
      )
      return
    case 'order-created': {
      const order = dataOf(body(), what)
      assertOrderShape(order, what)
      assert.ok(order.id > model.lastOrderId, `ids must increase: ${what}`)
      assert.ok(outcome.emails.includes(order.email), `email: ${what}`)
      assert.equal(order.jumlah, outcome.jumlah, what)
      assert.equal(order.status, 'MENUNGGU', what)
      assert.equal(answer.headers.location, `/pesanan/${order.id}`, what)
      return
    }
    case 'order':
      if (head) return
      assert.deepEqual(body(), { data: outcome.order }, what)
      return
    case 'products':
      if (head) return
      assert.deepEqual(body(), PRODUCTS, what)
      return
    case 'product':
      if (head) return
      assert.deepEqual(body(), outcome.product, what)
      return
    case 'documents': {
      if (head) return
      const documents = dataOf(body(), what)
      assert.ok(Array.isArray(documents), what)
      assert.deepEqual(byId(documents as Dokumen[]), byId(outcome.documents), what)
      return
    }
    case 'document':
      if (head) return
      assert.deepEqual(body(), { data: outcome.document }, what)
      return
    case 'deleted':
      assert.equal(answer.body, '', what)
      return
    case 'identity':
      if (head) return
      assert.deepEqual(body(), { data: outcome.identity }, what)
      return
    case 'laporan': {
      const { tokens } = outcome
      // The IETF RateLimit fields (docs/supporting.md#rate-limit-of-get-laporan) on 200 and 429,
      // Retry-After on 429 (Part 2).
      assert.equal(
        answer.headers['ratelimit-policy'],
        `"laporan";q=${CAPACITY};w=${Math.ceil(CAPACITY / REFILL_PER_SECOND)}`,
        what,
      )
      assert.equal(
        answer.headers.ratelimit,
        `"laporan";r=${Math.floor(tokens)};t=${Math.ceil((CAPACITY - tokens) / REFILL_PER_SECOND)}`,
        what,
      )
      if (outcome.status === 429) {
        const retry = Math.max(1, Math.ceil((1 - tokens) / REFILL_PER_SECOND))
        assert.equal(answer.headers['retry-after'], String(retry), what)
        if (!head) assert.equal(assertE2Body(answer, what).code, 'RATE_LIMIT_EXCEEDED', what)
        return
      }
      assert.equal(answer.headers['retry-after'], undefined, what)
      if (!head) assert.equal(typeof dataOf(body(), what), 'string', what)
      return
    }
    case 'sales':
      if (head) return
      assert.deepEqual(body(), { data: SALES_REPORT }, what)
  }
}

function remember(outcome: Outcome, answer: kit.Answer, model: Model): void {
  switch (outcome.kind) {
    case 'user-created': {
      const json = JSON.parse(answer.body) as User | { data: User }
      const user = 'data' in json ? json.data : json
      model.users.set(user.id, user)
      model.emails.add(user.email.toLowerCase())
      model.lastUserId = user.id
      return
    }
    case 'order-created': {
      const { data } = JSON.parse(answer.body) as { data: Order }
      model.orders.set(data.id, data)
      model.lastOrderId = data.id
      return
    }
    case 'order':
      if (outcome.paid) model.orders.set(outcome.order.id, outcome.order)
      return
    case 'deleted':
      model.documents.delete(outcome.id)
      return
    case 'laporan':
      model.buckets.set(outcome.key, { tokens: outcome.tokens, at: model.clock.now })
  }
}

// ---------------------------------------------------------------------------------------------
// The harness: one app and its model per test

async function inject(
  app: FastifyInstance,
  sent: Sent,
): Promise<{ answer: kit.Answer; url: string }> {
  const headers: Record<string, string> = {}
  if (sent.contentType !== undefined) headers['content-type'] = sent.contentType
  if (sent.authorization !== undefined) headers.authorization = sent.authorization
  if (sent.apiKey !== undefined) headers['x-api-key'] = sent.apiKey
  const response = await app.inject({
    method: sent.method as HTTPMethods,
    url: sent.url,
    headers,
    ...(sent.payload === undefined ? {} : { payload: sent.payload }),
  })
  const answer = { statusCode: response.statusCode, headers: response.headers, body: response.body }
  return { answer, url: kit.urlAsSent(response, sent.url) }
}

function describeRequest(variant: Variant, sent: Sent, url: string, answer: kit.Answer): string {
  const payload =
    sent.payload === undefined
      ? 'no body'
      : `body ${JSON.stringify(kit.textOf(sent.payload).slice(0, 200))} (${kit.bytesOf(sent.payload)} bytes)`
  const credentials = JSON.stringify({ authorization: sent.authorization, apiKey: sent.apiKey })
  return `[${variant}] ${sent.method} ${sent.url} (received as ${url}; credentials ${credentials}; content-type ${JSON.stringify(
    sent.contentType,
  )}; ${payload}; clock +${sent.advance ?? 0}s) answered ${answer.statusCode} allow=${JSON.stringify(
    answer.headers.allow,
  )} ratelimit=${JSON.stringify(answer.headers.ratelimit)} ${answer.body.slice(0, 300)}`
}

interface Harness {
  model: Model
  /** Sends the request, checks the answer against the shape rules and the spec; returns it. */
  send(sent: Sent): Promise<kit.Answer>
}

function harness(app: FastifyInstance, variant: Variant, clock: { now: number }): Harness {
  const model: Model = {
    variant,
    users: new Map(),
    emails: new Set(),
    orders: new Map(),
    documents: new Map(DOCUMENTS.map((document) => [document.id, document])),
    buckets: new Map(),
    clock,
    lastUserId: 0,
    lastOrderId: 0,
  }
  const send = oracleSender<Sent, Target, Outcome>({
    inject(sent) {
      clock.now += (sent.advance ?? 0) * 1000
      return inject(app, sent)
    },
    describe: (sent, url, answer) => describeRequest(variant, sent, url, answer),
    targetOf,
    assertShape,
    expected: (sent, target) => expected(sent, target, model),
    assertOutcome: (outcome, sent, answer, what) =>
      assertOutcome(outcome, sent, answer, model, what),
    remember: (outcome, answer) => remember(outcome, answer, model),
    assertNotPolluted,
  })
  return { model, send }
}

/**
 * Runs `run` against a fresh app with the demo data, the users variant, and a /laporan limiter
 * of the default settings (3 tokens, 1 a second) on a fake clock that only the requests move:
 * the oracle models the buckets exactly.
 */
async function withHarness(variant: Variant, run: (h: Harness) => Promise<void>): Promise<void> {
  const clock = { now: 0 }
  const limiter = new TokenBucketLimiter(
    { capacity: CAPACITY, refillPerSecond: REFILL_PER_SECOND },
    () => clock.now,
  )
  // The oracle models the buckets, not the throttle of failed credentials (test/surfaces/
  // supporting/throttle.test.ts has it): thousands of unknown secrets never reach its limit.
  const app = await testApp({
    config: { usersVariant: variant, authFailuresMax: 100_000 },
    limiter,
  })
  await kit.withApp(app, () => run(harness(app, variant, clock)), assertNotPolluted)
}

const json = 'application/json'

/** Two users and three orders (the second paid), so that ids 1 to 3 name something. */
async function seed(h: Harness): Promise<void> {
  const post = (url: string, body: unknown) =>
    h.send({ method: 'POST', url, contentType: json, payload: JSON.stringify(body) })
  for (const [name, email] of [
    ['Budi', 'budi@contoh.id'],
    ['Siti', 'Siti@Contoh.id'],
  ]) {
    assert.equal((await post('/users', { name, email, password: 'rahasia123' })).statusCode, 201)
  }
  for (const jumlah of [1, 2, 3]) {
    assert.equal((await post('/pesanan', { email: 'budi@contoh.id', jumlah })).statusCode, 201)
  }
  assert.equal((await h.send({ method: 'POST', url: '/pesanan/2/bayar' })).statusCode, 200)
}

// ---------------------------------------------------------------------------------------------
// Arbitraries

/** The registered methods of surface D, and others Fastify routes (each a 405 somewhere). */
const anyMethod = fc.constantFrom(
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
  'TRACE',
)

/** Mostly a method `endpoint` registers, sometimes any. */
function methodFor(endpoint: Endpoint): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...spec(endpoint).methods) },
    { weight: 1, arbitrary: anyMethod },
  )
}

/** Ids that name something (after seeding), and a few that do not. */
const plausibleId = fc.constantFrom('1', '2', '3', '4', '5', '9')

/** Ids of every odd kind: numbers in disguise, escapes (broken ones too), words, unicode. */
const oddId = fc.constantFrom(
  '-1',
  '0',
  '-0',
  '00',
  '01',
  '1e3',
  '1E3',
  '1.5',
  '1.0',
  '0x10',
  '99999999999999999999',
  '-99999999999999999999',
  '9007199254740993',
  '%00',
  '%zz',
  '%',
  '%E9',
  '%20',
  '%201',
  '1%20',
  '%2F',
  '1%2F2',
  '%2D1',
  '%31',
  'abc',
  '+1',
  '%2B1',
  '--1',
  'é',
  '%C3%A9',
  encodeURIComponent('１'),
  encodeURIComponent('٣'),
  '%F0%9F%98%80',
  ...kit.ODD_IDS,
)

const anyId = fc.oneof(
  { weight: 3, arbitrary: plausibleId },
  { weight: 3, arbitrary: oddId },
  ...kit.numericIds,
  ...kit.encodedIds,
  ...kit.longIds,
  kit.undecodableIds,
)

/** Paths that look like surface D's but name nothing: the service's E1 404. */
const otherPath = fc.oneof(
  fc.constantFrom(
    '/users/1/',
    '/users/1/x',
    '/users//1',
    '/users%2F1',
    '/USERS',
    '/Profil',
    '/profil/1',
    '/panel-admin/x',
    '/laporan/1',
    '/laporan-penjualan/',
    '/pesanan/1/x',
    '/pesanan/1/bayar/x',
    '/pesanan/%zz/x',
    '/pesanan/1/%zz',
    '/pesanan/1/bay%zz',
    '/produk/1/stok',
    '/dokumen/1/__proto__',
    '/dokumen/__proto__/x',
    '/dokumen/%zz/',
    '/users%zz',
    '/users%/1',
    '/profil/%zz',
    '/%zz',
    '/laporan%',
  ),
  kit.belowItem('/users', plausibleId),
  kit.belowItem('/dokumen', plausibleId),
  kit.belowItem('/dokumen', fc.oneof(kit.undecodableIds, ...kit.longIds)),
  kit.undecodableIds.map((segment) => `/produk/1/${segment}`),
)

/** A query string now and then: it never changes which endpoint answers. */
const query = fc.option(
  fc.constantFrom('?page=2', '?x=%zz', '?__proto__[x]=1', '?id=1&id=2', '?'),
  {
    nil: '',
    freq: 6,
  },
)

interface Line {
  method: string
  url: string
}

/** The URL with the first letter of its first segment percent-encoded: the same path. */
const disguise = (url: string) =>
  `/%${(url.codePointAt(1) ?? 0).toString(16).toUpperCase()}${url.slice(2)}`

/**
 * Every endpoint (items with any id, sometimes with an escaped letter in the named segment next
 * to the id: only an undecodable id is read literally), with mostly its own methods; and paths
 * of no endpoint.
 */
const requestLine: fc.Arbitrary<Line> = fc
  .oneof(
    { weight: 3, arbitrary: fc.constantFrom(...LIST_ENDPOINTS).map((e) => ({ e, url: urlOf(e) })) },
    {
      weight: 4,
      arbitrary: fc
        .tuple(fc.constantFrom(...ITEM_ENDPOINTS), anyId, fc.nat({ max: 5 }))
        .map(([e, id, n]) => ({ e, url: n === 0 ? disguise(urlOf(e, id)) : urlOf(e, id) })),
    },
    { weight: 1, arbitrary: otherPath.map((url) => ({ e: undefined, url })) },
  )
  .chain(({ e, url }) =>
    fc
      .tuple(e === undefined ? anyMethod : methodFor(e), query)
      .map(([method, suffix]) => ({ method, url: url + suffix })),
  )

const secret = fc.constantFrom(ADMIN, BUDI, SITI)

/** Secrets that are in no table: near misses, other case, words, any printable text. */
const unknownSecret = fc.oneof(
  fc.constantFrom(
    'nope',
    'demo-admin',
    'demo-admin-token-x',
    'DEMO-ADMIN-TOKEN',
    'Demo-budi-token',
    'demo-siti-tokem',
    'Bearer',
    'null',
    '__proto__',
    'constructor',
    'toString',
  ),
  fc
    .string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 24 })
    .filter((text) => text === text.trim()),
)

/** `Bearer <token>` with the scheme in any case and any spaces around the token. */
const bearerAuthorization = fc
  .tuple(
    fc.constantFrom('Bearer', 'bearer', 'BEARER', 'bEaReR'),
    fc.integer({ min: 1, max: 3 }),
    fc.oneof({ weight: 3, arbitrary: secret }, unknownSecret, fc.constant('')),
    fc.integer({ min: 0, max: 2 }),
  )
  .map(
    ([scheme, before, token, after]) =>
      `${scheme}${' '.repeat(before)}${token}${' '.repeat(after)}`,
  )

/** `Authorization` values that do not use the Bearer scheme (or have no token at all). */
const otherAuthorization = fc.constantFrom(
  `Basic ${Buffer.from(`admin:${ADMIN}`).toString('base64')}`,
  `Basic ${Buffer.from(ADMIN).toString('base64')}`,
  `Basic ${ADMIN}`,
  `Token ${BUDI}`,
  `Digest ${SITI}`,
  `Bearer:${ADMIN}`,
  `Bearer-${ADMIN}`,
  `Bearer${ADMIN}`,
  ADMIN,
  'Bearer',
  '',
)

const authorization = fc.oneof({ weight: 3, arbitrary: bearerAuthorization }, otherAuthorization)
const apiKey = fc.oneof({ weight: 3, arbitrary: secret }, unknownSecret, fc.constant(''))

/** No credential, either header, or both together. */
const credentials: fc.Arbitrary<Credentials> = fc.record({
  authorization: fc.option(authorization, { nil: undefined, freq: 2 }),
  apiKey: fc.option(apiKey, { nil: undefined, freq: 2 }),
})

/** The fake clock mostly stands still, so that buckets run dry; sometimes it moves on. */
const advance = fc.oneof(
  { weight: 8, arbitrary: fc.constant(0) },
  { weight: 2, arbitrary: fc.constantFrom(1, 2, 5) },
)

const contentType = kit.contentTypeFrom(
  ...kit.JSONISH_TYPES,
  'application/x-json',
  'application/problem+json',
  'application/json; charset=utf-8',
  ...kit.NEAR_JSON_TYPES,
  ...kit.OTHER_TYPES,
)

const nameValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom('Budi', ' Budi ', 'a', 'é', '😀', '中文', '\u00a0', '', '   ', '\t\n', '\u3000'),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.constantFrom(null, 0, 1, true, false, [], {}, ['Budi'], { name: 'Budi' }),
)

/** Emails from a small pool in several letter cases (so they collide), and fresh ones. */
const emailValue: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      'budi@contoh.id',
      'BUDI@CONTOH.ID',
      ' Budi@Contoh.id ',
      'siti@contoh.id',
      'ana@contoh.id',
      'Ana@contoh.id',
      'a@b',
      '@',
      ' @ ',
      'budi',
      'budi.contoh.id',
      '',
      ' ',
    ),
  },
  fc
    .tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }))
    .map(([local, domain]) => `${local}@${domain}`),
  fc.string({ maxLength: 10 }),
  fc.constantFrom(null, 0, true, ['a@b'], { email: 'a@b' }),
)

/** Passwords around the 8-code-point minimum (emoji are one code point, two UTF-16 units). */
const passwordValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    'rahasia123',
    '12345678',
    '1234567',
    '😀'.repeat(7),
    '😀'.repeat(8),
    'é'.repeat(8),
    '        ',
    '',
  ),
  fc.string({ minLength: 6, maxLength: 10 }),
  fc.constantFrom(null, 12345678, true, ['12345678'], {}),
)

const jumlahValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer({ min: 1, max: 100 }),
  fc.integer({ min: -3, max: 3 }),
  fc.integer(),
  fc.double(),
  fc.constantFrom(1.5, 0.5, -0, 2 ** 53 - 1, 2 ** 53, 1e21, '3', '', null, true, [], {}, [3], {
    jumlah: 1,
  }),
)

/** A value of any JSON type, with the values the fields care about mixed in. */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  nameValue,
  emailValue,
  jumlahValue,
  fc.constantFrom(
    { polluted: 'yes' },
    { name: 'dari prototipe', email: 'proto@contoh.id', password: 'rahasia123', jumlah: 1 },
  ),
)

/** Keys that name fields (of this and other surfaces), and keys of the prototype machinery. */
const trickyKey = kit.trickyKeyFrom(
  'name',
  'email',
  'password',
  'jumlah',
  'id',
  'status',
  'created_at',
  'data',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'polluted',
)

const trickyObjectText = kit.trickyObjectTextOf(trickyKey, anyValue)

/**
 * JSON text of an object holding each of `fields` or not, of a likely or any type, with tricky
 * entries before or after (after: they may override the fields) and padding, now and then a
 * huge string (up to 256 KiB).
 */
function objectLike(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<string> {
  const members = Object.fromEntries(
    Object.entries(fields).map(([name, value]) => [
      name,
      fc.option(fc.oneof({ weight: 4, arbitrary: value }, anyValue), { nil: undefined, freq: 6 }),
    ]),
  )
  return fc
    .record({
      fields: fc.record(members),
      tricky: fc.array(fc.tuple(trickyKey, anyValue), { maxLength: 3 }),
      after: fc.boolean(),
      pad: fc.option(
        fc.oneof(
          { weight: 4, arbitrary: fc.nat({ max: 2048 }) },
          { weight: 1, arbitrary: fc.constantFrom(64 * 1024, 256 * 1024) },
        ),
        { nil: undefined, freq: 4 },
      ),
    })
    .map(({ fields: values, tricky, after, pad }) => {
      const entries: [string, unknown][] = Object.entries(values).filter(
        (entry): entry is [string, unknown] => entry[1] !== undefined,
      )
      if (pad !== undefined) entries.push(['catatan', 'x'.repeat(pad)])
      const all = after ? [...entries, ...tricky] : [...tricky, ...entries]
      return `{${all.map(kit.entryText).join(',')}}`
    })
}

const userLikeText = objectLike({ name: nameValue, email: emailValue, password: passwordValue })
const orderLikeText = objectLike({ email: emailValue, jumlah: jumlahValue })

/** Bodies that are JSON text: field-shaped objects, any JSON value, objects with tricky keys. */
const jsonBodyText = fc.oneof(
  { weight: 3, arbitrary: userLikeText },
  { weight: 3, arbitrary: orderLikeText },
  kit.jsonValueText,
  kit.objectText,
  trickyObjectText,
)

/** A valid new user whose email comes from a small pool in several letter cases: 201, then 409. */
const pooledUserText = fc
  .constantFrom('ana@contoh.id', 'ANA@contoh.id', ' Ana@Contoh.ID ', 'BUDI@contoh.id')
  .map((email) => JSON.stringify({ name: ' Ana ', email, password: 'rahasia123' }))

/** JSON text of exactly `bytes` bytes: a valid new user (and a bad order), padded. */
function paddedBody(bytes: number): string {
  const start = '{"name":"Besar","email":"besar@contoh.id","password":"rahasia123","catatan":"'
  const end = '"}'
  return start + 'x'.repeat(bytes - start.length - end.length) + end
}
const AT_LIMIT = paddedBody(BODY_LIMIT)
const OVER_LIMIT = paddedBody(BODY_LIMIT + 1)

/** Bodies that are anything at all: JSON, raw text and bytes, and rarely 1 MiB or more. */
const anyBody = fc.option(
  fc.oneof(
    { weight: 12, arbitrary: jsonBodyText },
    { weight: 6, arbitrary: kit.rawBodyOf('email', { textMax: 2048, bytesMax: 2048 }) },
    { weight: 1, arbitrary: fc.constantFrom(AT_LIMIT, OVER_LIMIT, Buffer.from(OVER_LIMIT)) },
  ),
  { nil: undefined, freq: 5 },
)

const anyRequest: fc.Arbitrary<Sent> = fc
  .record({
    line: requestLine,
    contentType,
    payload: anyBody,
    credentials,
    advance,
  })
  .map(({ line, credentials: sentCredentials, ...rest }) => ({
    ...line,
    ...sentCredentials,
    ...rest,
  }))

// ---------------------------------------------------------------------------------------------

for (const variant of VARIANTS) {
  describe(`surface D (USERS_VARIANT=${variant}) under bad input`, () => {
    test('any method, path, credential, content type and body gets the answer the spec gives', () =>
      withHarness(variant, async (h) => {
        await seed(h)
        await fc.assert(
          fc.asyncProperty(anyRequest, async (sent) => {
            await h.send(sent)
          }),
          PARAMETERS,
        )
      }))

    test('JSON bodies of any shape on POST /users and POST /pesanan: VALIDATION_ERROR names exactly the violated fields', () =>
      withHarness(variant, async (h) => {
        await seed(h)
        await fc.assert(
          fc.asyncProperty(
            fc.constantFrom('/users', '/pesanan'),
            kit.jsonContentType,
            fc.oneof({ weight: 5, arbitrary: jsonBodyText }, pooledUserText),
            async (url, type, payload) => {
              await h.send({ method: 'POST', url, contentType: type, payload })
            },
          ),
          PARAMETERS,
        )
      }))

    test('any content type with any body on POST /users and POST /pesanan: 415 unless it starts with application/json', () =>
      withHarness(variant, async (h) => {
        await seed(h)
        await fc.assert(
          fc.asyncProperty(
            fc.constantFrom('/users', '/pesanan'),
            contentType,
            anyBody,
            credentials,
            async (url, type, payload, sentCredentials) => {
              await h.send({ method: 'POST', url, contentType: type, payload, ...sentCredentials })
            },
          ),
          PARAMETERS,
        )
      }))

    test('any id on every item path, with any method and credential: 400 INVALID_ID after the access checks', () =>
      withHarness(variant, async (h) => {
        await seed(h)
        await fc.assert(
          fc.asyncProperty(
            fc
              .constantFrom(...ITEM_ENDPOINTS)
              .chain((endpoint) => fc.tuple(fc.constant(endpoint), methodFor(endpoint), anyId)),
            credentials,
            fc.option(fc.tuple(kit.jsonContentType, jsonBodyText), { nil: undefined }),
            async ([endpoint, method, id], sentCredentials, body) => {
              await h.send({
                method,
                url: urlOf(endpoint, id),
                contentType: body?.[0],
                payload: body?.[1],
                ...sentCredentials,
              })
            },
          ),
          PARAMETERS,
        )
      }))

    test('every credential form on every endpoint, and /laporan rate-limited per key on a fake clock', () =>
      withHarness(variant, async (h) => {
        await seed(h)
        const endpointLine = fc.oneof(
          { weight: 3, arbitrary: fc.constant(urlOf('laporan')) },
          { weight: 4, arbitrary: fc.constantFrom(...LIST_ENDPOINTS).map((e) => urlOf(e)) },
          {
            weight: 4,
            arbitrary: fc
              .tuple(fc.constantFrom(...ITEM_ENDPOINTS), plausibleId)
              .map(([e, id]) => urlOf(e, id)),
          },
        )
        await fc.assert(
          fc.asyncProperty(
            endpointLine,
            fc.constantFrom('GET', 'GET', 'HEAD', 'POST', 'DELETE'),
            credentials,
            advance,
            async (url, method, sentCredentials, seconds) => {
              await h.send({ method, url, ...sentCredentials, advance: seconds })
            },
          ),
          { ...PARAMETERS, numRuns: 200 },
        )
      }))

    test('/laporan: bursts per key on a fake clock give 200 until the bucket is dry, then 429 with Retry-After', () =>
      withHarness(variant, async (h) => {
        const call = fc.record({
          method: fc.constantFrom('GET', 'GET', 'GET', 'HEAD'),
          apiKey: fc.option(fc.oneof({ weight: 6, arbitrary: secret }, unknownSecret), {
            nil: undefined,
            freq: 8,
          }),
          authorization: fc.option(authorization, { nil: undefined, freq: 4 }),
          advance: fc.oneof(
            { weight: 12, arbitrary: fc.constant(0) },
            { weight: 1, arbitrary: fc.constantFrom(1, 2, 3, 4) },
          ),
        })
        await fc.assert(
          fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 10 }), async (calls) => {
            for (const sent of calls) await h.send({ ...sent, url: '/laporan' })
          }),
          { ...PARAMETERS, numRuns: 60 },
        )
      }))

    test('a body of exactly 1 MiB is read; one byte more is 413 BODY_TOO_LARGE naming the limit', () =>
      withHarness(variant, async (h) => {
        assert.equal(Buffer.byteLength(AT_LIMIT), BODY_LIMIT)
        assert.equal(Buffer.byteLength(OVER_LIMIT), BODY_LIMIT + 1)
        for (const url of ['/users', '/pesanan']) {
          const over = await h.send({ method: 'POST', url, contentType: json, payload: OVER_LIMIT })
          assert.equal(over.statusCode, 413, url)
          const at = await h.send({ method: 'POST', url, contentType: json, payload: AT_LIMIT })
          // A valid user is created; the same body is a bad order (no jumlah).
          assert.equal(at.statusCode, url === '/users' ? 201 : 400, url)
          // Over the limit with a content type that is not JSON: 415 or 413, never read.
          const plain = { method: 'POST', url, contentType: 'text/plain', payload: OVER_LIMIT }
          assert.ok([413, 415].includes((await h.send(plain)).statusCode), url)
        }
        assert.equal(h.model.users.size, 1)
      }))

    test('after any sequence of user creates, sequential or concurrent, GET /users meta.total counts the 201s and emails are unique ignoring case', async () => {
      const app = await testApp({ config: { usersVariant: variant } })
      const emailPool = ['ana@contoh.id', 'ANA@contoh.id', ' Ana@Contoh.ID ', 'budi@contoh.id']
      const create = fc.record({
        name: fc.constantFrom('Ana', ' Budi ', '', 'Siti'),
        email: fc.oneof(
          fc.constantFrom(...emailPool, 'tanpa-at'),
          fc.string({ minLength: 1, maxLength: 6 }).map((local) => `${local}@contoh.id`),
        ),
        password: fc.constantFrom('rahasia123', 'pendek'),
      })
      let created = 0
      await kit.withApp(
        app,
        async () => {
          await fc.assert(
            fc.asyncProperty(
              fc.array(create, { minLength: 1, maxLength: variant === 'enveloped' ? 4 : 8 }),
              fc.boolean(),
              async (bodies, concurrent) => {
                const post = (body: unknown) =>
                  app.inject({
                    method: 'POST',
                    url: '/users',
                    headers: { 'content-type': json },
                    payload: JSON.stringify(body),
                  })
                const answers = concurrent ? await Promise.all(bodies.map(post)) : []
                if (!concurrent) for (const body of bodies) answers.push(await post(body))
                const what = `${concurrent ? 'concurrent' : 'sequential'} ${JSON.stringify(bodies)}: ${answers.map((a) => a.statusCode).join(' ')}`
                for (const answer of answers) {
                  assert.ok([201, 400, 409].includes(answer.statusCode), what)
                }
                created += answers.filter((answer) => answer.statusCode === 201).length
                const list = await app.inject({ method: 'GET', url: '/users' })
                assert.equal(list.statusCode, 200, what)
                const { data, meta } = list.json() as { data: User[]; meta: unknown }
                assert.deepEqual(meta, { page: 1, total: created }, what)
                assert.equal(data.length, created, what)
                const emails = data.map((user) => user.email.toLowerCase())
                assert.equal(new Set(emails).size, emails.length, `duplicate emails: ${what}`)
                // A 409 only for an email that is registered.
                for (const [i, answer] of answers.entries()) {
                  if (answer.statusCode !== 409) continue
                  const email = (bodies[i]?.email ?? '').trim().toLowerCase()
                  assert.ok(emails.includes(email), `409 for an unregistered email: ${what}`)
                }
              },
            ),
            { ...PARAMETERS, numRuns: variant === 'enveloped' ? 12 : 40 },
          )
        },
        assertNotPolluted,
      )
    })
  })
}

// ---------------------------------------------------------------------------------------------

/** One path of each surface D endpoint (items with id 1). */
const PATHS = ENDPOINT_NAMES.map((endpoint) => ({ endpoint, url: urlOf(endpoint, '1') }))

/**
 * Sends each of `methods` that a surface D path does not register to one path of every
 * endpoint, without and with a JSON body; returns, per method answered otherwise than 405
 * METHOD_NOT_ALLOWED with the right Allow, how many requests and one example.
 */
async function notMethodNotAllowed(methods: string[]): Promise<string[]> {
  const app = await testApp()
  const wrong = new Map<string, { count: number; example: string }>()
  try {
    for (const { endpoint, url } of PATHS) {
      for (const method of methods) {
        if (allowOf(endpoint).includes(method)) continue
        for (const body of [undefined, '{}']) {
          const sent: Sent = { method, url, contentType: body && json, payload: body }
          const { answer } = await inject(app, sent)
          const what = `${method} ${url}${body ? ' with a JSON body' : ''}`
          try {
            assertShape(sent, targetOf(url), answer, what)
            assertOutcome(
              e2(405, 'METHOD_NOT_ALLOWED', { allow: allowOf(endpoint) }),
              sent,
              answer,
              { variant: 'enveloped' } as Model,
              what,
            )
          } catch {
            const seen = wrong.get(method) ?? {
              count: 0,
              example: `${what} answered ${answer.statusCode} ${answer.body.slice(0, 100)}`,
            }
            wrong.set(method, { ...seen, count: seen.count + 1 })
          }
        }
      }
    }
  } finally {
    await app.close()
  }
  assertNotPolluted()
  return [...wrong].map(([method, { count, example }]) => `${method} (${count}x), e.g. ${example}`)
}

describe('surface D: methods no route registers (decisions 2)', () => {
  test('QUERY, which Fastify routes, on a surface D path is 405 METHOD_NOT_ALLOWED with Allow', async () => {
    const wrong = await notMethodNotAllowed(['QUERY'])
    if (wrong.length > 0) assert.fail(`not 405 METHOD_NOT_ALLOWED:\n${wrong.join('\n')}`)
  })

  test("every other method Node's HTTP parser accepts (PROPFIND, MKCOL...) on a surface D path is 405 METHOD_NOT_ALLOWED with Allow", async () => {
    // CONNECT never reaches the router (Node hands the socket over); QUERY is the test above.
    const methods = http.METHODS.filter((method) => !['CONNECT', 'QUERY'].includes(method))
    const wrong = await notMethodNotAllowed(methods)
    if (wrong.length > 0) assert.fail(`not 405 METHOD_NOT_ALLOWED:\n${wrong.join('\n')}`)
  })
})

describe('surface D: conditional headers under bad input', () => {
  const e2PreconditionFailed = (response: { statusCode: number; json(): unknown }) => {
    assert.equal(response.statusCode, 412)
    const body = response.json() as { error: Record<string, unknown> }
    assert.deepEqual(Object.keys(body), ['error'])
    assert.equal(body.error.code, 'PRECONDITION_FAILED')
    assert.equal(typeof body.error.message, 'string')
  }

  const JSON_BODY = { 'content-type': 'application/json' }
  const orders: string[] = []
  test('any If-Match and If-None-Match on /pesanan/<id> and POST /pesanan/<id>/bayar', () =>
    conditionalHeadersProperty({
      app: () => testApp(),
      async items(app) {
        // A new order per run, so some are always waiting to be paid; the last four are picked.
        const payload = { email: 'p@x.id', jumlah: 1 }
        const made = await call(app, {
          method: 'POST',
          url: '/pesanan',
          headers: JSON_BODY,
          payload,
        })
        orders.push(String(made.headers.location))
        return orders.slice(-4)
      },
      missing: '/pesanan/999999',
      targets: [
        { method: 'GET', kind: 'read' },
        { method: 'POST', url: (item) => `${item}/bayar`, kind: 'guarded' },
      ],
      preconditionFailed: e2PreconditionFailed,
    }))

  test('any If-Match and If-None-Match on /dokumen/<id>, GET and DELETE', () =>
    conditionalHeadersProperty({
      app: () =>
        testApp({
          seed: {
            ...demoSeed,
            dokumen: Array.from({ length: 120 }, (_, i) => ({ judul: `D${i}`, pemilik: 'budi' })),
          },
        }),
      async items(app) {
        const list = await call(app, {
          url: '/dokumen',
          headers: { authorization: `Bearer ${ADMIN}` },
        })
        return (list.json().data as { id: number }[]).map(({ id }) => `/dokumen/${id}`)
      },
      missing: '/dokumen/999',
      headers: { authorization: `Bearer ${ADMIN}` },
      targets: [
        { method: 'GET', kind: 'read' },
        { method: 'DELETE', kind: 'guarded' },
      ],
      preconditionFailed: e2PreconditionFailed,
    }))

  test('any If-None-Match on /users/<id> and /produk/<id>', () =>
    conditionalHeadersProperty({
      async app() {
        const app = await testApp()
        for (const n of [1, 2, 3]) {
          const payload = { name: 'Ani', email: `a${n}@x.id`, password: 'rahasia-sekali' }
          await call(app, { method: 'POST', url: '/users', headers: JSON_BODY, payload })
        }
        return app
      },
      async items(app) {
        const users = (await call(app, { url: '/users' })).json().data as { id: number }[]
        return [...users.map(({ id }) => `/users/${id}`), '/produk/1', '/produk/2']
      },
      missing: '/produk/999',
      targets: [{ method: 'GET', kind: 'read' }],
      preconditionFailed: e2PreconditionFailed,
    }))
})
