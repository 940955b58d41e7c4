/** The two roles of the role policy (policy.ts). */
export type Peran = 'user' | 'admin'

/** Who a credential belongs to: a name and a role. */
export interface Identity {
  nama: string
  peran: Peran
}
