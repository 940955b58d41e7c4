/**
 * A title as its UTF-16 code units, big-endian, two bytes each: byte order of these keys is exactly
 * JavaScript's `<` on the titles (docs/decisions.md#sorting-in-code-unit-order), so a database can
 * sort by them as the memory store sorts. Collations cannot: even `COLLATE "C"` compares code
 * points, which puts U+10000 and above after U+E000 to U+FFFF, where code units put them before.
 */
export function titleSortKey(title: string): Buffer {
  return Buffer.from(title, 'utf16le').swap16()
}
