/**
 * A JavaScript string as PostgreSQL `text` can hold it, and back, exactly. `text` cannot hold
 * U+0000, and turns an unpaired surrogate into U+FFFD; a client may send either in JSON, and
 * the memory store keeps both as sent. So those two, and the escape character itself, are
 * escaped: `\` as `\\`, U+0000 as `\0`, an unpaired surrogate as `\uXXXX`. Any other text is
 * stored as it is (what an operator reading the table sees), and equal strings stay equal, so
 * lookups and unique indexes work on the stored form.
 */
export function toText(value: string): string {
  return value.replace(UNSAFE, (found) => {
    if (found === '\\') return '\\\\'
    if (found === '\u0000') return '\\0'
    return `\\u${found.charCodeAt(0).toString(16).padStart(4, '0')}`
  })
}

/** The string `toText` stored. */
export function fromText(stored: string): string {
  if (!stored.includes('\\')) return stored
  return stored.replace(/\\(\\|0|u[0-9a-f]{4})/g, (_, code: string) => {
    if (code === '\\') return '\\'
    if (code === '0') return '\u0000'
    return String.fromCharCode(Number.parseInt(code.slice(1), 16))
  })
}

/** A backslash, U+0000, or a surrogate that is not half of a pair. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 is what must be escaped.
const UNSAFE = /\\|\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g
