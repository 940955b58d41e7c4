import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { ProdukVersioning } from '../../../config.js'
import { parseAccept } from '../../../http/accept.js'
import { apiVersion, markApiVersion } from '../../../http/api-version.js'
import { taggedItem } from '../../../http/conditional.js'
import { readOne } from '../../../http/e2/read-one.js'
import { headerValue } from '../../../http/headers.js'
import { type ResponseSpec, type RouteSpec, sendWith } from '../../../http/route-spec.js'
import { failures, versionRetired } from '../errors.js'
import { Produk, ProdukV1List, ProdukV2 } from './schemas.js'
import type { ProductStore } from './store.js'

export interface ProductRouteOptions {
  store: ProductStore
  versioning: ProdukVersioning
  /** When version 1 retires: from then on every v1 answer is 410. */
  sunset: Date
  /** The wall clock (the sunset is a calendar instant); injectable for tests. */
  now?: () => Date
}

/** When products v1 was deprecated: the release that published v2. */
export const PRODUK_V1_DEPRECATED_AT = new Date('2026-11-23T00:00:00Z')

export const V1_SUCCESSOR = '/v2/produk'

/** The product list's versions, as the request log and the metrics count them. */
const PRODUK_VERSIONS = {
  unversioned: apiVersion('produk', 'unversioned'),
  v1: apiVersion('produk', 'v1'),
  v2: apiVersion('produk', 'v2'),
}

/**
 * The `version` parameter of `Accept` (`application/json;version=2`): the value of the first
 * acceptable media range that has one, trimmed. `2` selects version 2; anything else, or none,
 * version 1 (docs/versioning.md#products-v1produk-v2produk-produk_versioning).
 */
export function requestedVersion(accept: string | undefined): 'v1' | 'v2' {
  const range = parseAccept(accept).find(
    (candidate) => candidate.q > 0 && Object.hasOwn(candidate.parameters, 'version'),
  )
  return range?.parameters.version?.trim() === '2' ? 'v2' : 'v1'
}

const deprecationHeaders = {
  Sunset: {
    description: 'When version 1 retires, as an HTTP date (IMF-fixdate, GMT).',
    schema: Type.String(),
  },
  Deprecation: {
    description: 'Version 1 is deprecated (RFC 9745: `@` and the Unix time it was).',
    schema: Type.String(),
  },
  Link: {
    description: 'The successor: `</v2/produk>; rel="successor-version"`.',
    schema: Type.String(),
  },
}

/** A product as `GET /produk/{id}` sends it, with its ETag. */
const taggedProduct = taggedItem<Produk>({ schema: Produk })

export function productRoutes(options: ProductRouteOptions): RouteSpec[] {
  const { store, versioning, sunset, now = () => new Date() } = options
  const deprecatedAt = Math.min(PRODUK_V1_DEPRECATED_AT.getTime(), sunset.getTime())
  // The same on every v1 answer: written once, not per request.
  const v1Headers = {
    sunset: sunset.toUTCString(),
    deprecation: `@${Math.floor(deprecatedAt / 1000)}`,
    link: `<${V1_SUCCESSOR}>; rel="successor-version"`,
  }

  /** Version 1, deprecated: its headers on every answer, and 410 from the sunset on. */
  async function sendV1(request: FastifyRequest, reply: FastifyReply) {
    markApiVersion(request, PRODUK_VERSIONS.v1)
    reply.headers(v1Headers)
    if (now().getTime() >= sunset.getTime()) throw versionRetired(sunset, V1_SUCCESSOR)
    const items = (await store.list()).map(({ id, nama }) => ({ id, nama }))
    return sendWith(reply, ProdukV1List, items)
  }

  async function sendV2(request: FastifyRequest, reply: FastifyReply) {
    markApiVersion(request, PRODUK_VERSIONS.v2)
    const data = (await store.list()).map(({ id, nama, harga }) => ({ id, nama, harga }))
    return sendWith(reply, ProdukV2, { data, meta: { versi: '2', jumlah: data.length } })
  }

  const v1Response: ResponseSpec = {
    description: 'Version 1 (deprecated): a flat array of `{ id, nama }`.',
    schema: ProdukV1List,
    headers: deprecationHeaders,
  }
  const v2Response: ResponseSpec = {
    description: 'Version 2: `{ data: [{ id, nama, harga }], meta: { versi: "2", jumlah } }`.',
    schema: ProdukV2,
  }
  const gone = failures.versionRetired(sunset, deprecationHeaders)

  const list: RouteSpec =
    versioning === 'header'
      ? {
          method: 'GET',
          path: '/produk',
          operationId: 'listProdukByAccept',
          summary: 'Products; the `version` parameter of `Accept` picks the version (2, else 1).',
          description:
            'The `version` parameter of `Accept` (`application/json;version=2`), trimmed, picks the version: `2` gives version 2, any other value or none version 1 (deprecated: `Sunset`, `Deprecation`, `Link`; 410 from the sunset on). Every answer carries `Vary: Accept`.',
          responses: {
            200: {
              description: 'Version 1 `[{ id, nama }]` (with `Sunset`) or version 2, by `Accept`.',
              schema: Type.Union([ProdukV1List, ProdukV2]),
              headers: {
                ...deprecationHeaders,
                Vary: { description: 'Always `Accept`.', schema: Type.String() },
              },
            },
            410: gone,
          },
          async handler(request, reply) {
            reply.header('vary', 'Accept')
            return requestedVersion(headerValue(request.headers.accept)) === 'v2'
              ? sendV2(request, reply)
              : sendV1(request, reply)
          },
        }
      : {
          method: 'GET',
          path: '/produk',
          operationId: 'listProduk',
          summary: 'Every product, as a flat array.',
          description:
            'Unversioned (`PRODUK_VERSIONING=none`): every product with all its fields; ' +
            '`/v1/produk` and `/v2/produk` give the versioned forms.',
          responses: { 200: { description: 'The products.', schema: Type.Array(Produk) } },
          async handler(request) {
            markApiVersion(request, PRODUK_VERSIONS.unversioned)
            return store.list()
          },
        }

  return [
    list,
    readOne({
      path: '/produk/{id}',
      operationId: 'getProduk',
      what: 'product',
      item: taggedProduct,
      find: (id) => store.get(id),
    }),
    {
      method: 'GET',
      path: '/v1/produk',
      operationId: 'listProdukV1',
      summary: 'Products, version 1 (deprecated, see `Sunset`): `[{ id, nama }]`.',
      description:
        'Until the sunset: every product as `{ id, nama }`, with `Sunset`, `Deprecation` and ' +
        '`Link` to its successor. From the sunset on: 410 `VERSION_RETIRED`, same headers.',
      responses: { 200: v1Response, 410: gone },
      handler: sendV1,
    },
    {
      method: 'GET',
      path: '/v2/produk',
      operationId: 'listProdukV2',
      summary: 'Products, version 2: `{ data: [{ id, nama, harga }], meta: { versi, jumlah } }`.',
      description:
        'Every product with its price in `data`; `meta.versi` is `"2"` and `meta.jumlah` counts ' +
        'the products.',
      responses: { 200: v2Response },
      handler: sendV2,
    },
  ]
}
