import { type Static, Type } from 'typebox'
import { emailSchema } from '../../../http/e2/fields.js'

export const ORDER_STATUSES = ['MENUNGGU', 'LUNAS'] as const

export const Pesanan = Type.Object(
  {
    id: Type.Integer({ minimum: 1 }),
    email: Type.String(),
    jumlah: Type.Integer({ minimum: 1 }),
    status: Type.Enum(ORDER_STATUSES, { type: 'string' }),
  },
  { description: 'An order: `MENUNGGU` until paid, then `LUNAS` for good.' },
)
export type Pesanan = Static<typeof Pesanan>

export const PesananEnvelope = Type.Object({ data: Pesanan })

export const PesananBaru = Type.Object({
  email: emailSchema('Required; contains @; stored trimmed.'),
  jumlah: Type.Integer({
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    description: 'Required; a whole number from 1, within the safe integers.',
  }),
})
