// The operations of /openapi.json that take a request body, as a client would send them: the URL
// the document gives (its server's prefix, every path parameter 1), the credential the
// operation takes, the lowest success it documents, and the body schema's place in the document.
// Used by test/surfaces/openapi/request-bodies.test.ts.
import type { FastifyInstance, InjectOptions } from 'fastify'
import { serverPath } from './conformance.js'
import { testApp } from './helpers.js'
import { EVERY_VARIANT, type Variants } from './variants.js'

type Json = Record<string, unknown>

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch']
const JSON_MEDIA = 'application/json'

/** The demo data's admin token: it may call every credentialed operation. */
const ADMIN_TOKEN = 'demo-admin-token'

/**
 * The id every path parameter is given: the demo data's first task; surfaces B and C have no
 * item until their create, which the document lists before the item's path.
 */
export const SAMPLE_ID = '1'

export interface BodyOperation {
  /** `POST /v1/tugas`, as sent. */
  name: string
  method: string
  url: string
  /** The JSON Pointer tokens of the body's schema in the document. */
  schemaPointer: string[]
  example: unknown
  /** The lowest 2xx the operation documents. */
  success: number
  headers: Record<string, string>
  /** The same for the same operation in any configuration: its path, method and description. */
  key: string
}

const asObject = (value: unknown): Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {}

/** The headers of the first credential `operation` takes, the admin's; none for an open one. */
function credentialFor(document: Json, operation: Json): Record<string, string> {
  const [requirement] = (operation.security ?? []) as Json[]
  const [scheme] = Object.keys(requirement ?? {})
  if (scheme === undefined) return {}
  const defined = asObject(asObject(asObject(document.components).securitySchemes)[scheme])
  if (defined.type === 'http' && defined.scheme === 'bearer') {
    return { authorization: `Bearer ${ADMIN_TOKEN}` }
  }
  if (defined.type === 'apiKey' && defined.in === 'header') {
    return { [String(defined.name).toLowerCase()]: ADMIN_TOKEN }
  }
  throw new Error(`${scheme}: a security scheme this helper cannot send`)
}

/** Every operation of `document` with a request body, in document order. */
export function bodyOperations(document: Json): BodyOperation[] {
  const paths = asObject(document.paths)
  return Object.entries(paths).flatMap(([path, item]) =>
    HTTP_METHODS.flatMap((method) => {
      const operation = asObject(asObject(item)[method])
      if (operation.requestBody === undefined) return []
      const servers = (operation.servers ?? asObject(item).servers ?? document.servers) as Json[]
      const prefix = (serverPath(servers[0]) ?? '').replace(/\/+$/, '')
      const url = prefix + path.replace(/\{[^}]+\}/g, SAMPLE_ID)
      const media = asObject(asObject(asObject(operation.requestBody).content)[JSON_MEDIA])
      const statuses = Object.keys(asObject(operation.responses)).map(Number)
      return [
        {
          name: `${method.toUpperCase()} ${url}`,
          method: method.toUpperCase(),
          url,
          schemaPointer: ['paths', path, method, 'requestBody', 'content', JSON_MEDIA, 'schema'],
          example: media.example,
          success: Math.min(...statuses.filter((status) => status >= 200 && status < 300)),
          headers: { 'content-type': JSON_MEDIA, ...credentialFor(document, operation) },
          key: JSON.stringify([url, method, operation]),
        },
      ]
    }),
  )
}

/** `operation` sending `body` written as JSON. */
export function sending(operation: BodyOperation, body: unknown): InjectOptions & { url: string } {
  return {
    method: operation.method as InjectOptions['method'],
    url: operation.url,
    headers: operation.headers,
    payload: JSON.stringify(body),
  }
}

export const nameOf = (variants: Variants) => Object.values(variants).join(', ')

export interface Configuration {
  variants: Variants
  document: Json
  /** Its body operations that no configuration before it in EVERY_VARIANT has. */
  operations: BodyOperation[]
}

/**
 * The configurations of EVERY_VARIANT that have a body operation none before them has, each with
 * those operations: TUGAS_VERSIONING and PRODUK_VERSIONING change no body, so a handful instead
 * of 24. `documents` receives every configuration's document.
 */
export async function distinctBodyOperations(documents?: Json[]): Promise<Configuration[]> {
  const seen = new Set<string>()
  const distinct: Configuration[] = []
  for (const variants of EVERY_VARIANT) {
    const app = await testApp({ config: variants, closedBy: 'caller' })
    const document = (await app.inject({ url: '/openapi.json' })).json() as Json
    await app.close()
    documents?.push(document)
    const operations = bodyOperations(document).filter((operation) => !seen.has(operation.key))
    for (const { key } of operations) seen.add(key)
    if (operations.length > 0) distinct.push({ variants, document, operations })
  }
  return distinct
}

/** A fresh app of `configuration`, closed by the test that builds it. */
export function freshApp({ variants }: Configuration): Promise<FastifyInstance> {
  return testApp({ config: variants })
}
