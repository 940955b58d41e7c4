// Which addresses a webhook may be delivered to (OWASP API7, server-side request forgery):
// none on a private network, checked on the address actually connected to.
import { lookup } from 'node:dns/promises'
import { BlockList, isIP } from 'node:net'

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
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv6')
}

/** The IPv4 address an IPv6 one carries (IPv4-mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::`). */
function carriedIpv4(address: string): string | undefined {
  const match =
    /^(?:::ffff:|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(address)
  if (match === null) return undefined
  if (match[1] !== undefined) return match[1]
  const high = Number.parseInt(match[2] as string, 16)
  const low = Number.parseInt(match[3] as string, 16)
  return [high >> 8, high & 255, low >> 8, low & 255].join('.')
}

/** `address` (IPv6) as a URL writes it: compressed, an IPv4 part in hex (`::ffff:7f00:1`). */
function canonicalIpv6(address: string): string {
  return new URL(`http://[${address}]/`).hostname.slice(1, -1)
}

/** Whether `address` (an IP address, v4 or v6) is one a webhook is never delivered to. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 4) return PRIVATE.check(address, 'ipv4')
  if (family !== 6) return true
  const canonical = canonicalIpv6(address)
  const carried = carriedIpv4(canonical)
  if (carried !== undefined) return PRIVATE.check(carried, 'ipv4')
  return PRIVATE.check(canonical, 'ipv6')
}

/** Where a delivery connects: the address a host name resolved to, once. */
export interface Destination {
  address: string
  family: 4 | 6
}

/** Why a destination is refused: it is (or resolves to) a private address, or to none. */
export type Refusal = { refused: 'private' | 'unresolved' }

/**
 * Resolves `host` (a URL's hostname) once and checks every address it gives: refused when any
 * is private (unless `allowPrivate`) or there is none. A delivery then connects to the address
 * returned, never resolving again, so a name that answers differently the second time cannot
 * lead it elsewhere.
 */
export async function resolveDestination(
  host: string,
  allowPrivate: boolean,
): Promise<Destination | Refusal> {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
  let addresses: { address: string; family: number }[]
  if (isIP(bare) !== 0) addresses = [{ address: bare, family: isIP(bare) }]
  else {
    try {
      addresses = await lookup(bare, { all: true, verbatim: true })
    } catch {
      addresses = []
    }
  }
  const [first] = addresses
  if (first === undefined) return { refused: 'unresolved' }
  if (!allowPrivate && addresses.some(({ address }) => isPrivateAddress(address))) {
    return { refused: 'private' }
  }
  return { address: first.address, family: first.family === 6 ? 6 : 4 }
}
