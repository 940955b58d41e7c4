// /openapi.json imports cleanly into Postman: openapi-to-postmanv2, the converter Postman and
// Portman use (both its interfaces, `convert` and `convertV2`), makes a collection with one
// request per operation, each with an absolute URL built on the collection variable `origin`
// (the document's server variable). With `origin` pointed at a live service, every request is
// the operation it was made from, at the URL the document gives it (surface A under `/v1`,
// everything else from the root), and reaches that operation's route: not the "no such path"
// answer, not a 405, and an answer that conforms to the document. In the configurations that
// change which operations the document lists and where (TUGAS_VERSIONING, TODOS_VARIANT, with
// PRODUK_VERSIONING and USERS_VARIANT each way too).
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { type Callback, convert, convertV2, type Options } from 'openapi-to-postmanv2'
import { operationsOf } from '../../../scripts/postman.js'
import type { Config } from '../../../src/config.js'
import { conformanceChecker } from '../../support/conformance.js'
import { testApp } from '../../support/helpers.js'

type Json = Record<string, unknown>

const CONFIGURATIONS: Partial<Config>[] = [
  {},
  { tugasVersioning: 'path' },
  { tugasVersioning: 'header', produkVersioning: 'header', usersVariant: 'flat' },
  { todosVariant: 'priority' },
  { tugasVersioning: 'path', todosVariant: 'priority', usersVariant: 'flat' },
  { tugasVersioning: 'header', todosVariant: 'priority', produkVersioning: 'header' },
]

const nameOf = (config: Partial<Config>) =>
  Object.entries(config)
    .map(([key, value]) => `${key}=${value}`)
    .join(' ') || 'the default configuration'

const CONVERTERS: [string, typeof convert][] = [
  ['convert', convert],
  ['convertV2', convertV2],
]

/** What a user of the collection sets besides `origin`: a demo credential, for both schemes. */
const CREDENTIALS = { bearerToken: 'demo-admin-token', apiKey: 'demo-admin-token' }

/** The value every path variable (`:id`, `:kid`) is given. */
const SAMPLE_ID = '1'

/** Postman Collection v2.1, as much of it as a request needs. */
interface Variable {
  key: string
  value?: unknown
  disabled?: boolean
}
interface PostmanUrl {
  raw?: string
  protocol?: string
  host?: string[] | string
  port?: string
  path?: string[] | string
  query?: { key: string | null; value: string | null; disabled?: boolean }[]
  variable?: Variable[]
}
interface PostmanRequest {
  method: string
  url: PostmanUrl | string
  header?: Variable[]
  body?: { mode?: string; raw?: string }
  auth?: { type: string } & Record<string, unknown>
}
interface Item {
  name: string
  item?: Item[]
  request?: PostmanRequest
}
interface Collection {
  item: Item[]
  variable?: Variable[]
}

function converted(converter: typeof convert, document: Json): Promise<Collection> {
  const options: Options = {}
  return new Promise((resolve, reject) => {
    const done: Callback = (error, result) => {
      if (error) return reject(new Error(error.message))
      if (!result?.result) return reject(new Error(`not converted: ${result?.reason}`))
      const output = result.output?.[0]
      if (output?.type !== 'collection') return reject(new Error('no collection in the output'))
      resolve(output.data as Collection)
    }
    converter({ type: 'json', data: structuredClone(document) }, options, done)
  })
}

/** Every request of the collection, folders walked through, in order. */
function requestsOf(items: Item[]): { name: string; request: PostmanRequest }[] {
  return items.flatMap((item) =>
    item.item
      ? requestsOf(item.item)
      : item.request
        ? [{ name: item.name, request: item.request }]
        : [],
  )
}

/** `{{name}}` replaced by the value of `name`, again and again (`{{baseUrl}}` is `{{origin}}/v1`). */
function substitute(text: string, variables: Map<string, string>): string {
  let result = text
  for (let round = 0; round < 8 && /\{\{[^{}]+\}\}/.test(result); round++) {
    result = result.replace(
      /\{\{([^{}]+)\}\}/g,
      (whole, name: string) => variables.get(name) ?? whole,
    )
  }
  return result
}

const segments = (value: string[] | string | undefined) =>
  value === undefined ? [] : Array.isArray(value) ? value : value.split('/')

/**
 * A request's URL as Postman builds it: host, port, path (each `:name` path variable given
 * SAMPLE_ID), the enabled query parameters; variables not yet substituted.
 */
function urlTemplate(name: string, url: PostmanUrl | string): string {
  assert.ok(typeof url === 'object', `${name}: the URL is not an object: ${JSON.stringify(url)}`)
  const host = segments(url.host)
  const path = segments(url.path)
  assert.ok(
    host.length > 0 && host.every((part) => part !== ''),
    `${name}: no host: ${JSON.stringify(url)}`,
  )
  assert.ok(
    path.some((part) => part !== ''),
    `${name}: no path: ${JSON.stringify(url)}`,
  )
  const pathVariables = new Set((url.variable ?? []).map((variable) => variable.key))
  const pathText = path
    .map((part) => {
      if (!part.startsWith(':')) return part
      assert.ok(pathVariables.has(part.slice(1)), `${name}: ${part} is not a path variable`)
      return SAMPLE_ID
    })
    .join('/')
  const query = (url.query ?? [])
    .filter((parameter) => parameter.disabled !== true && parameter.key !== null)
    .map(
      (parameter) =>
        `${encodeURIComponent(parameter.key ?? '')}=${encodeURIComponent(parameter.value ?? '')}`,
    )
  return [
    url.protocol ? `${url.protocol}://` : '',
    host.join('.'),
    url.port ? `:${url.port}` : '',
    `/${pathText}`,
    query.length > 0 ? `?${query.join('&')}` : '',
  ].join('')
}

/** The collection's variables (a later duplicate wins, as in Postman), with `overrides`. */
function variablesOf(collection: Collection, overrides: Record<string, string>) {
  const variables = new Map<string, string>()
  for (const { key, value, disabled } of collection.variable ?? []) {
    if (disabled !== true) variables.set(key, String(value ?? ''))
  }
  for (const [key, value] of Object.entries(overrides)) variables.set(key, value)
  return variables
}

/** The headers Postman sends for a request: its enabled headers, and its auth as a header. */
function headersOf(name: string, request: PostmanRequest, variables: Map<string, string>) {
  const headers: Record<string, string> = {}
  for (const { key, value, disabled } of request.header ?? []) {
    if (disabled !== true) headers[key.toLowerCase()] = substitute(String(value ?? ''), variables)
  }
  const auth = request.auth
  if (auth) {
    const settings = new Map(
      ((auth[auth.type] ?? []) as Variable[]).map(({ key, value }) => [key, String(value ?? '')]),
    )
    if (auth.type === 'bearer') {
      headers.authorization = `Bearer ${substitute(settings.get('token') ?? '', variables)}`
    } else if (auth.type === 'apikey' && settings.get('in') === 'header') {
      headers[(settings.get('key') ?? '').toLowerCase()] = substitute(
        settings.get('value') ?? '',
        variables,
      )
    } else {
      assert.fail(`${name}: an auth Postman would send some other way: ${JSON.stringify(auth)}`)
    }
  }
  return headers
}

/** A Server Object's URL with its variables at their defaults. */
function serverUrl(server: Json): string {
  const variables = (server.variables ?? {}) as Record<string, Json>
  return String(server.url).replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const value = variables[name]?.default
    return typeof value === 'string' ? value : whole
  })
}

interface Answer {
  status: number
  body: string
}

for (const config of CONFIGURATIONS) {
  describe(`/openapi.json as a Postman collection, ${nameOf(config)}`, () => {
    let app: FastifyInstance
    let origin: string
    /** As fetched from the live service: the variable `origin` defaults to `origin`. */
    let served: Json
    /** As fetched with `Host: localhost`: `origin` must be set to reach the live service. */
    let elsewhere: Json
    /** "No such path" answers: the generic one, and the one below each `x-unknown-paths` prefix. */
    let unknown: { prefix: string; answer: Answer }[]

    const answerTo = async (path: string): Promise<Answer> => {
      const response = await fetch(`${origin}${path}`)
      return { status: response.status, body: await response.text() }
    }

    before(async () => {
      app = await testApp({ config, closedBy: 'caller' })
      await app.listen({ host: '127.0.0.1', port: 0 })
      origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
      served = (await (await fetch(`${origin}/openapi.json`)).json()) as Json
      elsewhere = (await app.inject({ method: 'GET', url: '/openapi.json' })).json()
      unknown = [{ prefix: '', answer: await answerTo('/no-such-endpoint') }]
      for (const prefix of Object.keys((served['x-unknown-paths'] ?? {}) as Json)) {
        unknown.push({ prefix, answer: await answerTo(`${prefix}/no-such-endpoint`) })
      }
      // Longest prefix first: the first that matches is the one a path falls under.
      unknown.sort((a, b) => b.prefix.length - a.prefix.length)
      assert.ok(
        unknown.every(({ answer }) => answer.status === 404),
        `the "no such path" answers are 404: ${JSON.stringify(unknown)}`,
      )
    })
    after(() => app.close())

    /** The "no such path" answer for `path`. */
    const unknownAt = (path: string): Answer => {
      const found = unknown.find(
        ({ prefix }) => prefix === '' || path === prefix || path.startsWith(`${prefix}/`),
      )
      assert.ok(found, `no "no such path" answer for ${path}`)
      return found.answer
    }

    test('the server variable origin defaults to where the document was fetched from', () => {
      const servers = served.servers as Json[]
      assert.equal(servers.length, 1)
      assert.equal((servers[0] as Json).url, '{origin}/v1')
      assert.equal(serverUrl(servers[0] as Json), `${origin}/v1`)
      for (const { method, path, operation } of operationsOf(served)) {
        for (const server of (operation.servers ?? []) as Json[]) {
          assert.match(serverUrl(server), new RegExp(`^${origin}(/|$)`), `${method} ${path}`)
        }
      }
      assert.equal(serverUrl((elsewhere.servers as Json[])[0] as Json), 'http://localhost/v1')
    })

    for (const [api, converter] of CONVERTERS) {
      test(`${api}: its collection defaults origin to the live service and builds every URL on it`, async () => {
        const collection = await converted(converter, served)
        const variables = variablesOf(collection, {})
        assert.equal(variables.get('origin'), origin)
        assert.equal(variables.get('baseUrl'), '{{origin}}/v1')
        // Every URL starts with `{{origin}}`, directly or through `{{baseUrl}}`: setting that one
        // variable points the whole collection at a deployment.
        const withoutOrigin = new Map([...variables].filter(([key]) => key !== 'origin'))
        for (const { name, request } of requestsOf(collection.item)) {
          const template = substitute(urlTemplate(name, request.url), withoutOrigin)
          assert.match(template, /^\{\{origin\}\}\//, `${request.method} ${name}: ${template}`)
        }
      })

      test(`${api}: one request per operation, each at the URL the document gives it`, async () => {
        // Fetched as another host would see it: the user points `origin` at the service.
        const collection = await converted(converter, elsewhere)
        const variables = variablesOf(collection, { origin, ...CREDENTIALS })
        const requests = requestsOf(collection.item)
        const operations = operationsOf(elsewhere)
        assert.equal(requests.length, operations.length, 'one request per operation')
        const expected = operations.map(({ method, path, operation }) => {
          const item = (elsewhere.paths as Record<string, Json>)[path] as Json
          const servers = (operation.servers ?? item.servers ?? elsewhere.servers) as Json[]
          const base = serverUrl(servers[0] as Json).replace('http://localhost', origin)
          return `${method} ${base}${path.replace(/\{[^}]+\}/g, SAMPLE_ID)}`
        })
        const made = requests.map(({ name, request }) => {
          const url = new URL(substitute(urlTemplate(name, request.url), variables))
          return `${request.method} ${url.origin}${url.pathname}`
        })
        assert.deepEqual(made.sort(), expected.sort())
      })

      test(`${api}: every request reaches its operation's route on the live service`, async () => {
        const collection = await converted(converter, elsewhere)
        const variables = variablesOf(collection, { origin, ...CREDENTIALS })
        const check = conformanceChecker(served)
        const requests = requestsOf(collection.item)
        assert.ok(requests.length > 0)
        for (const { name, request } of requests) {
          const template = urlTemplate(name, request.url)
          const text = substitute(template, variables)
          assert.doesNotMatch(text, /\{\{/, `${name}: a variable is left in ${text}`)
          const url = new URL(text)
          assert.equal(url.origin, origin, `${name}: ${text}`)
          const method = request.method.toUpperCase()
          const body =
            request.body?.mode === 'raw' && request.body.raw !== undefined
              ? substitute(request.body.raw, variables)
              : undefined
          const response = await fetch(url, {
            method,
            headers: headersOf(name, request, variables),
            ...(body !== undefined && method !== 'GET' && method !== 'HEAD' && { body }),
          })
          // A stream (GET /events) never ends: its answer is its status and headers.
          const stream = response.headers.get('content-type')?.startsWith('text/event-stream')
          if (stream) await response.body?.cancel()
          const answer = { status: response.status, body: stream ? '' : await response.text() }
          const what = `${method} ${url.pathname}${url.search} (${name}): ${answer.status} ${answer.body}`
          const none = unknownAt(url.pathname)
          assert.ok(
            answer.status !== none.status || answer.body !== none.body,
            `the "no such path" answer: ${what}`,
          )
          assert.notEqual(answer.status, 405, `the path does not serve the method: ${what}`)
          // The answer is one the operation documents, in its documented shape.
          check(
            { method, url: `${url.pathname}${url.search}` },
            {
              statusCode: answer.status,
              headers: Object.fromEntries(response.headers),
              body: answer.body,
            },
          )
        }
      })
    }
  })
}
