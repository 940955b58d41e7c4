import { type Static, Type } from 'typebox'

export const Produk = Type.Object(
  {
    id: Type.Integer({ minimum: 1 }),
    nama: Type.String(),
    harga: Type.Integer({ minimum: 0 }),
    stok: Type.Integer({ minimum: 0 }),
  },
  { description: 'A product, in its documented schema.' },
)
export type Produk = Static<typeof Produk>
