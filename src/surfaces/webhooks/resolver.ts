// Name resolution for deliveries (docs/webhooks.md#name-resolution): by c-ares (node:dns's
// Resolver), never by getaddrinfo, which runs on libuv's four pool threads that scrypt and file
// reads share; and given up at the attempt's deadline, so it counts within the attempt's time.
import { Resolver } from 'node:dns/promises'

/** One address a name resolved to. */
export interface ResolvedAddress {
  address: string
  family: 4 | 6
}

/**
 * Once one family has answered, how long the other may still take: a server that drops AAAA
 * queries must not cost the whole deadline (RFC 8305's resolution delay).
 */
const OTHER_FAMILY_GRACE_MS = 50

/** Sends of each query to each server; the first waits a quarter of the time, then doubling. */
const TRIES = 4

/** Names that are loopback by definition (RFC 6761), answered without asking a server. */
const LOOPBACK: readonly ResolvedAddress[] = [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
]

const isLoopbackName = (name: string) => name === 'localhost' || name.endsWith('.localhost')

export class NameResolver {
  /** `servers`: `host[:port]` entries as node:dns takes them; undefined: the system's. */
  constructor(private readonly servers?: readonly string[]) {}

  /**
   * The addresses of `name` (not an IP literal), IPv4 first; `timeout` when no answer came
   * within `timeoutMs` or before `signal` aborted (every query still open is then cancelled).
   */
  async resolve(
    name: string,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<ResolvedAddress[] | 'timeout'> {
    const bare = name.toLowerCase().replace(/\.$/, '')
    if (isLoopbackName(bare)) return [...LOOPBACK]
    // A channel of its own: cancel() ends every query of its channel, and only these may end.
    const resolver = new Resolver({ timeout: Math.max(1, Math.floor(timeoutMs / 4)), tries: TRIES })
    if (this.servers !== undefined) resolver.setServers(this.servers)
    const cancel = () => resolver.cancel()
    const timers = [setTimeout(cancel, timeoutMs)]
    signal?.addEventListener('abort', cancel, { once: true })
    let timedOut = false
    const ask = async (query: Promise<string[]>): Promise<string[]> => {
      try {
        const addresses = await query
        if (addresses.length > 0) timers.push(setTimeout(cancel, OTHER_FAMILY_GRACE_MS))
        return addresses
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        if (code === 'ECANCELLED' || code === 'ETIMEOUT') timedOut = true
        return []
      }
    }
    try {
      const [v4, v6] = await Promise.all([
        ask(resolver.resolve4(bare)),
        ask(resolver.resolve6(bare)),
      ])
      const found: ResolvedAddress[] = [
        ...v4.map((address) => ({ address, family: 4 as const })),
        ...v6.map((address) => ({ address, family: 6 as const })),
      ]
      return found.length === 0 && timedOut ? 'timeout' : found
    } finally {
      for (const timer of timers) clearTimeout(timer)
      signal?.removeEventListener('abort', cancel)
    }
  }
}
