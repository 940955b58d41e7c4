// `npm run postman`: writes the Postman collection and environment of docs/postman/ from the
// /openapi.json of the default configuration (docs/client.md#a-ready-made-postman-collection-docspostman). The collection is
// converted by Portman (openapi-to-postmanv2 underneath) with its contract tests on every
// operation; what Portman is told (which create's id each path variable takes, the order the
// requests run in) is derived here from the document, so a new operation is covered without
// editing this file. The test test/surfaces/openapi/postman-collection.test.ts makes the same
// files in memory, fails when they differ from the committed ones, and runs the collection with
// Newman against a fresh service.

import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { servedDocument } from './served-document.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** Where the files are committed, relative to the repository root. */
export const COLLECTION_PATH = 'docs/postman/tugas.postman_collection.json'
export const ENVIRONMENT_PATH = 'docs/postman/tugas.postman_environment.json'

/** The origin the collection and environment point at: `npm start` on its default port. */
export const LOCAL_ORIGIN = 'http://localhost:8080'

type Json = Record<string, unknown>

/** The methods an OpenAPI path item may hold operations for. */
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

export interface Operation {
  method: string
  path: string
  operation: Json
}

/** Every operation of `document`, in its order: the method (upper case), the path, the object. */
export function operationsOf(document: Json): Operation[] {
  return Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([key]) => HTTP_METHODS.includes(key))
      .map(([method, operation]) => ({
        method: method.toUpperCase(),
        path,
        operation: operation as Json,
      })),
  )
}

/** Whether the operation answers a stream (`GET /events`), which never ends. */
function streams(operation: Json): boolean {
  const responses = Object.values(operation.responses as Record<string, Json>)
  return responses.some((response) => 'text/event-stream' in ((response.content as Json) ?? {}))
}

/**
 * The operations the collection holds: every one but the streams, which a collection runner
 * (Newman) would wait on for ever (docs/client.md#a-ready-made-postman-collection-docspostman).
 */
export function collectedOperations(document: Json): Operation[] {
  return operationsOf(document).filter(({ operation }) => !streams(operation))
}

/** `document` without its stream operations (collectedOperations). */
function withoutStreams(document: Json): Json {
  const paths = Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) => {
    const kept = Object.fromEntries(
      Object.entries(item).filter(
        ([key, value]) => !HTTP_METHODS.includes(key) || !streams(value as Json),
      ),
    )
    return Object.keys(kept).some((key) => HTTP_METHODS.includes(key)) ? [[path, kept]] : []
  })
  const used = new Set(
    paths.flatMap(([, item]) =>
      Object.values(item as Json).flatMap((value) => ((value as Json).tags as string[]) ?? []),
    ),
  )
  const tags = (document.tags as Json[] | undefined)?.filter((tag) => used.has(tag.name as string))
  return { ...document, paths: Object.fromEntries(paths), ...(tags && { tags }) }
}

/** `/tugas/{id}/komentar` → `tugasKomentarId`: the variable holding the id of what a POST there made. */
function idVariable(collectionPath: string): string {
  const words = collectionPath
    .split('/')
    .filter((segment) => segment !== '' && !segment.startsWith('{'))
    .map((word, i) => (i === 0 ? word : word[0]?.toUpperCase() + word.slice(1)))
  return `${words.join('')}Id`
}

/** A schema with its `$ref` to a component followed. */
function resolved(document: Json, schema: unknown): Json | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined
  const ref = (schema as Json).$ref
  if (typeof ref !== 'string') return schema as Json
  const name = ref.replace('#/components/schemas/', '')
  return resolved(document, ((document.components as Json).schemas as Json)[name])
}

/** Where the id of the created item is in a create's success body: `id` or `data.id`. */
function createdIdProperty(document: Json, operation: Json): string | undefined {
  const responses = operation.responses as Record<string, Json>
  const success = Object.keys(responses)
    .filter((status) => /^2\d\d$/.test(status))
    .sort()[0]
  if (success === undefined) return undefined
  const content = responses[success]?.content as Record<string, Json> | undefined
  const body = resolved(document, content?.['application/json']?.schema)
  const properties = body?.properties as Json | undefined
  if (properties?.id !== undefined) return 'id'
  const data = resolved(document, properties?.data)?.properties as Json | undefined
  return data?.id !== undefined ? 'data.id' : undefined
}

/**
 * Fails on a parameter or body without an example: the converter would make up a value, a new
 * one on every run (so the committed file would never match), and one the service may refuse.
 */
function requireExamples(method: string, path: string, operation: Json): void {
  for (const parameter of (operation.parameters ?? []) as Json[]) {
    if (parameter.example === undefined) {
      throw new Error(`${method} ${path}: the parameter ${parameter.name} has no example`)
    }
  }
  const content = (operation.requestBody as Json | undefined)?.content as Json | undefined
  for (const [media, body] of Object.entries(content ?? {})) {
    if ((body as Json).example === undefined) {
      throw new Error(`${method} ${path}: the ${media} body has no example`)
    }
  }
}

/**
 * What Portman is told: the contract tests of every operation; which variable each create's id
 * is kept in (`assignVariables`); which variable, or else the documented example, each path
 * variable takes (`overwrites`); and an order in which every request can succeed: the document's,
 * with the deletes last, the items' before those of the collections holding them.
 */
export function portmanConfig(document: Json): Json {
  const operations = operationsOf(document)
  for (const { method, path, operation } of operations) requireExamples(method, path, operation)
  const creates = new Map<string, string>()
  const assignVariables: Json[] = []
  for (const { method, path, operation } of operations) {
    const property = method === 'POST' ? createdIdProperty(document, operation) : undefined
    if (property === undefined || path.endsWith('}')) continue
    creates.set(path, idVariable(path))
    assignVariables.push({
      openApiOperationId: operation.operationId,
      collectionVariables: [{ responseBodyProp: property, name: idVariable(path) }],
    })
  }
  const overwrites: Json[] = []
  for (const { method, path, operation } of operations) {
    const parameters = ((operation.parameters ?? []) as Json[]).filter((p) => p.in === 'path')
    if (parameters.length === 0) continue
    const values = parameters.map((parameter) => {
      const name = String(parameter.name)
      const collection = path.slice(0, path.indexOf(`{${name}}`) - 1)
      const variable = creates.get(collection)
      if (variable !== undefined) return { key: name, value: `{{${variable}}}`, overwrite: true }
      if (parameter.example === undefined) {
        throw new Error(`${method} ${path}: {${name}} has neither a create nor an example`)
      }
      return { key: name, value: String(parameter.example), overwrite: true }
    })
    overwrites.push({
      openApiOperationId: operation.operationId,
      overwriteRequestPathVariables: values,
    })
  }
  const key = ({ method, path }: Operation) => `${method}::${path}`
  const deletes = operations.filter(({ method }) => method === 'DELETE').reverse()
  return {
    version: 1.0,
    tests: {
      contractTests: [
        {
          openApiOperation: '*::/*',
          statusSuccess: { enabled: true },
          contentType: { enabled: true },
          jsonBody: { enabled: true },
          schemaValidation: { enabled: true },
          headersPresent: { enabled: true },
        },
      ],
    },
    assignVariables,
    overwrites,
    globals: {
      stripResponseExamples: true,
      orderOfOperations: [
        ...operations.filter(({ method }) => method !== 'DELETE').map(key),
        ...deletes.map(key),
      ],
    },
  }
}

/** The options openapi-to-postmanv2 converts with: values from the document's examples. */
const POSTMAN_CONFIG = {
  folderStrategy: 'Tags',
  parametersResolution: 'Example',
  requestParametersResolution: 'Example',
  exampleParametersResolution: 'Example',
  keepImplicitHeaders: true,
  enableOptionalParameters: false,
}

/** The collection without the ids Postman gives on import (random on every conversion). */
function withoutIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutIds)
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'id' && key !== '_postman_id' && key !== '_')
      .map(([key, item]) => [key, withoutIds(item)]),
  )
}

/** The demo seed's admin secret: what the environment sends as `bearerToken` and `apiKey`. */
function demoAdminSecret(): string {
  const seed = JSON.parse(readFileSync(join(ROOT, 'data', 'demo-seed.json'), 'utf8'))
  const credentials = Object.entries(seed.credentials as Record<string, { peran: string }>)
  const admin = credentials.find(([, credential]) => credential.peran === 'admin')
  if (admin === undefined) throw new Error('data/demo-seed.json has no admin credential')
  return admin[0]
}

/** The Postman environment: where the service is, and the demo admin's credential. */
export function postmanEnvironment(): Json {
  const secret = demoAdminSecret()
  const value = (key: string, text: string, type: string) => ({
    key,
    value: text,
    type,
    enabled: true,
  })
  return {
    name: 'tugas: local demo service',
    values: [
      value('origin', LOCAL_ORIGIN, 'default'),
      value('bearerToken', secret, 'secret'),
      value('apiKey', secret, 'secret'),
    ],
    _postman_variable_scope: 'environment',
  }
}

const PORTMAN = join(ROOT, 'node_modules', '.bin', 'portman')

/** The collection Portman makes of `document`, ids left out. */
export async function postmanCollection(served: Json): Promise<Json> {
  const document = withoutStreams(served)
  const dir = await mkdtemp(join(tmpdir(), 'tugas-postman-'))
  try {
    const file = (name: string, content: unknown) =>
      writeFile(join(dir, name), JSON.stringify(content, null, 2)).then(() => join(dir, name))
    const args = [
      ['--local', await file('openapi.json', document)],
      ['--portmanConfigFile', await file('portman-config.json', portmanConfig(document))],
      ['--postmanConfigFile', await file('postman-config.json', POSTMAN_CONFIG)],
      ['--output', join(dir, 'collection.json')],
      ['--includeTests', 'true'],
      ['--runNewman', 'false'],
    ].flat()
    // In its own directory: Portman reads a `.env` from where it runs.
    await promisify(execFile)(PORTMAN, args, { cwd: dir })
    return withoutIds(JSON.parse(await readFile(join(dir, 'collection.json'), 'utf8'))) as Json
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** Both files' text, by path, as committed. */
export async function postmanFiles(): Promise<Record<string, string>> {
  const document = await servedDocument(new URL(LOCAL_ORIGIN).host)
  const text = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`
  return {
    [COLLECTION_PATH]: text(await postmanCollection(document)),
    [ENVIRONMENT_PATH]: text(postmanEnvironment()),
  }
}

async function main() {
  for (const [path, text] of Object.entries(await postmanFiles())) {
    await writeFile(join(ROOT, path), text)
    process.stdout.write(`wrote ${path} (${text.length} characters)\n`)
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main()
}
