/**
 * The request URL with every path segment that cannot be percent-decoded (`%zz`, `%`, the
 * invalid UTF-8 `%c0%ae`) made literal: its `%` signs become `%25`, so the router decodes the
 * segment back to exactly the text that was sent. The request then reaches the route its path
 * has the form of, and that surface answers it as any other segment that is not an id (its id
 * error, or its 405 for a method the path does not register), instead of the router refusing
 * the whole URL. Decodable URLs, and the query string, are returned untouched.
 *
 * Used as Fastify's `rewriteUrl`, so it runs before every route, present and future.
 */
export function literalUndecodableSegments(url: string): string {
  // The hot path: most URLs have no escape at all.
  if (!url.includes('%')) return url
  const end = pathEnd(url)
  const path = url.slice(0, end)
  if (decodes(path)) return url
  const literal = path
    .split('/')
    .map((segment) => (decodes(segment) ? segment : segment.replaceAll('%', '%25')))
    .join('/')
  return literal + url.slice(end)
}

/** Where the path ends: at the query or the fragment, as the router splits it. */
function pathEnd(url: string): number {
  const query = url.indexOf('?')
  const fragment = url.indexOf('#')
  const ends = [query, fragment].filter((index) => index >= 0)
  return ends.length === 0 ? url.length : Math.min(...ends)
}

function decodes(text: string): boolean {
  try {
    decodeURIComponent(text)
    return true
  } catch {
    return false
  }
}
