import { type Static, Type } from 'typebox'
import { trimmedText } from '../../http/body-schemas.js'

export const JUDUL_MAX = 140

export const CompactTugas = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  judul: Type.String({ minLength: 1, maxLength: JUDUL_MAX }),
  selesai: Type.Boolean(),
})
export type CompactTugas = Static<typeof CompactTugas>

/** `judul` as a request sends it: trimmed before its length is checked. */
const JudulInput = trimmedText({ min: 1, max: JUDUL_MAX })

/** A create's body; unknown fields, `selesai` too, are ignored. */
export const NewCompactTugas = Type.Object({ judul: JudulInput })

/** A replace's body: both fields. */
export const CompactTugasReplacement = Type.Object({ judul: JudulInput, selesai: Type.Boolean() })

export const Health = Type.Object({ status: Type.Literal('ok') })
