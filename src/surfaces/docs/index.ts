import fastifySwagger, { type StaticDocumentSpec } from '@fastify/swagger'
import fastifySwaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { OperationSpec } from '../../http/route-spec.js'
import { keepNoStore } from '../../http/security-headers.js'
import { DESCRIPTION_TAG } from '../openapi/index.js'
import { requestOrigin, withOrigin } from '../openapi/origin.js'

export interface DocsSurfaceOptions {
  /** The document `GET /openapi.json` serves: the same object, not a copy. */
  document: Record<string, unknown>
}

/**
 * What the page may load: everything from this origin only, so that neither the UI nor a
 * "Try it out" request can reach another host (the document's servers start with the variable
 * `origin`, whose default is the origin the page fetched the document from).
 * `data:` for the images and fonts inlined in swagger-ui.css.
 */
const CONTENT_SECURITY_POLICY = {
  'default-src': ["'self'"],
  'connect-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
  'object-src': ["'none'"],
  'base-uri': ["'self'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'self'"],
}

/** Where the page is; everything else the plugin serves is below it. */
const DOCS_PREFIX = '/docs'

/**
 * `GET /docs` as the document publishes it. What the page loads below `/docs/` (its scripts and
 * style sheets, the document again at `/docs/json` and `/docs/yaml`) is the page's own, not
 * operations of the API (docs/decisions.md#the-docs-page-in-the-document).
 */
export const docsOperation: OperationSpec = {
  method: 'GET',
  path: DOCS_PREFIX,
  operationId: 'getDocsPage',
  summary: 'The interactive reference: Swagger UI on this document.',
  description:
    'An HTML page for a browser, showing `GET /openapi.json` with "Try it out" (which sends ' +
    'real requests to this deployment). Everything it loads comes from this service, under ' +
    '`/docs/`; its Content-Security-Policy lets it reach this origin only. Also at `/docs/`.',
  tags: [DESCRIPTION_TAG.name],
  responses: {
    200: {
      description: 'The page.',
      html: Type.String({ description: 'An HTML document that runs Swagger UI.' }),
      headers: {
        'Content-Security-Policy': {
          description: "The page may load from and connect to this origin only (`'self'`).",
          schema: Type.String(),
          required: true,
        },
      },
    },
  },
}

/**
 * `GET /docs`: Swagger UI on the live document, its assets under `/docs/static/`, all from the
 * installed @fastify/swagger-ui. @fastify/swagger in static mode only hands the document to the
 * UI (`/docs/json`, `/docs/yaml`): it adds no route, no hook and changes nothing. An encapsulated
 * plugin, so their decorators and hooks stay inside `/docs`.
 */
export async function docsSurface(instance: FastifyInstance, options: DocsSurfaceOptions) {
  // The static files say they may be cached; not what a request with a credential was shown.
  keepNoStore(instance)
  await instance.register(fastifySwagger, {
    mode: 'static',
    specification: { document: options.document as unknown as StaticDocumentSpec['document'] },
  })
  await instance.register(fastifySwaggerUi, {
    routePrefix: DOCS_PREFIX,
    // The document as GET /openapi.json serves it to the same request: `origin` is the page's.
    transformSpecificationClone: false,
    transformSpecification: (document, request) => withOrigin(document, requestOrigin(request)),
    // The badge would send the document's address to validator.swagger.io.
    validatorUrl: false,
    staticCSP: CONTENT_SECURITY_POLICY,
    theme: { title: 'tugas: API reference' },
    uiConfig: {
      // No top bar: its only use is loading another document from any address.
      layout: 'BaseLayout',
      validatorUrl: null,
      // Every tag open, every operation listed (collapsed).
      docExpansion: 'list',
      displayRequestDuration: true,
    },
  })
}
