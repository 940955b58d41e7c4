import { isIP } from 'node:net'
import { fileURLToPath } from 'node:url'
import { rfc3339Instant } from './text.js'

// Every setting of the service, read from the environment and checked once.
// No other module reads process.env: the rest of the code receives a Config.

export type TugasVersioning = 'none' | 'path' | 'header'
export type ProdukVersioning = 'none' | 'header'
export type UsersVariant = 'enveloped' | 'flat'
export type TodosVariant = 'basic' | 'priority'
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'

export interface Config {
  host: string
  port: number
  tugasVersioning: TugasVersioning
  tugasBatasDefault: number
  produkVersioning: ProdukVersioning
  usersVariant: UsersVariant
  todosVariant: TodosVariant
  /** Path of a seed file replacing the built-in demo data; undefined means the demo data. */
  seedFile: string | undefined
  laporanPenjualanFile: string
  rateLimitCapacity: number
  rateLimitRefillPerSecond: number
  produkV1Sunset: Date
  logLevel: LogLevel
  /** Milliseconds a client has to send a whole request, head and body. */
  requestTimeoutMs: number
  /** Milliseconds a client has to send a request's head (request line and headers); at most requestTimeoutMs. */
  headersTimeoutMs: number
  /** Milliseconds an idle keep-alive connection is kept open for the next request. */
  keepAliveTimeoutMs: number
  /** A `postgres://` URL: every surface's data lives there. Undefined: in process memory. */
  databaseUrl: string | undefined
  /** Connections each process keeps to PostgreSQL at most. */
  databasePoolSize: number
  /** Milliseconds one statement may run before PostgreSQL cancels it (then 503). */
  databaseStatementTimeoutMs: number
  /** A `redis://` URL: the `/laporan` token buckets live there. Undefined: in process memory. */
  redisUrl: string | undefined
  /** Start of every key the service writes in Redis, so several services can share one. */
  redisKeyPrefix: string
  /** Processes serving the one listener; above 1 needs both databaseUrl and redisUrl. */
  workers: number
  /** PEM certificate chain and private key: set together, the listener serves HTTPS. */
  tls: { certFile: string; keyFile: string } | undefined
  /**
   * A `postgres://` URL reaching PostgreSQL itself, not through a transaction-pooling proxy:
   * for what needs a session of its own (the change feed's LISTEN). Undefined: databaseUrl.
   */
  databaseDirectUrl: string | undefined
  /**
   * What `databaseUrl` reaches, as the operator says: a transaction-pooling proxy, or not.
   * Undefined: found at the first connection (docs/operating.md#behind-a-connection-pooler).
   */
  databasePooler: 'transaction' | 'none' | undefined
  /** The most recent events kept for `GET /events` to replay. */
  eventsRetain: number
  /** Milliseconds without an event after which an open stream gets a keep-alive comment. */
  eventsHeartbeatMs: number
  /** Open `GET /events` streams one process serves at most. */
  eventsMaxStreams: number
  /** Bytes waiting for all open `GET /events` streams of one process together, at most. */
  eventsBufferBytes: number
  /** How long a webhook delivery attempt may take to get its 2xx. */
  webhookTimeoutMs: number
  /** The first gap before a failed delivery is attempted again; each next one doubles. */
  webhookRetryBaseMs: number
  /** Attempts of one delivery before it is marked failed. */
  webhookMaxAttempts: number
  /** Whether webhook URLs may reach private networks (development and tests only). */
  webhookAllowPrivate: boolean
  /** DNS servers (`host[:port]`) that resolve webhook hosts; undefined: the system's. */
  webhookDnsServers: string[] | undefined
  /** Failed credentials from one client address within 60 s before it is refused (429). */
  authFailuresMax: number
  /**
   * The proxies in front, as addresses and CIDR ranges: the client address is then taken from
   * `X-Forwarded-For` (Fastify's `trustProxy`). Undefined: the socket's peer.
   */
  trustProxy: string[] | undefined
}

/** A setting has a value the service cannot run with; the message is one line for the operator. */
export class ConfigError extends Error {
  override name = 'ConfigError'
}

/** Shipped with the package: `data/` sits beside both `src/` and `dist/`. */
export const DEFAULT_LAPORAN_PENJUALAN_FILE = fileURLToPath(
  new URL('../data/laporan-penjualan.txt', import.meta.url),
)

export const defaults: Config = {
  host: '127.0.0.1',
  port: 8080,
  tugasVersioning: 'none',
  tugasBatasDefault: 10,
  produkVersioning: 'none',
  usersVariant: 'enveloped',
  todosVariant: 'basic',
  seedFile: undefined,
  laporanPenjualanFile: DEFAULT_LAPORAN_PENJUALAN_FILE,
  rateLimitCapacity: 3,
  rateLimitRefillPerSecond: 1,
  produkV1Sunset: new Date('2027-06-30T00:00:00Z'),
  logLevel: 'info',
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  // Longer than the 60 s idle timeout of common load balancers, so they close first.
  keepAliveTimeoutMs: 72_000,
  databaseUrl: undefined,
  databasePoolSize: 10,
  databaseStatementTimeoutMs: 5000,
  redisUrl: undefined,
  redisKeyPrefix: 'tugas:',
  workers: 1,
  tls: undefined,
  databaseDirectUrl: undefined,
  databasePooler: undefined,
  eventsRetain: 100_000,
  eventsHeartbeatMs: 15_000,
  eventsMaxStreams: 10_000,
  eventsBufferBytes: 64 * 1024 * 1024,
  webhookTimeoutMs: 5000,
  webhookRetryBaseMs: 1000,
  webhookMaxAttempts: 8,
  webhookAllowPrivate: false,
  webhookDnsServers: undefined,
  authFailuresMax: 20,
  trustProxy: undefined,
}

const DAY_MS = 24 * 60 * 60 * 1000

type Env = Readonly<Record<string, string | undefined>>

function oneOf<T extends string>(name: string, allowed: readonly T[]) {
  return (raw: string): T => {
    if ((allowed as readonly string[]).includes(raw)) return raw as T
    throw new ConfigError(`${name}=${JSON.stringify(raw)} is not one of: ${allowed.join(', ')}`)
  }
}

function integer(name: string, min: number, max: number) {
  return (raw: string): number => {
    const value = /^[0-9]+$/.test(raw) ? Number(raw) : Number.NaN
    if (Number.isSafeInteger(value) && value >= min && value <= max) return value
    throw new ConfigError(
      `${name}=${JSON.stringify(raw)} must be a whole number from ${min} to ${max}`,
    )
  }
}

function positiveNumber(name: string) {
  return (raw: string): number => {
    const value = /^[0-9]+(\.[0-9]+)?$/.test(raw) ? Number(raw) : Number.NaN
    if (Number.isFinite(value) && value > 0) return value
    throw new ConfigError(`${name}=${JSON.stringify(raw)} must be a number greater than 0`)
  }
}

function nonEmpty(name: string) {
  return (raw: string): string => {
    if (raw.trim() !== '') return raw
    throw new ConfigError(`${name} must not be empty`)
  }
}

/** A URL of a backing service with one of `protocols` and a host; never echoed (a password). */
function serviceUrl(name: string, protocols: string[], example: string) {
  return (raw: string): string => {
    let url: URL | undefined
    try {
      url = new URL(raw)
    } catch {
      url = undefined
    }
    if (url !== undefined && protocols.includes(url.protocol)) {
      // PostgreSQL may name its host (a socket folder) in the query instead.
      if (url.hostname !== '' || url.searchParams.has('host')) return raw
    }
    throw new ConfigError(`${name} must be a ${protocols[0]}// URL, e.g. ${example}`)
  }
}

/** Addresses and CIDR ranges, comma-separated (`10.0.0.0/8, 192.168.1.10`). */
function proxies(name: string) {
  return (raw: string): string[] => {
    const entries = raw.split(',').map((entry) => entry.trim())
    for (const entry of entries) {
      const [address = '', prefix, ...more] = entry.split('/')
      const family = isIP(address)
      const bits = family === 4 ? 32 : 128
      const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits)
      if (family === 0 || !prefixOk || more.length > 0) {
        throw new ConfigError(
          `${name}=${JSON.stringify(raw)}: ${JSON.stringify(entry)} is not an IP address or a CIDR range, e.g. 10.0.0.0/8, 192.168.1.10`,
        )
      }
    }
    return entries
  }
}

/**
 * DNS servers, comma-separated: IP addresses with an optional port (`10.0.0.2`,
 * `10.0.0.2:5353`, `[::1]:53`), as node:dns's setServers takes them.
 */
function dnsServers(name: string) {
  return (raw: string): string[] => {
    const entries = raw.split(',').map((entry) => entry.trim())
    for (const entry of entries) {
      const match = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d{1,5}))?$/.exec(entry)
      const bracketed = match?.[1]
      const plain = match?.[2]
      const port = match?.[3]
      const hostOk =
        (bracketed !== undefined && isIP(bracketed) === 6) ||
        (plain !== undefined && isIP(plain) === 4) ||
        (port === undefined && isIP(entry) === 6)
      const portOk = port === undefined || (Number(port) >= 1 && Number(port) <= 65535)
      if (!hostOk || !portOk) {
        throw new ConfigError(
          `${name}=${JSON.stringify(raw)}: ${JSON.stringify(entry)} is not an IP address with an optional port, e.g. 10.0.0.2, 10.0.0.2:5353, [::1]:53`,
        )
      }
    }
    return entries
  }
}

function instant(name: string) {
  return (raw: string): Date => {
    const value = rfc3339Instant(raw)
    if (value !== undefined) return value
    throw new ConfigError(
      `${name}=${JSON.stringify(raw)} must be an RFC 3339 date-time with offset, e.g. 2027-06-30T00:00:00Z`,
    )
  }
}

/**
 * Reads every setting from `env`. An unset variable takes its default; a set one must be valid,
 * including the empty string, so a typo never falls back silently.
 */
export function loadConfig(env: Env = process.env): Config {
  const read = <T>(name: string, parse: (raw: string) => T, fallback: T): T => {
    const raw = env[name]
    return raw === undefined ? fallback : parse(raw)
  }
  const config: Config = {
    host: read('HOST', nonEmpty('HOST'), defaults.host),
    port: read('PORT', integer('PORT', 0, 65535), defaults.port),
    tugasVersioning: read(
      'TUGAS_VERSIONING',
      oneOf('TUGAS_VERSIONING', ['none', 'path', 'header'] as const),
      defaults.tugasVersioning,
    ),
    tugasBatasDefault: read(
      'TUGAS_BATAS_DEFAULT',
      integer('TUGAS_BATAS_DEFAULT', 1, 100),
      defaults.tugasBatasDefault,
    ),
    produkVersioning: read(
      'PRODUK_VERSIONING',
      oneOf('PRODUK_VERSIONING', ['none', 'header'] as const),
      defaults.produkVersioning,
    ),
    usersVariant: read(
      'USERS_VARIANT',
      oneOf('USERS_VARIANT', ['enveloped', 'flat'] as const),
      defaults.usersVariant,
    ),
    todosVariant: read(
      'TODOS_VARIANT',
      oneOf('TODOS_VARIANT', ['basic', 'priority'] as const),
      defaults.todosVariant,
    ),
    seedFile: read('SEED_FILE', nonEmpty('SEED_FILE'), defaults.seedFile),
    laporanPenjualanFile: read(
      'LAPORAN_PENJUALAN_FILE',
      nonEmpty('LAPORAN_PENJUALAN_FILE'),
      defaults.laporanPenjualanFile,
    ),
    rateLimitCapacity: read(
      'RATE_LIMIT_CAPACITY',
      integer('RATE_LIMIT_CAPACITY', 1, 1_000_000),
      defaults.rateLimitCapacity,
    ),
    rateLimitRefillPerSecond: read(
      'RATE_LIMIT_REFILL_PER_SECOND',
      positiveNumber('RATE_LIMIT_REFILL_PER_SECOND'),
      defaults.rateLimitRefillPerSecond,
    ),
    produkV1Sunset: read('PRODUK_V1_SUNSET', instant('PRODUK_V1_SUNSET'), defaults.produkV1Sunset),
    logLevel: read(
      'LOG_LEVEL',
      oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const),
      defaults.logLevel,
    ),
    requestTimeoutMs: read(
      'REQUEST_TIMEOUT_MS',
      integer('REQUEST_TIMEOUT_MS', 1, DAY_MS),
      defaults.requestTimeoutMs,
    ),
    headersTimeoutMs: defaults.headersTimeoutMs,
    keepAliveTimeoutMs: read(
      'KEEP_ALIVE_TIMEOUT_MS',
      integer('KEEP_ALIVE_TIMEOUT_MS', 1, DAY_MS),
      defaults.keepAliveTimeoutMs,
    ),
    databaseUrl: read(
      'DATABASE_URL',
      serviceUrl('DATABASE_URL', ['postgres:', 'postgresql:'], 'postgres://user@host:5432/db'),
      defaults.databaseUrl,
    ),
    redisUrl: read(
      'REDIS_URL',
      serviceUrl('REDIS_URL', ['redis:', 'rediss:'], 'redis://host:6379'),
      defaults.redisUrl,
    ),
    redisKeyPrefix: read('REDIS_KEY_PREFIX', nonEmpty('REDIS_KEY_PREFIX'), defaults.redisKeyPrefix),
    databasePoolSize: read(
      'DATABASE_POOL_SIZE',
      integer('DATABASE_POOL_SIZE', 1, 1000),
      defaults.databasePoolSize,
    ),
    databaseStatementTimeoutMs: read(
      'DATABASE_STATEMENT_TIMEOUT_MS',
      integer('DATABASE_STATEMENT_TIMEOUT_MS', 1, DAY_MS),
      defaults.databaseStatementTimeoutMs,
    ),
    workers: defaults.workers,
    tls: defaults.tls,
    databaseDirectUrl: read(
      'DATABASE_DIRECT_URL',
      serviceUrl(
        'DATABASE_DIRECT_URL',
        ['postgres:', 'postgresql:'],
        'postgres://user@host:5432/db',
      ),
      defaults.databaseDirectUrl,
    ),
    databasePooler: read(
      'DATABASE_POOLER',
      oneOf('DATABASE_POOLER', ['transaction', 'none'] as const),
      defaults.databasePooler,
    ),
    eventsRetain: read(
      'EVENTS_RETAIN',
      integer('EVENTS_RETAIN', 1, 100_000_000),
      defaults.eventsRetain,
    ),
    eventsHeartbeatMs: read(
      'EVENTS_HEARTBEAT_MS',
      integer('EVENTS_HEARTBEAT_MS', 1000, 3_600_000),
      defaults.eventsHeartbeatMs,
    ),
    eventsMaxStreams: read(
      'EVENTS_MAX_STREAMS',
      integer('EVENTS_MAX_STREAMS', 1, 1_000_000),
      defaults.eventsMaxStreams,
    ),
    eventsBufferBytes: read(
      'EVENTS_BUFFER_BYTES',
      integer('EVENTS_BUFFER_BYTES', 1024 * 1024, 1024 ** 4),
      defaults.eventsBufferBytes,
    ),
    webhookTimeoutMs: read(
      'WEBHOOK_TIMEOUT_MS',
      integer('WEBHOOK_TIMEOUT_MS', 1, 600_000),
      defaults.webhookTimeoutMs,
    ),
    webhookRetryBaseMs: read(
      'WEBHOOK_RETRY_BASE_MS',
      integer('WEBHOOK_RETRY_BASE_MS', 1, 3_600_000),
      defaults.webhookRetryBaseMs,
    ),
    webhookMaxAttempts: read(
      'WEBHOOK_MAX_ATTEMPTS',
      integer('WEBHOOK_MAX_ATTEMPTS', 1, 100),
      defaults.webhookMaxAttempts,
    ),
    webhookAllowPrivate:
      read(
        'WEBHOOK_ALLOW_PRIVATE',
        oneOf('WEBHOOK_ALLOW_PRIVATE', ['true', 'false'] as const),
        undefined,
      ) === 'true',
    webhookDnsServers: read(
      'WEBHOOK_DNS_SERVERS',
      dnsServers('WEBHOOK_DNS_SERVERS'),
      defaults.webhookDnsServers,
    ),
    authFailuresMax: read(
      'AUTH_FAILURES_MAX',
      integer('AUTH_FAILURES_MAX', 1, 100_000),
      defaults.authFailuresMax,
    ),
    trustProxy: read('TRUST_PROXY', proxies('TRUST_PROXY'), defaults.trustProxy),
  }
  config.workers = read('WORKERS', integer('WORKERS', 1, 1024), defaults.workers)
  if (config.workers > 1 && (config.databaseUrl === undefined || config.redisUrl === undefined)) {
    // Each process would otherwise hold its own tasks, ids and buckets: clients would see that.
    throw new ConfigError(
      `WORKERS=${config.workers} needs both DATABASE_URL and REDIS_URL: every process must share the data and the /laporan buckets`,
    )
  }
  const certFile = read('TLS_CERT_FILE', nonEmpty('TLS_CERT_FILE'), undefined)
  const keyFile = read('TLS_KEY_FILE', nonEmpty('TLS_KEY_FILE'), undefined)
  if ((certFile === undefined) !== (keyFile === undefined)) {
    throw new ConfigError('TLS_CERT_FILE and TLS_KEY_FILE must be set together, or neither')
  }
  if (certFile !== undefined && keyFile !== undefined) config.tls = { certFile, keyFile }
  // The head is part of the request: its limit defaults to no more than the whole's, and Node
  // refuses a head limit longer than the whole.
  config.headersTimeoutMs = read(
    'HEADERS_TIMEOUT_MS',
    integer('HEADERS_TIMEOUT_MS', 1, DAY_MS),
    Math.min(defaults.headersTimeoutMs, config.requestTimeoutMs),
  )
  if (config.headersTimeoutMs > config.requestTimeoutMs) {
    throw new ConfigError(
      `HEADERS_TIMEOUT_MS=${config.headersTimeoutMs} must not exceed REQUEST_TIMEOUT_MS=${config.requestTimeoutMs}`,
    )
  }
  return config
}
