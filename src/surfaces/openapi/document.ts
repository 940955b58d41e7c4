import type { TSchema } from 'typebox'
import type { RouteSpec } from '../../http/route-spec.js'

export interface DocumentOptions {
  info: { title: string; version: string; description: string }
  servers: { url: string; description?: string }[]
  routes: RouteSpec[]
  /** Named schemas; wherever a route uses one of these objects, the document says `$ref`. */
  components: Record<string, TSchema>
  /** Security schemes by name; a route's `security` lists the names it accepts (any one). */
  securitySchemes?: Record<string, Json>
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

/**
 * Builds an OpenAPI 3.1.0 document from the same route table and schema objects that Fastify
 * serves, so what is published is what answers.
 */
export function openApiDocument(options: DocumentOptions): Record<string, Json> {
  const names = new Map<unknown, string>(
    Object.entries(options.components).map(([name, schema]) => [schema, name]),
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

  const paths: Record<string, Record<string, Json>> = {}
  for (const route of options.routes) {
    const responses: Record<string, Json> = {}
    for (const [status, response] of Object.entries(route.responses)) {
      responses[status] = {
        description: response.description,
        ...(response.headers && {
          headers: Object.fromEntries(
            Object.entries(response.headers).map(([header, { description, schema }]) => [
              header,
              { description, schema: toJson(schema) },
            ]),
          ),
        }),
        ...(response.schema && {
          content: { 'application/json': { schema: toJson(response.schema) } },
        }),
      }
    }
    const operation: Record<string, Json> = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description && { description: route.description }),
      ...(route.servers && { servers: route.servers.map((url) => ({ url })) }),
      ...(route.security && { security: route.security.map((name) => ({ [name]: [] })) }),
      ...(route.parameters && {
        parameters: route.parameters.map((parameter) => ({
          name: parameter.name,
          in: parameter.in,
          description: parameter.description,
          required: parameter.in === 'path' || parameter.required === true,
          schema: toJson(parameter.schema),
        })),
      }),
      ...(route.body && {
        requestBody: {
          description: route.body.description,
          required: true,
          content: { 'application/json': { schema: toJson(route.body.schema) } },
        },
      }),
      responses,
    }
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operation }
  }

  return {
    openapi: '3.1.0',
    info: options.info,
    servers: options.servers,
    paths,
    components: {
      schemas: Object.fromEntries(
        Object.entries(options.components).map(([name, schema]) => [name, toJson(schema, schema)]),
      ),
      ...(options.securitySchemes && { securitySchemes: options.securitySchemes }),
    },
  }
}
