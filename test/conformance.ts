// Checks a response received by a test against the published OpenAPI document.

import { AssertionError } from 'node:assert/strict'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'

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

/** Surface E is outside the document it publishes. */
const UNCHECKED = new Set(['GET /openapi.json'])

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function child(value: unknown, key: string): unknown {
  return isObject(value) && Object.hasOwn(value, key) ? value[key] : undefined
}

/** One JSON pointer token, escaped for use in a URI fragment. */
function pointerToken(token: string): string {
  return encodeURIComponent(token.replaceAll('~', '~0').replaceAll('/', '~1'))
}

interface CompiledTemplate {
  path: string
  segments: ({ literal: string } | { pattern: RegExp })[]
  item: Json
}

/**
 * A path parameter matches one segment. A parameter documented as an integer matches digits
 * only: any other segment names no operation (the service answers its generic 404).
 */
function parameterPattern(item: Json, name: string, method?: Json): RegExp {
  const declared = [child(method, 'parameters'), child(item, 'parameters')]
    .flatMap((list) => (Array.isArray(list) ? list : []))
    .find((p) => child(p, 'in') === 'path' && child(p, 'name') === name)
  const schema = child(declared, 'schema')
  const type = child(schema, 'type')
  if (type === 'integer') return /^[0-9]+$/
  const pattern = child(schema, 'pattern')
  if (typeof pattern === 'string') return new RegExp(pattern, 'u')
  return /^[^/]+$/
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
          : { pattern: parameterPattern(item, parameter, firstOperation) }
      })
    return [{ path, segments, item }]
  })
}

function describeBody(body: string): string {
  return body.length > 300 ? `${JSON.stringify(body.slice(0, 300))}...` : JSON.stringify(body)
}

/**
 * Returns a checker bound to `document` (the body of GET /openapi.json). The checker throws an
 * AssertionError naming the request when the response does not match what the document says.
 */
export function conformanceChecker(
  document: Record<string, unknown>,
): (request: SeenRequest, response: SeenResponse) => void {
  const paths = child(document, 'paths')
  if (!isObject(paths)) throw new TypeError('the OpenAPI document has no paths object')
  const templates = compileTemplates(paths)
  const prefixes = (Array.isArray(document.servers) ? document.servers : [])
    .map((server) => child(server, 'url'))
    .filter((url): url is string => typeof url === 'string' && url.startsWith('/'))
    .map((url) => url.replace(/\/+$/, ''))
    .filter((url) => url !== '')

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
   * The decoded segments of the path relative to the document (the server prefix stripped), or
   * undefined when a segment cannot be decoded. Segments are decoded one by one, as the router
   * does: `%2F` stays inside its segment.
   */
  function segmentsOf(url: string): string[] | undefined {
    const path = url.replace(/[?#].*$/s, '')
    if (!path.startsWith('/')) return undefined
    let segments: string[]
    try {
      segments = path.split('/').slice(1).map(decodeURIComponent)
    } catch {
      return undefined
    }
    for (const prefix of prefixes) {
      const head = prefix.split('/').slice(1)
      if (head.every((segment, i) => segments[i] === segment)) return segments.slice(head.length)
    }
    return segments
  }

  function match(url: string): CompiledTemplate | undefined {
    const segments = segmentsOf(url)
    if (segments === undefined) return undefined
    return templates.find(
      (template) =>
        template.segments.length === segments.length &&
        template.segments.every((expected, i) => {
          const actual = segments[i] ?? ''
          return 'literal' in expected
            ? expected.literal === actual
            : actual !== '' && expected.pattern.test(actual)
        }),
    )
  }

  return (request, response) => {
    const method = request.method.toUpperCase()
    if (method === 'HEAD') return
    const path = request.url.replace(/[?#].*$/s, '')
    if (UNCHECKED.has(`${method} ${path}`)) return

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

    const template = match(request.url)
    const operation = template && child(template.item, method.toLowerCase())
    if (template === undefined || !isObject(operation)) {
      // Nothing documented answers this: the service's generic E1 404.
      if (statusCode !== 404) {
        fail(
          `the operation is not documented, so 404 TIDAK_ADA was expected${
            template ? ` (${template.path} has no ${method})` : ''
          }`,
        )
      }
      const parsed = parseJson()
      const error = child(parsed, 'error')
      if (!isObject(parsed) || Object.keys(parsed).join() !== 'error' || !isObject(error)) {
        fail('the body is not an E1 error { error: { kode, pesan } }')
      }
      if (child(error, 'kode') !== 'TIDAK_ADA') fail('error.kode is not TIDAK_ADA')
      if (typeof child(error, 'pesan') !== 'string') fail('error.pesan is not a string')
      if (child(error, 'detail') !== undefined) fail('a 404 carries error.detail')
      return
    }

    const where = `${method.toLowerCase()} ${template.path}`
    const responses = child(operation, 'responses')
    const status = String(statusCode)
    const key = [status, `${status[0]}XX`, 'default'].find((k) => isObject(child(responses, k)))
    if (key === undefined) {
      const listed = isObject(responses) ? Object.keys(responses).join(', ') : 'none'
      return fail(`status ${statusCode} is not documented for ${where} (documented: ${listed})`)
    }
    const documented = child(responses, key)

    const documentedHeaders = child(documented, 'headers')
    if (isObject(documentedHeaders)) {
      for (const [name, header] of Object.entries(documentedHeaders)) {
        // Only Location is checked; other headers are optional unless marked required.
        const required = name.toLowerCase() === 'location' || child(header, 'required') === true
        if (required && headers[name.toLowerCase()] === undefined) {
          fail(`the ${name} header documented for ${where} ${key} is missing`)
        }
      }
    }

    const content = child(documented, 'content')
    const jsonMedia = isObject(content) ? child(content, 'application/json') : undefined
    if (!isObject(content) || Object.keys(content).length === 0) {
      if (body !== '') fail(`${where} ${key} documents no content, but the body is not empty`)
      return
    }
    if (!isObject(jsonMedia)) return
    const parsed = parseJson()
    if (child(jsonMedia, 'schema') === undefined) return
    const validate = validatorAt([
      'paths',
      template.path,
      method.toLowerCase(),
      'responses',
      key,
      'content',
      'application/json',
      'schema',
    ])
    if (!validate(parsed)) {
      const errors = (validate.errors ?? [])
        .map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`)
        .join('; ')
      fail(`the body does not match the ${where} ${key} schema: ${errors}`)
    }
  }
}
