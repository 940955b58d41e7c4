import { randomBytes } from 'node:crypto'
import { credentialed } from '../../../access/guard.js'
import type { CredentialRecord, CredentialStore } from '../../../access/store.js'
import { taggedItem } from '../../../http/conditional.js'
import {
  e2Errors,
  e2Failures,
  e2Response,
  idParameter,
  notFound,
  pathId,
} from '../../../http/e2/errors.js'
import { readOne } from '../../../http/e2/read-one.js'
import { sentBody } from '../../../http/e2/shape.js'
import { ApiError } from '../../../http/errors.js'
import { requireJsonContentType } from '../../../http/json-content-type.js'
import { atId } from '../../../http/path-id.js'
import { created, locationHeader, type RouteSpec } from '../../../http/route-spec.js'
import { checkNewCredential } from './rules.js'
import {
  CreatedKredensial,
  KredensialEnvelope,
  KredensialList,
  NewKredensialBody,
  newKredensialExample,
} from './schemas.js'

export interface CredentialRouteOptions {
  credentials: CredentialStore
  /** The wall clock (`kedaluwarsa` must be after it); injectable for tests. */
  now?: () => Date
}

/** A new credential's secret: `tgs_` and the base64url of 32 random bytes. */
export const newCredentialSecret = () => `tgs_${randomBytes(32).toString('base64url')}`

export const lastAdmin = () =>
  new ApiError(
    409,
    'LAST_ADMIN',
    'the last admin credential that has not expired cannot be revoked: create another first',
  )

const lastAdminFailure = e2Response(
  'The last admin credential that has not expired cannot be revoked (`LAST_ADMIN`): create ' +
    'another first.',
)

const taggedCredential = taggedItem<CredentialRecord>({
  schema: KredensialEnvelope,
  body: (credential) => ({ data: credential }),
})

/**
 * `/kredensial`, admin only: credentials issued, listed, read and revoked at run time. Checks
 * run in the order of docs/supporting.md#credentials-and-roles: the credential (401), the role
 * (403), then the request itself.
 */
export function credentialRoutes({
  credentials,
  now = () => new Date(),
}: CredentialRouteOptions): RouteSpec[] {
  const routes: RouteSpec[] = [
    {
      method: 'POST',
      path: '/kredensial',
      operationId: 'createKredensial',
      summary: 'Issue a credential (admin only); the answer holds its secret, once.',
      description:
        'Checks in order: the credential (401), the role, admins only (403), the Content-Type ' +
        '(415), the body reader (413, 400), the fields (400 `VALIDATION_ERROR`, every broken ' +
        'rule in `details`). The `secret` works as a Bearer token and as an `X-API-Key` at once, ' +
        'in every process; it is never shown again, and only its digest is kept.',
      body: {
        schema: NewKredensialBody,
        description: 'Who it is for, its role, and when it expires (optional).',
        example: newKredensialExample,
      },
      onRequest: [requireJsonContentType(e2Errors)],
      responses: {
        201: {
          description: 'Issued: the credential with its `secret`.',
          schema: CreatedKredensial,
          headers: locationHeader('Path of the new credential, `/kredensial/<id>`.'),
        },
        ...e2Failures.body,
      },
      async handler(request, reply) {
        const fields = checkNewCredential(sentBody(request), now())
        const secret = newCredentialSecret()
        const { id, nama, peran, created_at, kedaluwarsa } = await credentials.create({
          ...fields,
          secret,
        })
        created(reply, `/kredensial/${id}`)
        return { data: { id, nama, peran, secret, created_at, kedaluwarsa } }
      },
    },
    {
      method: 'GET',
      path: '/kredensial',
      operationId: 'listKredensial',
      summary: 'Every credential, seeded ones included, without secrets (admin only).',
      description:
        "Every credential in id order (the seed's first, from 1), in `data`: who it is for, " +
        'its role, when it was created, when it expires and when it was last used.',
      responses: { 200: { description: 'The credentials.', schema: KredensialList } },
      async handler() {
        return { data: await credentials.list() }
      },
    },
    readOne({
      path: '/kredensial/{id}',
      operationId: 'getKredensial',
      what: 'credential',
      item: taggedCredential,
      find: (id) => credentials.get(id),
    }),
    {
      method: 'DELETE',
      path: '/kredensial/{id}',
      operationId: 'deleteKredensial',
      summary: 'Revoke a credential (admin only): refused from then on, in every process.',
      description:
        'Checks in order: the credential (401), the role, admins only (403), the id (400 ' +
        '`INVALID_ID`), existence (404), then the last admin credential that has not expired ' +
        'cannot be revoked (409 `LAST_ADMIN`). Answers 204 with an empty body; the credential ' +
        'is then gone.',
      parameters: [idParameter('Credential')],
      responses: {
        204: { description: 'Revoked; empty body.' },
        400: e2Failures.invalidId,
        404: e2Failures.notFound,
        409: lastAdminFailure,
      },
      async handler(request, reply) {
        const { id, raw } = pathId(request)
        const revoked = await atId(id, (known) => credentials.revoke(known))
        if (revoked === undefined || revoked === 'not-found') throw notFound('credential', raw)
        if (revoked === 'last-admin') throw lastAdmin()
        return reply.code(204).send()
      },
    },
  ]
  return routes.map((route) => credentialed(credentials, route))
}
