/**
 * Length in Unicode code points, the unit JSON Schema's minLength/maxLength count in:
 * an emoji is one, although it is two UTF-16 code units.
 */
export function codePointLength(text: string): number {
  let length = text.length
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    // A high surrogate followed by a low one is a single code point.
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        length--
        i++
      }
    }
  }
  return length
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Own property lookup: a body's inherited members (`constructor`, `toString`) are not fields. */
export function field(body: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(body, name) ? body[name] : undefined
}
