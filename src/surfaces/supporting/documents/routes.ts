import { credentialed, identityOf } from '../../../access/guard.js'
import type { Identity } from '../../../access/identity.js'
import type { CredentialStore } from '../../../access/store.js'
import { conditionalWrite, deleted, taggedItem } from '../../../http/conditional.js'
import { readOne } from '../../../http/e2/read-one.js'
import { atId } from '../../../http/path-id.js'
import type { RouteSpec } from '../../../http/route-spec.js'
import { failures, idParameter, notFound, notYours, pathId, preconditionFailed } from '../errors.js'
import { type Dokumen, DokumenEnvelope, DokumenList } from './schemas.js'
import type { DocumentStore } from './store.js'

export interface DocumentRouteOptions {
  store: DocumentStore
  credentials: CredentialStore
}

/** Ownership, checked after existence: an admin reads any document, a user only their own. */
function mayRead(identity: Identity, document: Dokumen): boolean {
  return identity.peran === 'admin' || document.pemilik === identity.nama
}

/** A document as `GET /dokumen/{id}` sends it, `{ data }`, with its ETag. */
const taggedDocument = taggedItem<Dokumen>({
  schema: DokumenEnvelope,
  body: (document) => ({ data: document }),
})

/**
 * `/dokumen`. Each route's checks run in the order of docs/supporting.md#credentials-and-roles:
 * credential (401) and role policy (403) in the access hook, then the integer id (400), existence
 * (404), ownership (403).
 */
export function documentRoutes({ store, credentials }: DocumentRouteOptions): RouteSpec[] {
  const routes: RouteSpec[] = [
    {
      method: 'GET',
      path: '/dokumen',
      operationId: 'listDokumen',
      summary: 'Documents: an admin sees all, a user only their own.',
      description:
        'A Bearer token or an `X-API-Key` is required (401 without a known one); the role ' +
        'policy then admits the caller (403). The list is in `data`.',
      responses: { 200: { description: 'The documents.', schema: DokumenList } },
      async handler(request) {
        const identity = identityOf(request)
        const owner = identity.peran === 'admin' ? undefined : identity.nama
        return { data: await store.list(owner === undefined ? {} : { owner }) }
      },
    },
    readOne({
      path: '/dokumen/{id}',
      operationId: 'getDokumen',
      what: 'document',
      description:
        'Checks in order: the credential (401), the role policy (403), the id (400), existence ' +
        '(404), then ownership: a user may read only their own documents (403); then ' +
        '`If-None-Match` (304).',
      item: taggedDocument,
      find: (id) => store.get(id),
      // Ownership comes last, after existence (docs/supporting.md#credentials-and-roles).
      check(document, request) {
        if (!mayRead(identityOf(request), document)) throw notYours(document.id)
      },
    }),
    conditionalWrite(
      {
        method: 'DELETE',
        path: '/dokumen/{id}',
        operationId: 'deleteDokumen',
        summary: 'Delete a document (admin only).',
        description:
          'Checks in order: the credential (401), the role policy, admins only (403), the id ' +
          '(400), existence (404), then `If-Match` (412). Answers 204 with an empty body.',
        parameters: [idParameter('Document')],
        responses: {
          204: { description: 'Deleted; empty body.' },
          400: failures.invalidId,
          404: failures.notFound,
        },
        async handler(request, reply) {
          const { id, raw } = pathId(request)
          const ifMatch = taggedDocument.ifMatch(request, reply)
          deleted(await atId(id, (known) => store.delete(known, ifMatch)), {
            notFound: () => notFound('document', raw),
            failed: () => preconditionFailed('document', raw),
          })
          return reply.code(204).send()
        },
      },
      failures.preconditionFailed,
    ),
  ]
  return routes.map((route) => credentialed(credentials, route))
}
