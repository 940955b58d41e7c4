// The task list in each of its forms: the unversioned list (flat array or page envelope,
// docs/tugas.md#the-list), and the versions (docs/versioning.md): v1 `[{ id, nama }]`, v2 the page
// envelope, chosen by path or by Accept.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { parseAccept } from '../../http/accept.js'
import { apiVersion, markApiVersion } from '../../http/api-version.js'
import { headerValue } from '../../http/headers.js'
import type { ParameterSpec, ResponseSpec, RouteSpec } from '../../http/route-spec.js'
import { sendWith } from '../../http/route-spec.js'
import {
  invalid,
  invalidQuery,
  listNeedsVersion,
  needsVersion,
  notAcceptable,
  storeErrors,
  unacceptable,
} from './errors.js'
import { checkPageQuery, SORT_FIELDS, wantsPage } from './list-query.js'
import { BATAS_MAX, TUGAS_STATUSES, TugasList, TugasPage, TugasV1List } from './schemas.js'
import type { TugasStore } from './store.js'

/**
 * The v2 list pages by 10 unless `batas` says otherwise, whatever TUGAS_BATAS_DEFAULT
 * (docs/decisions.md#v2-page-size).
 */
export const V2_BATAS_DEFAULT = 10

export const V2_MEDIA_TYPE = 'application/vnd.tugas.v2+json'

/** The task list's versions, as the request log and the metrics count them. */
const TUGAS_VERSIONS = {
  unversioned: apiVersion('tugas', 'unversioned'),
  v1: apiVersion('tugas', 'v1'),
  v2: apiVersion('tugas', 'v2'),
}

function pageParameters(batasDefault: number): ParameterSpec[] {
  return [
    {
      name: 'halaman',
      in: 'query',
      description: 'Page number, default 1.',
      schema: Type.Integer({ minimum: 1, default: 1 }),
      example: 1,
    },
    {
      name: 'batas',
      in: 'query',
      description: `Page size, default ${batasDefault}.`,
      schema: Type.Integer({ minimum: 1, maximum: BATAS_MAX, default: batasDefault }),
      example: batasDefault,
    },
    {
      name: 'status',
      in: 'query',
      description: 'Keep only tasks with this status.',
      schema: Type.Enum(TUGAS_STATUSES, { type: 'string' }),
      example: 'belum',
    },
    {
      name: 'urut',
      in: 'query',
      description: 'Sort column; a leading `-` sorts descending. Ties keep ascending id order.',
      schema: Type.Enum(
        SORT_FIELDS.flatMap((name) => [name, `-${name}`]),
        { type: 'string', default: 'id' },
      ),
      example: '-id',
    },
  ]
}

/** One page of the list, by the query's rules (422 with every violation). */
async function sendPage(
  store: TugasStore,
  request: FastifyRequest,
  reply: FastifyReply,
  batasDefault: number,
) {
  const checked = checkPageQuery(request.query as Record<string, unknown>, batasDefault)
  if (!checked.ok) throw invalidQuery(checked.violations)
  const { halaman, batas, status, sort, descending } = checked.value
  const offset = (halaman - 1) * batas
  const page = await store.query({ status, sort, descending, offset, limit: batas })
  const totalHalaman = Math.max(1, Math.ceil(page.total / batas))
  return sendWith(reply, TugasPage, {
    data: page.items,
    meta: { halaman, batas, total: page.total, totalHalaman },
  })
}

async function sendV1(store: TugasStore, reply: FastifyReply) {
  const items = (await store.all()).map(({ id, title }) => ({ id, nama: title }))
  return sendWith(reply, TugasV1List, items)
}

const v1Response: ResponseSpec = {
  description: 'Version 1: a flat array of `{ id, nama }`, `nama` being the title.',
  schema: TugasV1List,
}
const v2Response: ResponseSpec = {
  description: 'Version 2: `{ data, meta }`, a page of tasks.',
  schema: TugasPage,
}

/**
 * The unversioned `GET /tugas` (docs/tugas.md#the-list): a flat array, or the page envelope when
 * any list parameter is sent.
 */
export function part1List(store: TugasStore, batasDefault: number): RouteSpec {
  return {
    method: 'GET',
    path: '/tugas',
    operationId: 'listTugas',
    summary: 'List tasks: a flat array, or a page envelope when any list parameter is present.',
    description:
      'Without `halaman`, `batas`, `status` or `urut`: every task, as a flat array. ' +
      'With any of them: one page `{ data, meta }`; a parameter out of its rules is 422, every ' +
      'violation reported together.',
    parameters: pageParameters(batasDefault),
    responses: {
      200: {
        description: 'Flat array without list parameters; `{ data, meta }` with any of them.',
        schema: Type.Union([TugasList, TugasPage]),
      },
      422: invalid,
      ...storeErrors,
    },
    async handler(request, reply) {
      markApiVersion(request, TUGAS_VERSIONS.unversioned)
      // One route, two forms: each reply is serialized with its own form's schema.
      if (wantsPage(request.query as Record<string, unknown>)) {
        return sendPage(store, request, reply, batasDefault)
      }
      const tasks = await store.all()
      return sendWith(reply, TugasList, tasks)
    },
  }
}

/** `GET /v1/tugas` in path mode: the v1 form. */
export function v1List(store: TugasStore): RouteSpec {
  return {
    method: 'GET',
    path: '/tugas',
    operationId: 'listTugasV1',
    summary: 'List tasks, version 1: every task as `{ id, nama }`.',
    description:
      'Served at `/v1/tugas` only (`TUGAS_VERSIONING=path`): every task, its ' +
      'title as `nama`; query parameters are ignored.',
    responses: { 200: v1Response, ...storeErrors },
    async handler(request, reply) {
      markApiVersion(request, TUGAS_VERSIONS.v1)
      return sendV1(store, reply)
    },
  }
}

/** `GET /v2/tugas`, in every mode: the v2 envelope. */
export function v2List(store: TugasStore): RouteSpec {
  return {
    method: 'GET',
    path: '/v2/tugas',
    operationId: 'listTugasV2',
    summary: `List tasks, version 2: a page envelope (\`batas\` ${V2_BATAS_DEFAULT} by default).`,
    description:
      'One page `{ data, meta }` in every versioning mode, whatever `TUGAS_BATAS_DEFAULT` says; ' +
      'a parameter out of its rules is 422, every violation reported together.',
    parameters: pageParameters(V2_BATAS_DEFAULT),
    responses: { 200: v2Response, 422: invalid, ...storeErrors },
    async handler(request, reply) {
      markApiVersion(request, TUGAS_VERSIONS.v2)
      return sendPage(store, request, reply, V2_BATAS_DEFAULT)
    },
  }
}

/** `GET /tugas` in path mode: the unversioned path points to the versions. */
export function unversionedList(): RouteSpec {
  return {
    method: 'GET',
    path: '/tugas',
    operationId: 'listTugasUnversioned',
    summary: 'Without a version: 404, pointing to `/v1/tugas` and `/v2/tugas`.',
    responses: { 404: needsVersion },
    async handler() {
      throw listNeedsVersion()
    },
  }
}

/**
 * Header versioning (docs/versioning.md#tugas_versioningheader): a media range naming the v2 type
 * gives v2, otherwise a range mentioning `json` gives v1, otherwise 406. A range of weight 0 ("not
 * acceptable") names nothing. No Accept, or `*\/*`, mentions no JSON type: 406.
 */
export function chooseVersion(accept: string | undefined): 'v1' | 'v2' | undefined {
  const acceptable = parseAccept(accept).filter((range) => range.q > 0)
  if (acceptable.some((range) => range.mediaType === V2_MEDIA_TYPE)) return 'v2'
  if (acceptable.some((range) => range.mediaType.includes('json'))) return 'v1'
  return undefined
}

/** `GET /tugas` in header mode: the version is chosen by `Accept`; every answer varies by it. */
export function acceptList(store: TugasStore): RouteSpec {
  return {
    method: 'GET',
    path: '/tugas',
    operationId: 'listTugasByAccept',
    summary: `List tasks; \`Accept: ${V2_MEDIA_TYPE}\` gives version 2, any other JSON type version 1.`,
    description: `The version is chosen by \`Accept\`: a media range naming \`${V2_MEDIA_TYPE}\` gives version 2 (the query parameters apply); otherwise a range mentioning \`json\` (such as \`application/json\`) gives version 1; otherwise 406. Ranges of weight 0 do not count; no \`Accept\` is 406. Every answer carries \`Vary: Accept\`; both versions are sent as \`application/json\`.`,
    parameters: [...pageParameters(V2_BATAS_DEFAULT)],
    responses: {
      200: {
        description: 'Version 1 `[{ id, nama }]` or version 2 `{ data, meta }`, by `Accept`.',
        schema: Type.Union([TugasV1List, TugasPage]),
        headers: { Vary: { description: 'Always `Accept`.', schema: Type.String() } },
      },
      406: unacceptable,
      422: invalid,
      ...storeErrors,
    },
    async handler(request, reply) {
      reply.header('vary', 'Accept')
      const version = chooseVersion(headerValue(request.headers.accept))
      if (version === undefined) throw notAcceptable(V2_MEDIA_TYPE)
      markApiVersion(request, TUGAS_VERSIONS[version])
      return version === 'v2'
        ? sendPage(store, request, reply, V2_BATAS_DEFAULT)
        : sendV1(store, reply)
    },
  }
}
