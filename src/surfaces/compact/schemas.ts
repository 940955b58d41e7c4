import { type Static, Type } from 'typebox'

export const JUDUL_MAX = 140

export const CompactTugas = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  judul: Type.String({ minLength: 1, maxLength: JUDUL_MAX }),
  selesai: Type.Boolean(),
})
export type CompactTugas = Static<typeof CompactTugas>

export const Health = Type.Object({ status: Type.Literal('ok') })
