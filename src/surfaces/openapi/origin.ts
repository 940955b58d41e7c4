import type { Json } from './document.js'

/**
 * The server variable every server URL of the document starts with: `{origin}/v1` for surface
 * A, `{origin}` for what is served from the root. Its value is the service's origin (scheme,
 * host and port, `http://127.0.0.1:8080`), so a client points every operation at a deployment
 * by setting this one variable (Postman: the collection variable `origin`).
 */
export const ORIGIN_VARIABLE = 'origin'

/**
 * The variable's default when the request that fetched the document does not say where it was
 * sent (no usable `Host`): the address the service listens on by default (`HOST`, `PORT`).
 */
export const DEFAULT_ORIGIN = 'http://127.0.0.1:8080'

/** A `Host` (or HTTP/2 `:authority`) value: a name or IPv4 address, or an IPv6 literal; a port. */
const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/

/**
 * The origin a request was sent to (`http://127.0.0.1:8080`), from its protocol and `Host`:
 * what a client that fetched the document from there reaches the service at. Anything that is
 * not a plain host and port gives DEFAULT_ORIGIN, so nothing else of the header gets through.
 */
export function requestOrigin(request: { protocol: string; host: string | undefined }): string {
  const { protocol, host } = request
  if (host === undefined || !HOST.test(host)) return DEFAULT_ORIGIN
  if (protocol !== 'http' && protocol !== 'https') return DEFAULT_ORIGIN
  try {
    return new URL(`${protocol}://${host}`).origin
  } catch {
    return DEFAULT_ORIGIN
  }
}

type JsonObject = { [key: string]: Json }

/** The members of a path item that are operations. */
const OPERATIONS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'])

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** `servers` with the default of each `origin` variable set to `origin`. */
function serversAt(servers: Json, origin: string): Json {
  if (!Array.isArray(servers)) return servers
  return servers.map((server) => {
    const variables = isObject(server) ? server.variables : undefined
    const variable = isObject(variables) ? variables[ORIGIN_VARIABLE] : undefined
    if (!isObject(server) || !isObject(variables) || !isObject(variable)) return server
    return {
      ...server,
      variables: { ...variables, [ORIGIN_VARIABLE]: { ...variable, default: origin } },
    }
  })
}

/** `object` with its `servers`, if any, at `origin`; every other member as it was. */
function withServersAt<T extends Record<string, unknown>>(object: T, origin: string): T {
  return 'servers' in object
    ? { ...object, servers: serversAt(object.servers as Json, origin) }
    : object
}

/**
 * The document as served to a client that reached the service at `origin`: the default of the
 * `origin` variable of every server (the document's, a path item's, an operation's) is
 * `origin`; nothing else changes, key order included. `document` is left as it is.
 */
export function withOrigin(
  document: Record<string, unknown>,
  origin: string,
): Record<string, unknown> {
  const served = withServersAt(document, origin)
  const paths = document.paths
  if (!isObject(paths)) return served
  return {
    ...served,
    paths: Object.fromEntries(
      Object.entries(paths).map(([path, item]) => {
        if (!isObject(item)) return [path, item]
        const atOrigin = withServersAt(item, origin)
        return [
          path,
          Object.fromEntries(
            Object.entries(atOrigin).map(([key, value]) => [
              key,
              OPERATIONS.has(key) && isObject(value) ? withServersAt(value, origin) : value,
            ]),
          ),
        ]
      }),
    ),
  }
}

/** How many serialised documents are kept, one per origin the service is reached at. */
const KEPT_ORIGINS = 16

/**
 * The body of a served document for each request: `render(origin)` with the origin the request
 * was sent to (`requestOrigin`), serialised once per origin. Any client may send any Host: the
 * cache stays small whatever they send.
 */
export function bodiesByOrigin(
  render: (origin: string) => unknown,
): (request: { protocol: string; host: string | undefined }) => string {
  const bodies = new Map<string, string>()
  return (request) => {
    const origin = requestOrigin(request)
    let body = bodies.get(origin)
    if (body === undefined) {
      body = JSON.stringify(render(origin))
      if (bodies.size >= KEPT_ORIGINS) bodies.clear()
      bodies.set(origin, body)
    }
    return body
  }
}
