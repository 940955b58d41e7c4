import { Type } from 'typebox'
import { trimmedText } from '../../../http/body-schemas.js'
import { NAMA_MAX } from './rules.js'

const id = Type.Integer({ minimum: 1 })
const peran = Type.Union([Type.Literal('user'), Type.Literal('admin')], {
  description: 'The role: `user` or `admin`.',
})
const instant = (description: string) => Type.String({ format: 'date-time', description })
const kedaluwarsa = Type.Union(
  [instant('When it stops being accepted (401 from then on).'), Type.Null()],
  { description: 'When it stops being accepted; `null`: never.' },
)

export const Kredensial = Type.Object(
  {
    id,
    nama: Type.String(),
    peran,
    created_at: instant('RFC 3339, UTC.'),
    kedaluwarsa,
    last_used_at: Type.Union([instant('Within a few seconds of its latest use.'), Type.Null()], {
      description: 'Null until its first use.',
    }),
  },
  { description: 'A credential. Its secret is shown only when it is created.' },
)

export const KredensialEnvelope = Type.Object({ data: Kredensial })

export const KredensialList = Type.Object({ data: Type.Array(Kredensial) })

export const CreatedKredensial = Type.Object({
  data: Type.Object({
    id,
    nama: Type.String(),
    peran,
    secret: Type.String({
      pattern: '^tgs_[A-Za-z0-9_-]{43}$',
      description:
        '`tgs_` and the base64url of 32 random bytes: a Bearer token or an `X-API-Key`. Shown ' +
        'only in this answer; only its digest is kept.',
    }),
    created_at: instant('RFC 3339, UTC.'),
    kedaluwarsa,
  }),
})

export const NewKredensialBody = Type.Object({
  nama: trimmedText({
    min: 1,
    max: NAMA_MAX,
    description: `Required; trimmed, then 1 to ${NAMA_MAX} characters; stored trimmed.`,
  }),
  peran,
  kedaluwarsa: Type.Optional(
    instant('Optional: an RFC 3339 date-time with offset, in the future.'),
  ),
})

export const newKredensialExample = {
  nama: 'ci-deploy',
  peran: 'user',
  kedaluwarsa: '2099-12-31T23:59:59Z',
}
