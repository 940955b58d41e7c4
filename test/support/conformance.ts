// Checks a response received by a test against the published OpenAPI document.

import { AssertionError } from 'node:assert/strict'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import { segmentAsRead } from './property-kit.js'

export interface SeenRequest {
  method: string
  url: string
}

export interface SeenResponse {
  statusCode: number
  headers: Record<string, unknown>
  body: string
}

type Json = Record<string, unknown>

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const

/** The `$id` the document is registered under, so that its `#/components/...` refs resolve. */
const DOCUMENT_ID = 'tugas-openapi-document'

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function child(value: unknown, key: string): unknown {
  return isObject(value) && Object.hasOwn(value, key) ? value[key] : undefined
}

/** One JSON pointer token, escaped for use in a URI fragment. */
export function pointerToken(token: string): string {
  return encodeURIComponent(token.replaceAll('~', '~0').replaceAll('/', '~1'))
}

/** A path parameter's segment: which segments it matches, and which of them are its values. */
interface ParameterSegment {
  name: string
  pattern: RegExp
  isValue: (segment: string) => boolean
}

interface CompiledTemplate {
  path: string
  segments: ({ literal: string } | ParameterSegment)[]
  item: Json
}

/** Whether a segment is an integer (a sign and digits) within the bounds of `schema`. */
function integerIn(schema: unknown): (segment: string) => boolean {
  const minimum = child(schema, 'minimum')
  const maximum = child(schema, 'maximum')
  return (segment) => {
    if (!/^[+-]?[0-9]+$/.test(segment)) return false
    const value = Number(segment)
    return (
      (typeof minimum !== 'number' || value >= minimum) &&
      (typeof maximum !== 'number' || value <= maximum)
    )
  }
}

/**
 * A path parameter matches one segment, whatever it holds once decoded: an empty one too
 * (`/users/` is `/users/{id}` with the id ''), and a `/` sent as `%2F`. A parameter documented
 * as an integer matches any segment too, but only an integer of its schema is one of its
 * values: a request with any other segment is outside what the document describes, and must
 * be refused (a 4xx of the operation: surfaces B to D answer 400, surface A, whose routes match
 * digits only, the generic 404).
 */
function parameterSegment(item: Json, name: string, method?: Json): ParameterSegment {
  const declared = [child(method, 'parameters'), child(item, 'parameters')]
    .flatMap((list) => (Array.isArray(list) ? list : []))
    .find((p) => child(p, 'in') === 'path' && child(p, 'name') === name)
  const schema = child(declared, 'schema')
  const any = /^[\s\S]*$/
  if (child(schema, 'type') === 'integer') return { name, pattern: any, isValue: integerIn(schema) }
  const pattern = child(schema, 'pattern')
  return {
    name,
    pattern: typeof pattern === 'string' ? new RegExp(pattern, 'u') : any,
    isValue: () => true,
  }
}

function compileTemplates(paths: Json): CompiledTemplate[] {
  return Object.entries(paths).flatMap(([path, item]) => {
    if (!isObject(item)) return []
    const firstOperation = METHODS.map((m) => child(item, m)).find(isObject)
    const segments = path
      .split('/')
      .slice(1)
      .map((segment) => {
        const parameter = /^\{([^}]+)\}$/.exec(segment)?.[1]
        return parameter === undefined
          ? { literal: segment }
          : parameterSegment(item, parameter, firstOperation)
      })
    return [{ path, segments, item }]
  })
}

function describeBody(body: string): string {
  return body.length > 300 ? `${JSON.stringify(body.slice(0, 300))}...` : JSON.stringify(body)
}

type Checker = (request: SeenRequest, response: SeenResponse) => void

/** The checker of each document met in this process, by the document's JSON text. */
const checkers = new Map<string, Checker>()

/**
 * Returns a checker bound to `document` (the body of GET /openapi.json). The checker throws an
 * AssertionError naming the request when the response does not match what the document says.
 * One checker per distinct document: many apps of one configuration serve the same document,
 * whose schemas are then compiled once per test file, not once per app. It is made from a copy
 * of the document, so a caller that changes its document afterwards changes no checker.
 */
export function conformanceChecker(document: Record<string, unknown>): Checker {
  const text = JSON.stringify(document)
  let checker = checkers.get(text)
  if (checker === undefined) {
    checker = compileChecker(JSON.parse(text))
    checkers.set(text, checker)
  }
  return checker
}

function compileChecker(document: Record<string, unknown>): Checker {
  const paths = child(document, 'paths')
  if (!isObject(paths)) throw new TypeError('the OpenAPI document has no paths object')
  const templates = compileTemplates(paths)
  const documentPrefixes = prefixesOf(document.servers) ?? [[]]
  let ajv: Ajv2020 | undefined
  const validators = new Map<string, ValidateFunction>()

  /** The validator of the schema at `pointer` in the document, compiled once. */
  function validatorAt(pointer: string[]): ValidateFunction {
    const ref = `${DOCUMENT_ID}#/${pointer.map(pointerToken).join('/')}`
    let validate = validators.get(ref)
    if (validate === undefined) {
      if (ajv === undefined) {
        // OpenAPI keywords Ajv does not know (example, discriminator, xml...) are annotations.
        ajv = new Ajv2020({ strict: false, allErrors: true, logger: false })
        ajv.addSchema(document, DOCUMENT_ID)
      }
      validate = ajv.compile({ $ref: ref })
      validators.set(ref, validate)
    }
    return validate
  }

  /**
   * Where an operation is served: its own `servers`, else its path item's, else the document's
   * (whose paths the service also serves without the prefix: surface A at the root).
   */
  function prefixesFor(item: Json, operation: Json): string[][] {
    return (
      prefixesOf(child(operation, 'servers')) ??
      prefixesOf(child(item, 'servers')) ?? [...documentPrefixes, []]
    )
  }

  type Match =
    /** `outside`: the parameters whose segment is not one of their values. */
    | { template: CompiledTemplate; operation: Json; outside: string[] }
    | { template: CompiledTemplate; allowed: string[] }

  /**
   * The documented operation answering `method` at `url`; or, when the path is documented but
   * not for that method, the methods that are; undefined when nothing documented matches. A
   * path whose every parameter holds one of its values comes first.
   */
  function match(segments: string[], method: string): Match | undefined {
    return matchWhere(segments, method, true) ?? matchWhere(segments, method, false)
  }

  /** `match` among the paths that fit, or (`valuesOnly`) those whose parameters hold values. */
  function matchWhere(segments: string[], method: string, valuesOnly: boolean) {
    let other: { template: CompiledTemplate; allowed: string[] } | undefined
    for (const template of templates) {
      for (const name of METHODS) {
        const operation = child(template.item, name)
        if (!isObject(operation)) continue
        const outside = prefixesFor(template.item, operation)
          .map((prefix) => fits(template, segments, prefix))
          .find((names) => names !== undefined && (!valuesOnly || names.length === 0))
        if (outside === undefined) continue
        if (name === method.toLowerCase()) return { template, operation, outside }
        other ??= { template, allowed: [] }
        other.allowed.push(name.toUpperCase())
      }
    }
    return other
  }

  const unknownPaths = Object.entries(child(document, 'x-unknown-paths') ?? {}).map(
    ([prefix, documented]) => ({ prefix, segments: segmentsOf(prefix) ?? [], documented }),
  )

  return (request, response) => {
    const method = request.method.toUpperCase()
    if (method === 'HEAD') return

    const { statusCode, headers, body } = response
    const fail = (what: string): never => {
      throw new AssertionError({
        message: `${method} ${request.url} answered ${statusCode}: ${what}; body ${describeBody(body)}`,
      })
    }
    const contentType = headers['content-type']
    const parseJson = (): unknown => {
      if (typeof contentType !== 'string' || !/^application\/json\b/i.test(contentType)) {
        fail(`content-type ${JSON.stringify(contentType)} is not application/json`)
      }
      try {
        return JSON.parse(body)
      } catch {
        return fail('the body is not valid JSON')
      }
    }

    /**
     * Throws unless the response is the Response Object at `pointer`: its required headers (and
     * Location), and a body of one of its media types (the one the Content-Type names, checked
     * against its schema), or an empty body when it documents none.
     */
    const conform = (pointer: string[], where: string) => {
      const documented = pointer.reduce<unknown>(child, document)
      const documentedHeaders = child(documented, 'headers')
      if (isObject(documentedHeaders)) {
        for (const [name, header] of Object.entries(documentedHeaders)) {
          // Location and the headers marked required; the others are optional.
          const required = name.toLowerCase() === 'location' || child(header, 'required') === true
          if (required && headers[name.toLowerCase()] === undefined) {
            fail(`the ${name} header documented for ${where} is missing`)
          }
        }
      }
      const content = child(documented, 'content')
      if (!isObject(content) || Object.keys(content).length === 0) {
        if (body !== '') fail(`${where} documents no content, but the body is not empty`)
        return
      }
      const sent = String(contentType ?? '')
        .split(';', 1)[0]
        ?.trim()
        .toLowerCase()
      const mediaType = Object.keys(content).find((type) => type.toLowerCase() === sent)
      if (mediaType === undefined) {
        fail(
          `content-type ${JSON.stringify(contentType)} is not one of ${where}'s (${Object.keys(content).join(', ')})`,
        )
      }
      const media = child(content, mediaType as string)
      const value = mediaType === 'application/json' ? parseJson() : body
      if (child(media, 'schema') === undefined) return
      const validate = validatorAt([...pointer, 'content', mediaType as string, 'schema'])
      if (!validate(value)) {
        const errors = (validate.errors ?? [])
          .map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`)
          .join('; ')
        fail(`the body does not match the ${where} ${mediaType} schema: ${errors}`)
      }
    }

    const segments = segmentsOf(request.url)
    if (segments === undefined) return
    const found = match(segments, method)
    const expectServiceNotFound = () => {
      const parsed = parseJson()
      const error = child(parsed, 'error')
      if (!isObject(parsed) || Object.keys(parsed).join() !== 'error' || !isObject(error)) {
        fail('the body is not an E1 error { error: { kode, pesan } }')
      }
      if (child(error, 'kode') !== 'TIDAK_ADA') fail('error.kode is not TIDAK_ADA')
      if (typeof child(error, 'pesan') !== 'string') fail('error.pesan is not a string')
      if (child(error, 'detail') !== undefined) fail('a 404 carries error.detail')
    }
    if (found === undefined) {
      // Nothing documented answers this: the 404 documented for its prefix, or else the
      // service's generic E1 404.
      const below = unknownPaths
        .filter((entry) => entry.segments.every((segment, i) => segments[i] === segment))
        .sort((a, b) => b.segments.length - a.segments.length)[0]
      if (statusCode !== 404) fail('the operation is not documented, so 404 was expected')
      if (below === undefined) return expectServiceNotFound()
      return conform(['x-unknown-paths', below.prefix], `a path below ${below.prefix}`)
    }
    if ('allowed' in found) {
      // A documented path, another method: 405 with Allow naming the documented methods, as the
      // path's x-method-not-allowed says (the surfaces that have a 405), or the service's
      // generic 404 (surface A).
      const { allowed, template } = found
      if (statusCode === 404) return expectServiceNotFound()
      if (statusCode !== 405) {
        fail(`${template.path} has no ${method}: 405 or 404 was expected`)
      }
      const expected = new Set(allowed)
      if (expected.has('GET')) expected.add('HEAD')
      const allow = String(headers.allow ?? '')
        .split(',')
        .map((name) => name.trim())
      if (allow.sort().join() !== [...expected].sort().join()) {
        fail(`Allow ${JSON.stringify(headers.allow)} is not ${[...expected].sort().join(', ')}`)
      }
      if (child(template.item, 'x-method-not-allowed') === undefined) return
      return conform(['paths', template.path, 'x-method-not-allowed'], `${template.path} 405`)
    }
    const { template, operation, outside } = found
    const where = `${method.toLowerCase()} ${template.path}`
    if (outside.length > 0 && !status4xx(statusCode)) {
      const names = outside.map((name) => `{${name}}`).join(', ')
      fail(`this ${names} is not documented (not a value of its schema), so a 4xx was expected`)
    }
    const responses = child(operation, 'responses')
    const status = String(statusCode)
    const key = [status, `${status[0]}XX`, 'default'].find((k) => isObject(child(responses, k)))
    if (key === undefined) {
      const listed = isObject(responses) ? Object.keys(responses).join(', ') : 'none'
      return fail(`status ${statusCode} is not documented for ${where} (documented: ${listed})`)
    }
    conform(['paths', template.path, method.toLowerCase(), 'responses', key], `${where} ${key}`)
  }
}

/**
 * The path prefixes of a `servers` list, as segments (`/v1` and `{origin}/v1` are `['v1']`, `/`
 * and `{origin}` are `[]`).
 */
function prefixesOf(servers: unknown): string[][] | undefined {
  if (!Array.isArray(servers)) return undefined
  return servers
    .map(serverPath)
    .filter((path) => path !== undefined)
    .map((path) => path.split('/').filter((segment) => segment !== ''))
}

/**
 * A `servers` list as text, to compare in one assertion: each URL followed by the defaults of
 * its variables (`{origin}/v1 origin=http://localhost`). Undefined when it is not a list.
 */
export function serversAsText(servers: unknown): string[] | undefined {
  if (!Array.isArray(servers)) return undefined
  return servers.map((server) => {
    const variables = child(server, 'variables')
    const defaults = isObject(variables)
      ? Object.keys(variables).map((name) => `${name}=${child(variables[name], 'default')}`)
      : []
    return [String(child(server, 'url')), ...defaults].join(' ')
  })
}

/**
 * The path of a Server Object's URL, its variables at their defaults (`{origin}/v1` with the
 * default `http://localhost` is `/v1`; `/v1` is `/v1`); undefined for a server that is neither
 * absolute nor from the root once expanded.
 */
export function serverPath(server: unknown): string | undefined {
  const url = child(server, 'url')
  if (typeof url !== 'string') return undefined
  const variables = child(server, 'variables')
  const expanded = url.replace(/\{([^}]+)\}/g, (variable, name: string) => {
    const value = child(child(variables, name), 'default')
    return typeof value === 'string' ? value : variable
  })
  if (expanded.startsWith('/')) return expanded
  try {
    return new URL(expanded).pathname
  } catch {
    return undefined
  }
}

/**
 * The segments of a URL's path as the service reads them (`segmentAsRead`): segment by
 * segment, as the router does, so `%2F` stays inside its segment and an undecodable one is its
 * own text. Undefined for a target that is not a path.
 */
function segmentsOf(url: string): string[] | undefined {
  const path = url.replace(/[?#].*$/s, '')
  if (!path.startsWith('/')) return undefined
  return path.split('/').slice(1).map(segmentAsRead)
}

/**
 * Whether `segments` are `prefix` followed by the template's segments: undefined if not, else
 * the parameters whose segment is not one of their values (none: a request the document
 * describes).
 */
function fits(
  template: CompiledTemplate,
  segments: string[],
  prefix: string[],
): string[] | undefined {
  if (segments.length !== prefix.length + template.segments.length) return undefined
  if (!prefix.every((segment, i) => segments[i] === segment)) return undefined
  const outside: string[] = []
  for (const [i, expected] of template.segments.entries()) {
    const actual = segments[prefix.length + i] ?? ''
    if ('literal' in expected) {
      if (expected.literal !== actual) return undefined
    } else if (!expected.pattern.test(actual)) return undefined
    else if (!expected.isValue(actual)) outside.push(expected.name)
  }
  return outside
}

const status4xx = (statusCode: number) => statusCode >= 400 && statusCode <= 499
