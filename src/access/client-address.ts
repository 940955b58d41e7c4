// Who the throttle of failed credentials counts (docs/supporting.md#guessing-credentials-throttled):
// an IPv4 client by its address, an IPv6 client by its /64 prefix, since one host is commonly
// given a whole /64 and could otherwise rotate through it.
import { isIPv6 } from 'node:net'

/**
 * The key `address` (a request's `ip`) is counted under: an IPv4 address as it is (IPv4-mapped
 * IPv6, `::ffff:a.b.c.d`, as the IPv4 address), an IPv6 one as its /64 (`2001:db8:0:1::/64`),
 * anything else as it is.
 */
export function throttleKey(address: string): string {
  // Most clients: IPv4, which has no colon.
  if (!address.includes(':')) return address
  const bare = address.replace(/%.*$/, '')
  if (!isIPv6(bare)) return address
  const groups = hextets(bare)
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    const [high = 0, low = 0] = groups.slice(6)
    return [high >> 8, high & 255, low >> 8, low & 255].join('.')
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`
}

/** The eight 16-bit groups of a valid IPv6 address, `::` and a dotted IPv4 tail expanded. */
function hextets(address: string): number[] {
  const [head = '', tail] = address.split('::')
  const parse = (part: string) =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [Number.parseInt(group, 16)]
          const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number)
          return [(a << 8) | b, (c << 8) | d]
        })
  const first = parse(head)
  if (tail === undefined) return first
  const last = parse(tail)
  return [...first, ...Array<number>(8 - first.length - last.length).fill(0), ...last]
}
