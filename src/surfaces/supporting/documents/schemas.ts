import { type Static, Type } from 'typebox'

export const Dokumen = Type.Object(
  { id: Type.Integer({ minimum: 1 }), judul: Type.String(), pemilik: Type.String() },
  { description: 'A document, owned by the user named in `pemilik`.' },
)
export type Dokumen = Static<typeof Dokumen>

export const DokumenEnvelope = Type.Object({ data: Dokumen })
export const DokumenList = Type.Object({ data: Type.Array(Dokumen) })
