import { Type } from 'typebox'
import { credentialed, identityOf } from '../../../access/guard.js'
import type { CredentialStore } from '../../../access/store.js'
import type { RouteSpec } from '../../../http/route-spec.js'

const Profil = Type.Object({
  data: Type.Object({
    nama: Type.String(),
    peran: Type.Enum(['user', 'admin'], { type: 'string' }),
  }),
})

/** `/profil` (any role) and `/panel-admin` (admin only, by the role policy): who is calling. */
export function identityRoutes({ credentials }: { credentials: CredentialStore }): RouteSpec[] {
  const whoAmI = (
    path: string,
    operationId: string,
    summary: string,
    description: string,
  ): RouteSpec =>
    credentialed(credentials, {
      method: 'GET',
      path,
      operationId,
      summary,
      description,
      responses: { 200: { description: 'The caller.', schema: Profil } },
      async handler(request) {
        const { nama, peran } = identityOf(request)
        return { data: { nama, peran } }
      },
    })
  return [
    whoAmI(
      '/profil',
      'getProfil',
      "The caller's name and role.",
      'Any role: the `nama` and `peran` of the credential sent (401 without a known one).',
    ),
    whoAmI(
      '/panel-admin',
      'getPanelAdmin',
      'The admin panel: admins only.',
      'The `nama` and `peran` of the caller: 401 without a known credential, 403 for a role ' +
        'other than `admin`.',
    ),
  ]
}
