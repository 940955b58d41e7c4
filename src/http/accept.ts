// The Accept request header as RFC 9110 section 12.5.1 defines it: a comma-separated list of
// media ranges, each with parameters, one of which may be the weight `q`.

export interface MediaRange {
  /** `type/subtype`, lowercased (`*` allowed as either part). */
  mediaType: string
  /** Parameters other than `q`; names lowercased, values unquoted and as sent. */
  parameters: Record<string, string>
  /** The weight, 0 to 1; 1 when not given. 0 means "not acceptable". */
  q: number
}

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+"
const MEDIA_RANGE = new RegExp(`^(${TOKEN})/(${TOKEN})$`)
const PARAMETER_NAME = new RegExp(`^${TOKEN}$`)
const WEIGHT = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/

/** Splits on `separator` outside double-quoted strings (which may hold `\"`). */
function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = []
  let current = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string
    if (quoted && char === '\\') {
      current += char + (text[i + 1] ?? '')
      i++
      continue
    }
    if (char === '"') quoted = !quoted
    if (char === separator && !quoted) {
      parts.push(current)
      current = ''
    } else current += char
  }
  parts.push(current)
  return parts
}

function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    return value.slice(1, -1).replace(/\\(.)/g, '$1')
  }
  return value
}

/**
 * The media ranges of an Accept header, in the order sent. A range that is not well-formed is
 * left out rather than failing the whole header; so is a malformed parameter or weight (which
 * leaves the weight at 1). A parameter given twice keeps its first value.
 */
export function parseAccept(header: string | undefined): MediaRange[] {
  if (header === undefined) return []
  const ranges: MediaRange[] = []
  for (const element of splitOutsideQuotes(header, ',')) {
    const [head = '', ...rest] = splitOutsideQuotes(element, ';')
    const match = MEDIA_RANGE.exec(head.trim())
    if (match === null) continue
    const parameters: Record<string, string> = {}
    let q = 1
    for (const parameter of rest) {
      const equals = parameter.indexOf('=')
      if (equals === -1) continue
      const name = parameter.slice(0, equals).trim().toLowerCase()
      const value = unquote(parameter.slice(equals + 1).trim())
      if (!PARAMETER_NAME.test(name)) continue
      if (name === 'q') {
        if (WEIGHT.test(value)) q = Number(value)
      } else if (!Object.hasOwn(parameters, name)) {
        Object.defineProperty(parameters, name, { value, enumerable: true })
      }
    }
    ranges.push({ mediaType: `${match[1]}/${match[2]}`.toLowerCase(), parameters, q })
  }
  return ranges
}
