// Request-body schemas that state exactly the rule a surface checks, so that a tool building
// requests from the document sends what the service accepts (docs/openapi.md#request-bodies).
// A `pattern` is read with Unicode code points, as Ajv reads it (the `u` flag); `\s` is exactly
// what String.prototype.trim removes.
import { type Static, type TSchema, Type } from 'typebox'

export interface TrimmedTextOptions {
  /** The fewest code points left after trimming; at least 1. */
  min: number
  /** The most code points left after trimming; unbounded when left out. */
  max?: number
  /** The rule in words; by default, the bounds. */
  description?: string
}

/** `{a,b}`, or `{a,}` without an upper bound. */
const between = (least: number, most?: number) => `{${least},${most ?? ''}}`

/** What is left after trimming: non-space at both ends, `min` to `max` code points in all. */
function trimmedCore(min: number, max?: number): string {
  if (max === 1) return '\\S'
  // Between the first and the last character.
  const inside = max === undefined ? undefined : max - 2
  if (min === 1) return `\\S(?:[\\s\\S]${between(0, inside)}\\S)?`
  return `\\S[\\s\\S]${between(min - 2, inside)}\\S`
}

/**
 * A string that is `min` to `max` code points once trimmed. Raw `maxLength` would refuse a
 * padded value the service accepts, so the rule is a pattern; `minLength` holds untrimmed too.
 */
export function trimmedText({ min, max, description }: TrimmedTextOptions) {
  // Non-blank with no upper bound: one non-space character anywhere says it.
  const pattern = max === undefined && min === 1 ? '\\S' : `^\\s*${trimmedCore(min, max)}\\s*$`
  const bounds = max === undefined ? `at least ${min}` : `${min} to ${max}`
  return Type.String({
    minLength: min,
    pattern,
    description:
      description ??
      `Trimmed before checking and storing, then ${bounds} characters (Unicode code points).`,
  })
}

/**
 * A string of at least 3 bytes of UTF-8 once trimmed: 3 or more code points; 2 where one is
 * U+0080 or above (2 bytes or more); or 1 that is U+0800 or above (a lone surrogate counts 3
 * bytes, as Buffer.byteLength counts it).
 */
export function trimmedTextOfThreeBytes(description: string) {
  const twoByte = '[^\\s\\x00-\\x7F]'
  const threeByte = '[^\\s\\x00-\\u07FF]'
  const core = `\\S[\\s\\S]+\\S|${twoByte}\\S|\\S${twoByte}|${threeByte}`
  return Type.String({ minLength: 1, pattern: `^\\s*(?:${core})\\s*$`, description })
}

/** `schema`, or null: OpenAPI 3.1's `type: [<type>, "null"]`. */
export function orNull<T extends TSchema & { type: string }>(schema: T) {
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type, 'null'] })
}
