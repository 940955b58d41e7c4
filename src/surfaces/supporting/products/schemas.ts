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

/** Version 1 of the list item: exactly `{ id, nama }`. */
export const ProdukV1 = Type.Object(
  { id: Type.Integer({ minimum: 1 }), nama: Type.String() },
  { additionalProperties: false },
)
export const ProdukV1List = Type.Array(ProdukV1)

export const ProdukV2 = Type.Object({
  data: Type.Array(
    Type.Object({ id: Type.Integer({ minimum: 1 }), nama: Type.String(), harga: Type.Integer() }),
  ),
  meta: Type.Object({
    versi: Type.Literal('2', { description: 'The version, as a string.' }),
    jumlah: Type.Integer({ minimum: 0, description: 'How many items `data` holds.' }),
  }),
})
