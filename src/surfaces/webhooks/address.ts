// Which addresses a webhook may be delivered to (OWASP API7, server-side request forgery):
// none on a private network, checked on the address actually connected to.
import { BlockList, isIP } from 'node:net'
import type { NameResolver } from './resolver.js'

/**
 * Loopback, private, link-local (cloud metadata at 169.254.169.254 included), unique-local,
 * unspecified, and beside them what is never a public host: shared (carrier-grade NAT),
 * benchmarking, multicast and reserved ranges.
 */
const PRIVATE = new BlockList()
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv4')
}
for (const [network, prefix] of [
  // IPv4-compatible (deprecated, RFC 4291), `::` and `::1` among them.
  ['::', 96],
  // NAT64 for local use (RFC 8215): whatever the network behind it translates to.
  ['64:ff9b:1::', 48],
  ['fc00::', 7],
  ['fe80::', 10],
  // Site-local (deprecated, RFC 3879): private like unique-local.
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv6')
}

/** The eight 16-bit groups of `address` (IPv6), as the URL parser normalises it. */
function ipv6Groups(address: string): number[] {
  // The URL parser writes an IPv4 tail in hex (`::ffff:7f00:1`), so only groups remain.
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1)
  const [head = '', tail] = canonical.split('::')
  const groups = (part: string) =>
    part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16))
  const before = groups(head)
  const after = tail === undefined ? [] : groups(tail)
  return [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after]
}

/** `high` and `low` (16-bit groups) as the IPv4 address they hold. */
const ipv4Of = (high: number, low: number) => [high >> 8, high & 255, low >> 8, low & 255].join('.')

/**
 * The IPv4 address an IPv6 one carries, where the network may deliver to that IPv4 address:
 * IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d` (RFC 2765), NAT64
 * `64:ff9b::a.b.c.d` (RFC 6052), and 6to4 `2002:aabb:ccdd::/48` (RFC 3056).
 */
function carriedIpv4(groups: number[]): string | undefined {
  const [g0, g1, g2, g3, g4, g5, g6 = 0, g7 = 0] = groups
  const zeroTo = (n: number) => groups.slice(0, n).every((group) => group === 0)
  if (zeroTo(5) && g5 === 0xffff) return ipv4Of(g6, g7)
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return ipv4Of(g6, g7)
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return ipv4Of(g6, g7)
  }
  if (g0 === 0x2002) return ipv4Of(g1 ?? 0, g2 ?? 0)
  return undefined
}

/** Whether `address` (an IP address, v4 or v6) is one a webhook is never delivered to. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 4) return PRIVATE.check(address, 'ipv4')
  if (family !== 6) return true
  const carried = carriedIpv4(ipv6Groups(address))
  if (carried !== undefined && PRIVATE.check(carried, 'ipv4')) return true
  return PRIVATE.check(address, 'ipv6')
}

/** Where a delivery connects: the address a host name resolved to, once. */
export interface Destination {
  address: string
  family: 4 | 6
}

/**
 * Why a destination is refused: it is (or resolves to) a private address, resolves to none, or
 * the resolver gave no answer in time.
 */
export type Refusal = { refused: 'private' | 'unresolved' | 'timeout' }

/** How a host is looked up: the resolver, and the time it has (docs/webhooks.md#name-resolution). */
export interface Lookup {
  resolver: NameResolver
  timeoutMs: number
  /** Aborted: the lookup is given up at once (the service is stopping). */
  signal?: AbortSignal
}

/**
 * Resolves `host` (a URL's hostname) once and checks every address it gives: refused when any
 * is private (unless `allowPrivate`) or there is none. A delivery then connects to the address
 * returned, never resolving again, so a name that answers differently the second time cannot
 * lead it elsewhere. An IP literal is its own address, without a lookup.
 */
export async function resolveDestination(
  host: string,
  allowPrivate: boolean,
  { resolver, timeoutMs, signal }: Lookup,
): Promise<Destination | Refusal> {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
  const family = isIP(bare)
  const addresses =
    family !== 0
      ? [{ address: bare, family: family === 6 ? (6 as const) : (4 as const) }]
      : await resolver.resolve(bare, timeoutMs, signal)
  if (addresses === 'timeout') return { refused: 'timeout' }
  const [first] = addresses
  if (first === undefined) return { refused: 'unresolved' }
  if (!allowPrivate && addresses.some(({ address }) => isPrivateAddress(address))) {
    return { refused: 'private' }
  }
  return first
}
