import type { TSchema } from 'typebox'
import type { OperationSpec, ResponseSpec } from '../../http/route-spec.js'

export interface DocumentOptions {
  info: {
    title: string
    version: string
    description: string
    contact: { name: string; email?: string; url?: string }
    license: { name: string; identifier: string }
  }
  /** Where the operations without their own `servers` are: paths from the service's root. */
  servers: { url: string; description?: string }[]
  /**
   * With it, every server URL (the document's, and a route's own `servers`: paths from the
   * service's root such as `/v1` and `/`) is published as `{<name>}<path>` (`{origin}/v1`,
   * `{origin}`) with this variable: the service's origin, set once by a client for every
   * operation. Without it, the paths are the URLs (relative to where the document is served).
   */
  origin?: { name: string; default: string; description: string }
  routes: OperationSpec[]
  /** Requests the service sends to its clients (OpenAPI 3.1 `webhooks`), by name. */
  webhooks?: Record<string, OperationSpec>
  /**
   * Named schemas; wherever a route uses one of these objects, the document says `$ref`. Only
   * those the published operations reach (directly or through another component) are listed.
   */
  components: Record<string, TSchema>
  /** Security schemes by name; a route's `security` lists the names it accepts (any one). */
  securitySchemes?: Record<string, Json>
  /** The groups routes name in `tags`, in the order the document lists them. */
  tags?: { name: string; description: string }[]
  /**
   * What a path no operation serves answers, by the path prefix it starts with (`/api`: the
   * path is `/api` or below it); published as `x-unknown-paths`. Elsewhere it is the generic 404.
   */
  unknownPaths?: Record<string, ResponseSpec>
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

/** The media type of each kind of body a response may have. */
const JSON_MEDIA = 'application/json'
const TEXT_MEDIA = 'text/plain'
const HTML_MEDIA = 'text/html'
const EVENT_STREAM_MEDIA = 'text/event-stream'

/**
 * Builds an OpenAPI 3.1.0 document from the same route table and schema objects that Fastify
 * serves, so what is published is what answers. Two extensions say what OpenAPI has no field
 * for: a path's `x-method-not-allowed` (its 405 for the methods it does not serve, with `Allow`)
 * and the document's `x-unknown-paths`.
 */
export function openApiDocument(options: DocumentOptions): Record<string, Json> {
  const { toJson, componentSchemas } = schemaWriter(options.components)

  const responseObject = (response: ResponseSpec): Json => {
    const content: Record<string, Json> = {
      ...(response.schema && { [JSON_MEDIA]: { schema: toJson(response.schema) } }),
      ...(response.text && { [TEXT_MEDIA]: { schema: toJson(response.text) } }),
      ...(response.html && { [HTML_MEDIA]: { schema: toJson(response.html) } }),
      ...(response.eventStream && { [EVENT_STREAM_MEDIA]: eventStreamMedia(response.eventStream) }),
    }
    return {
      description: response.description,
      ...(response.headers && {
        headers: Object.fromEntries(
          Object.entries(response.headers).map(([header, { description, schema, required }]) => [
            header,
            { description, ...(required && { required }), schema: toJson(schema) },
          ]),
        ),
      }),
      ...(Object.keys(content).length > 0 && { content }),
    }
  }

  /**
   * A Server-Sent Events body: OpenAPI 3.1 describes it as text; `x-events` gives the schema
   * of each event's data line by event name (`event:`), what OpenAPI 3.2 calls its items.
   */
  const eventStreamMedia = (events: Record<string, unknown>): Json => ({
    schema: {
      type: 'string',
      description:
        'Server-Sent Events (`id:`, `event:`, `data:` lines); each `data:` line is one JSON ' +
        'value, described by `x-events` under its event name.',
    },
    'x-events': Object.fromEntries(
      Object.entries(events).map(([name, schema]) => [name, toJson(schema)]),
    ),
  })

  /** The Server Object of the path `url` from the service's root (`/v1`, `/`). */
  const serverObject = (url: string, description?: string): Json => {
    const described: Record<string, Json> = description === undefined ? {} : { description }
    if (options.origin === undefined) return { url, ...described }
    const { name, ...variable } = options.origin
    // No trailing slash: the operation's path, which starts with one, is appended to the URL.
    return {
      url: `{${name}}${url.replace(/\/+$/, '')}`,
      ...described,
      variables: { [name]: variable },
    }
  }

  const operationObject = (route: OperationSpec): Record<string, Json> => {
    const responses = Object.fromEntries(
      Object.entries(route.responses).map(([status, response]) => [
        status,
        responseObject(response),
      ]),
    )
    const operation: Record<string, Json> = {
      ...(route.tags && { tags: route.tags }),
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description && { description: route.description }),
      ...(route.servers && { servers: route.servers.map((url) => serverObject(url)) }),
      // No `security` is an open operation: `[]` says so rather than leaving it unstated.
      // An empty requirement, `{}`, where a credential is optional (`none` among them).
      security: (route.security ?? []).map((name) => (name === 'none' ? {} : { [name]: [] })),
      ...(route.parameters && {
        parameters: route.parameters.map((parameter) => ({
          name: parameter.name,
          in: parameter.in,
          description: parameter.description,
          required: parameter.in === 'path' || parameter.required === true,
          schema: toJson(parameter.schema),
          ...(parameter.example !== undefined && { example: parameter.example as Json }),
        })),
      }),
      ...(route.body && {
        requestBody: {
          description: route.body.description,
          required: true,
          content: {
            [route.body.mediaType ?? JSON_MEDIA]: {
              schema: toJson(route.body.schema),
              ...(route.body.example !== undefined && { example: route.body.example as Json }),
            },
          },
        },
      }),
      responses,
    }
    return operation
  }

  const paths: Record<string, Record<string, Json>> = {}
  const notAllowed = new Map<string, Json>()
  for (const route of options.routes) {
    const operation = operationObject(route)
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operation }
    if (route.otherMethods) notAllowed.set(route.path, responseObject(route.otherMethods.response))
  }
  // After the operations of each path.
  for (const [path, response] of notAllowed) {
    paths[path] = { ...paths[path], 'x-method-not-allowed': response }
  }

  // OpenAPI 3.1 `webhooks`: requests the service sends, each a path item by name.
  const webhooks =
    options.webhooks &&
    Object.fromEntries(
      Object.entries(options.webhooks).map(([name, route]) => [
        name,
        { [route.method.toLowerCase()]: operationObject(route) },
      ]),
    )

  const unknownPaths =
    options.unknownPaths &&
    Object.fromEntries(
      Object.entries(options.unknownPaths).map(([prefix, response]) => [
        prefix,
        responseObject(response),
      ]),
    )

  return {
    openapi: '3.1.0',
    info: options.info,
    servers: options.servers.map(({ url, description }) => serverObject(url, description)),
    ...(options.tags && { tags: options.tags }),
    paths,
    ...(webhooks && { webhooks }),
    ...(unknownPaths && { 'x-unknown-paths': unknownPaths }),
    components: {
      schemas: usedSchemas([paths, webhooks, unknownPaths], componentSchemas()),
      ...(options.securitySchemes && { securitySchemes: options.securitySchemes }),
    },
  }
}

/**
 * TypeBox schemas as JSON, wherever one of `components` appears a `$ref` to
 * `#/components/schemas/<name>` (the same place in an OpenAPI and an AsyncAPI document), and
 * every component as JSON (each referring to the others by name).
 */
export function schemaWriter(components: Record<string, TSchema>) {
  const names = new Map<unknown, string>(
    Object.entries(components).map(([name, schema]) => [schema, name]),
  )
  const toJson = (schema: unknown, self?: unknown): Json => {
    const name = names.get(schema)
    if (name !== undefined && schema !== self) return { $ref: `#/components/schemas/${name}` }
    if (Array.isArray(schema)) return schema.map((item) => toJson(item))
    if (typeof schema === 'object' && schema !== null) {
      return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, toJson(value)]))
    }
    return schema as Json
  }
  const componentSchemas = (): Record<string, Json> =>
    Object.fromEntries(
      Object.entries(components).map(([name, schema]) => [name, toJson(schema, schema)]),
    )
  return { toJson, componentSchemas }
}

const SCHEMA_REF = /^#\/components\/schemas\/(.+)$/

/** The names of the schemas `value` refers to (`$ref`), at any depth. */
function referencedSchemas(value: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const item of value) referencedSchemas(item, into)
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const name =
        key === '$ref' && typeof item === 'string' ? SCHEMA_REF.exec(item)?.[1] : undefined
      if (name !== undefined) into.add(name)
      else referencedSchemas(item, into)
    }
  }
  return into
}

/**
 * The components `roots` reach, directly or through other components, in their given order: a
 * configuration that serves no operation using a schema (the v1 list without versioning) does
 * not publish it.
 */
export function usedSchemas(roots: unknown, schemas: Record<string, Json>): Record<string, Json> {
  const used = referencedSchemas(roots, new Set())
  for (const name of used) referencedSchemas(schemas[name], used)
  return Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name)))
}
