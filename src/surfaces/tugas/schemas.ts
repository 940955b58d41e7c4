// The one definition of each surface A resource: Fastify serializes responses with these and
// the OpenAPI document (surface E) publishes them, so the two cannot drift apart.
import { type Static, Type } from 'typebox'
import { trimmedText } from '../../http/body-schemas.js'

export const TUGAS_STATUSES = ['belum', 'selesai'] as const
export const TITLE_MIN = 3
export const TITLE_MAX = 80
export const ISI_MAX = 500
/** The largest page size (`batas`) a list accepts. */
export const BATAS_MAX = 100

export const TugasStatus = Type.Enum(TUGAS_STATUSES, { type: 'string' })
export type TugasStatus = Static<typeof TugasStatus>

/** A title as stored and sent: trimmed. */
const Title = Type.String({
  minLength: TITLE_MIN,
  maxLength: TITLE_MAX,
  description: 'Trimmed; length in Unicode code points.',
})

/** A title as a request may send it: any padding, trimmed before the length is checked. */
const TitleInput = trimmedText({ min: TITLE_MIN, max: TITLE_MAX })

export const Tugas = Type.Object(
  { id: Type.Integer({ minimum: 1 }), title: Title, status: TugasStatus },
  { description: 'A task.' },
)
export type Tugas = Static<typeof Tugas>

export const TugasBaru = Type.Object(
  { title: TitleInput, status: Type.Optional(TugasStatus) },
  { description: 'A new task, or the full replacement of one. Unknown fields are ignored.' },
)

export const TugasPatch = Type.Object(
  { title: Type.Optional(TitleInput), status: Type.Optional(TugasStatus) },
  { description: 'Any subset of the task fields; each field sent is checked like on create.' },
)

export const Meta = Type.Object({
  halaman: Type.Integer({ minimum: 1 }),
  batas: Type.Integer({ minimum: 1, maximum: BATAS_MAX }),
  total: Type.Integer({ minimum: 0 }),
  totalHalaman: Type.Integer({ minimum: 1 }),
})

export const TugasList = Type.Array(Tugas)

/** Version 1 of the list item: exactly `{ id, nama }`, `nama` being the title. */
export const TugasV1 = Type.Object(
  { id: Type.Integer({ minimum: 1 }), nama: Type.String() },
  { additionalProperties: false, description: 'A task in version 1: `nama` is the title.' },
)
export const TugasV1List = Type.Array(TugasV1)
export const TugasPage = Type.Object({ data: Type.Array(Tugas), meta: Meta })

export const Komentar = Type.Object(
  { id: Type.Integer({ minimum: 1 }), tugasId: Type.Integer({ minimum: 1 }), isi: Type.String() },
  { description: 'A comment on a task.' },
)
export type Komentar = Static<typeof Komentar>

export const KomentarBaru = Type.Object({
  isi: trimmedText({ min: 1, max: ISI_MAX }),
})

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      kode: Type.String(),
      pesan: Type.String(),
      detail: Type.Optional(Type.Array(Type.String())),
    }),
  },
  { description: 'Every surface A error. `detail` is present only on 422.' },
)

/** Schemas published under `components.schemas`, by name. */
export const components = {
  Tugas,
  TugasBaru,
  TugasPatch,
  TugasPage,
  TugasV1,
  Meta,
  Komentar,
  KomentarBaru,
  Error: ErrorBody,
}
