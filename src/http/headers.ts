/**
 * A request header's value as one string. Node joins repeated lines of most headers itself but
 * hands some over as an array; a list-valued header (Accept) reads as one comma-separated list
 * either way.
 */
export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value
}
