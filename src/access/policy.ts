import type { Peran } from './identity.js'

/**
 * The role policy: which roles may call each credentialed endpoint, by method and path
 * pattern. Deny by default: an endpoint missing here, or a role missing from its list, is 403.
 */
export const ROLE_POLICY: ReadonlyMap<string, readonly Peran[]> = new Map([
  ['GET /dokumen', ['user', 'admin']],
  ['GET /dokumen/{id}', ['user', 'admin']],
  ['DELETE /dokumen/{id}', ['admin']],
  ['GET /profil', ['user', 'admin']],
  ['GET /panel-admin', ['admin']],
  ['GET /laporan', ['user', 'admin']],
  ['POST /kredensial', ['admin']],
  ['GET /kredensial', ['admin']],
  ['GET /kredensial/{id}', ['admin']],
  ['DELETE /kredensial/{id}', ['admin']],
  ['POST /webhooks', ['admin']],
  ['GET /webhooks', ['admin']],
  ['GET /webhooks/{id}', ['admin']],
  ['DELETE /webhooks/{id}', ['admin']],
  ['GET /webhooks/{id}/deliveries', ['admin']],
  ['POST /webhooks/{id}/replay', ['admin']],
])

export function isAllowed(peran: Peran, endpoint: string): boolean {
  return ROLE_POLICY.get(endpoint)?.includes(peran) ?? false
}
