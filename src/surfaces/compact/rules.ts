// Surface B's body decoding (the body reader: 422 plain text for a missing or mistyped field)
// and its `judul` rule (400 E3), kept apart because they answer in different forms.
import { codePointLength, field, isPlainObject } from '../../text.js'
import {
  type FieldType,
  fieldMissing,
  fieldMistyped,
  judulKosong,
  judulTerlaluPanjang,
  notAnObject,
} from './errors.js'
import { JUDUL_MAX } from './schemas.js'

/** The fields a create and a replace decode, each of its JSON type. */
export const CREATE_FIELDS = { judul: 'string' } as const
export const REPLACE_FIELDS = { judul: 'string', selesai: 'boolean' } as const

/** Decodes a parsed body into the fields named, each of its JSON type, or throws the 422. */
export function decode<const F extends Record<string, FieldType>>(
  body: unknown,
  fields: F,
): { [K in keyof F]: F[K] extends 'string' ? string : boolean } {
  if (!isPlainObject(body)) throw notAnObject()
  for (const [name, type] of Object.entries(fields)) {
    const value = field(body, name)
    if (value === undefined) throw fieldMissing(name)
    if (typeof value !== type) throw fieldMistyped(name, type)
  }
  return body as never
}

/** The trimmed `judul`, non-empty and at most 140 code points. */
export function checkJudul(judul: string): string {
  const trimmed = judul.trim()
  const length = codePointLength(trimmed)
  if (length === 0) throw judulKosong()
  if (length > JUDUL_MAX) throw judulTerlaluPanjang()
  return trimmed
}
