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

const RFC_3339 = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/

/**
 * The instant an RFC 3339 date-time with an explicit offset names (so that it never depends on
 * the machine's time zone); undefined for anything else, a 30 February included (which `Date`
 * alone would read as 2 March).
 */
export function rfc3339Instant(text: string): Date | undefined {
  const parts = RFC_3339.exec(text)
  const value = new Date(text)
  if (parts === null || Number.isNaN(value.getTime())) return undefined
  const [, year, month, day] = parts.map(Number) as [unknown, number, number, number]
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate()
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth ? value : undefined
}
