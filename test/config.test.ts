import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { ConfigError, defaults, loadConfig } from '../src/config.js'

describe('loadConfig', () => {
  test('an empty environment gives every default of decisions.md', () => {
    const config = loadConfig({})
    assert.deepEqual(config, defaults)
    assert.equal(config.host, '127.0.0.1')
    assert.equal(config.port, 8080)
    assert.equal(config.tugasVersioning, 'none')
    assert.equal(config.tugasBatasDefault, 10)
    assert.equal(config.produkVersioning, 'none')
    assert.equal(config.usersVariant, 'enveloped')
    assert.equal(config.todosVariant, 'basic')
    assert.equal(config.seedFile, undefined)
    assert.match(config.laporanPenjualanFile, /data\/laporan-penjualan\.txt$/)
    assert.equal(config.rateLimitCapacity, 3)
    assert.equal(config.rateLimitRefillPerSecond, 1)
    assert.equal(config.produkV1Sunset.toISOString(), '2027-06-30T00:00:00.000Z')
    assert.equal(config.logLevel, 'info')
    assert.equal(config.requestTimeoutMs, 30_000)
    assert.equal(config.headersTimeoutMs, 10_000)
    assert.equal(config.keepAliveTimeoutMs, 72_000)
    assert.equal(config.databaseUrl, undefined)
    assert.equal(config.databasePoolSize, 10)
    assert.equal(config.databaseStatementTimeoutMs, 5000)
    assert.equal(config.databaseDirectUrl, undefined)
    assert.equal(config.databasePooler, undefined)
    assert.equal(config.eventsRetain, 100_000)
    assert.equal(config.eventsHeartbeatMs, 15_000)
    assert.equal(config.eventsMaxStreams, 10_000)
    assert.equal(config.eventsBufferBytes, 67_108_864)
  })

  test('every setting is read', () => {
    const config = loadConfig({
      HOST: '0.0.0.0',
      PORT: '0',
      TUGAS_VERSIONING: 'header',
      TUGAS_BATAS_DEFAULT: '3',
      PRODUK_VERSIONING: 'header',
      USERS_VARIANT: 'flat',
      TODOS_VARIANT: 'priority',
      SEED_FILE: '/tmp/seed.json',
      LAPORAN_PENJUALAN_FILE: '/tmp/laporan.txt',
      RATE_LIMIT_CAPACITY: '5',
      RATE_LIMIT_REFILL_PER_SECOND: '0.5',
      PRODUK_V1_SUNSET: '2020-01-01T00:00:00Z',
      LOG_LEVEL: 'silent',
      REQUEST_TIMEOUT_MS: '5000',
      HEADERS_TIMEOUT_MS: '5000',
      KEEP_ALIVE_TIMEOUT_MS: '1000',
      DATABASE_URL: 'postgres://tugas:rahasia@db.internal:6543/tugas?sslmode=require',
      DATABASE_POOL_SIZE: '25',
      DATABASE_STATEMENT_TIMEOUT_MS: '2500',
      REDIS_URL: 'redis://:rahasia@cache.internal:6380/1',
      REDIS_KEY_PREFIX: 'staging:tugas:',
      WORKERS: '4',
      TLS_CERT_FILE: '/etc/tugas/cert.pem',
      TLS_KEY_FILE: '/etc/tugas/key.pem',
      DATABASE_DIRECT_URL: 'postgres://tugas:rahasia@db.internal:5432/tugas',
      DATABASE_POOLER: 'transaction',
      EVENTS_RETAIN: '100000000',
      EVENTS_HEARTBEAT_MS: '1000',
      EVENTS_MAX_STREAMS: '1',
      EVENTS_BUFFER_BYTES: '1099511627776',
      WEBHOOK_TIMEOUT_MS: '600000',
      WEBHOOK_RETRY_BASE_MS: '1',
      WEBHOOK_MAX_ATTEMPTS: '100',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_DNS_SERVERS: '10.0.0.2, 10.0.0.3:5353,[fd00::53]:53, ::1',
      AUTH_FAILURES_MAX: '100000',
      TRUST_PROXY: '10.0.0.0/8, 192.168.1.10,::1, fd00::/8',
    })
    assert.deepEqual(config, {
      host: '0.0.0.0',
      port: 0,
      tugasVersioning: 'header',
      tugasBatasDefault: 3,
      produkVersioning: 'header',
      usersVariant: 'flat',
      todosVariant: 'priority',
      seedFile: '/tmp/seed.json',
      laporanPenjualanFile: '/tmp/laporan.txt',
      rateLimitCapacity: 5,
      rateLimitRefillPerSecond: 0.5,
      produkV1Sunset: new Date('2020-01-01T00:00:00Z'),
      logLevel: 'silent',
      requestTimeoutMs: 5000,
      headersTimeoutMs: 5000,
      keepAliveTimeoutMs: 1000,
      databaseUrl: 'postgres://tugas:rahasia@db.internal:6543/tugas?sslmode=require',
      databasePoolSize: 25,
      databaseStatementTimeoutMs: 2500,
      redisUrl: 'redis://:rahasia@cache.internal:6380/1',
      redisKeyPrefix: 'staging:tugas:',
      workers: 4,
      tls: { certFile: '/etc/tugas/cert.pem', keyFile: '/etc/tugas/key.pem' },
      databaseDirectUrl: 'postgres://tugas:rahasia@db.internal:5432/tugas',
      databasePooler: 'transaction',
      eventsRetain: 100_000_000,
      eventsHeartbeatMs: 1000,
      eventsMaxStreams: 1,
      eventsBufferBytes: 1_099_511_627_776,
      webhookTimeoutMs: 600_000,
      webhookRetryBaseMs: 1,
      webhookMaxAttempts: 100,
      webhookAllowPrivate: true,
      webhookDnsServers: ['10.0.0.2', '10.0.0.3:5353', '[fd00::53]:53', '::1'],
      authFailuresMax: 100_000,
      trustProxy: ['10.0.0.0/8', '192.168.1.10', '::1', 'fd00::/8'],
    })
  })

  test('DATABASE_POOLER: transaction or none, as written; unset, found at the first connection', () => {
    assert.equal(loadConfig({ DATABASE_POOLER: 'none' }).databasePooler, 'none')
    assert.equal(loadConfig({ DATABASE_POOLER: 'transaction' }).databasePooler, 'transaction')
    assert.equal(loadConfig({}).databasePooler, undefined)
  })

  const refused: [string, string][] = [
    ['PORT', '65536'],
    ['PORT', '-1'],
    ['PORT', '80a'],
    ['PORT', ''],
    ['PORT', '1e3'],
    ['HOST', ''],
    ['TUGAS_VERSIONING', 'query'],
    ['TUGAS_VERSIONING', 'NONE'],
    ['TUGAS_BATAS_DEFAULT', '0'],
    ['TUGAS_BATAS_DEFAULT', '101'],
    ['TUGAS_BATAS_DEFAULT', '2.5'],
    ['PRODUK_VERSIONING', 'path'],
    ['USERS_VARIANT', 'nested'],
    ['TODOS_VARIANT', 'advanced'],
    ['SEED_FILE', ''],
    ['LAPORAN_PENJUALAN_FILE', ' '],
    ['RATE_LIMIT_CAPACITY', '0'],
    ['RATE_LIMIT_CAPACITY', 'three'],
    ['RATE_LIMIT_REFILL_PER_SECOND', '0'],
    ['RATE_LIMIT_REFILL_PER_SECOND', '-1'],
    ['RATE_LIMIT_REFILL_PER_SECOND', 'fast'],
    ['PRODUK_V1_SUNSET', '2027-06-30'],
    ['PRODUK_V1_SUNSET', 'tomorrow'],
    ['PRODUK_V1_SUNSET', '2027-13-40T00:00:00Z'],
    ['LOG_LEVEL', 'verbose'],
    ['REQUEST_TIMEOUT_MS', '0'],
    ['REQUEST_TIMEOUT_MS', '30s'],
    ['REQUEST_TIMEOUT_MS', '86400001'],
    ['HEADERS_TIMEOUT_MS', '0'],
    ['HEADERS_TIMEOUT_MS', '-5'],
    ['KEEP_ALIVE_TIMEOUT_MS', '0'],
    ['KEEP_ALIVE_TIMEOUT_MS', '1.5'],
    ['DATABASE_URL', ''],
    ['DATABASE_URL', 'tugas'],
    ['DATABASE_URL', 'mysql://root@127.0.0.1/tugas'],
    ['DATABASE_URL', 'postgres://'],
    ['DATABASE_POOL_SIZE', '0'],
    ['DATABASE_POOL_SIZE', '1001'],
    ['DATABASE_STATEMENT_TIMEOUT_MS', '0'],
    ['DATABASE_STATEMENT_TIMEOUT_MS', '5s'],
    ['REDIS_URL', ''],
    ['REDIS_URL', 'localhost:6379'],
    ['REDIS_URL', 'postgres://127.0.0.1/tugas'],
    ['REDIS_URL', 'redis://'],
    ['REDIS_KEY_PREFIX', ''],
    ['WORKERS', '0'],
    ['WORKERS', 'two'],
    ['WORKERS', '1025'],
    ['WORKERS', ''],
    ['DATABASE_DIRECT_URL', ''],
    ['DATABASE_DIRECT_URL', 'redis://127.0.0.1:6379'],
    ['DATABASE_POOLER', ''],
    ['DATABASE_POOLER', 'session'],
    ['DATABASE_POOLER', 'Transaction'],
    ['EVENTS_RETAIN', '0'],
    ['EVENTS_RETAIN', '100000001'],
    ['EVENTS_RETAIN', '1e5'],
    ['EVENTS_HEARTBEAT_MS', '999'],
    ['EVENTS_HEARTBEAT_MS', '3600001'],
    ['EVENTS_HEARTBEAT_MS', ''],
    ['EVENTS_MAX_STREAMS', '0'],
    ['EVENTS_MAX_STREAMS', '1000001'],
    ['EVENTS_MAX_STREAMS', 'many'],
    ['EVENTS_BUFFER_BYTES', '1048575'],
    ['EVENTS_BUFFER_BYTES', '1099511627777'],
    ['EVENTS_BUFFER_BYTES', '64MiB'],
    ['WEBHOOK_TIMEOUT_MS', '0'],
    ['WEBHOOK_TIMEOUT_MS', '600001'],
    ['WEBHOOK_RETRY_BASE_MS', '0'],
    ['WEBHOOK_RETRY_BASE_MS', '3600001'],
    ['WEBHOOK_MAX_ATTEMPTS', '0'],
    ['WEBHOOK_MAX_ATTEMPTS', '101'],
    ['WEBHOOK_MAX_ATTEMPTS', '2.5'],
    ['WEBHOOK_ALLOW_PRIVATE', 'yes'],
    ['WEBHOOK_ALLOW_PRIVATE', 'TRUE'],
    ['WEBHOOK_DNS_SERVERS', ''],
    ['WEBHOOK_DNS_SERVERS', 'dns.internal'],
    ['WEBHOOK_DNS_SERVERS', '10.0.0.2,'],
    ['WEBHOOK_DNS_SERVERS', '10.0.0.2:0'],
    ['WEBHOOK_DNS_SERVERS', '10.0.0.2:65536'],
    ['WEBHOOK_DNS_SERVERS', '10.0.0.2:53:53'],
    ['WEBHOOK_DNS_SERVERS', '[10.0.0.2]:53'],
    ['WEBHOOK_DNS_SERVERS', '[fd00::53'],
    ['AUTH_FAILURES_MAX', '0'],
    ['AUTH_FAILURES_MAX', '100001'],
    ['TRUST_PROXY', ''],
    ['TRUST_PROXY', 'proxy.internal'],
    ['TRUST_PROXY', '10.0.0.0/33'],
    ['TRUST_PROXY', '10.0.0.1,'],
    ['TRUST_PROXY', '::1/129'],
    ['TRUST_PROXY', '10.0.0.0/8/1'],
    ['TLS_CERT_FILE', ''],
    ['TLS_KEY_FILE', ' '],
  ]
  for (const [name, value] of refused) {
    test(`${name}=${JSON.stringify(value)} is refused with a one-line message naming it`, () => {
      assert.throws(
        () => loadConfig({ [name]: value }),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError)
          assert.ok(error.message.startsWith(name), error.message)
          assert.doesNotMatch(error.message, /\n/)
          return true
        },
      )
    })
  }

  test('a head time limit longer than the whole request is refused, naming both settings', () => {
    for (const env of [
      { HEADERS_TIMEOUT_MS: '30001' },
      { REQUEST_TIMEOUT_MS: '5000', HEADERS_TIMEOUT_MS: '10000' },
      { REQUEST_TIMEOUT_MS: '1000', HEADERS_TIMEOUT_MS: '1001' },
    ]) {
      assert.throws(
        () => loadConfig(env),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError)
          assert.match(
            error.message,
            /^HEADERS_TIMEOUT_MS=\d+ must not exceed REQUEST_TIMEOUT_MS=\d+$/,
          )
          return true
        },
      )
    }
  })

  test('the head time limit defaults to 10 s, or to the whole request limit when that is shorter', () => {
    assert.equal(loadConfig({ REQUEST_TIMEOUT_MS: '60000' }).headersTimeoutMs, 10_000)
    assert.equal(loadConfig({ REQUEST_TIMEOUT_MS: '5000' }).headersTimeoutMs, 5000)
  })

  test('DATABASE_URL: postgresql:// and a socket host are accepted; a refusal never echoes the URL', () => {
    assert.equal(
      loadConfig({ DATABASE_URL: 'postgresql://u@h/db' }).databaseUrl,
      'postgresql://u@h/db',
    )
    const socket = 'postgres:///tugas?host=/var/run/postgresql'
    assert.equal(loadConfig({ DATABASE_URL: socket }).databaseUrl, socket)
    assert.throws(
      () => loadConfig({ DATABASE_URL: 'mysql://root:rahasia@h/db' }),
      (error: unknown) => error instanceof ConfigError && !error.message.includes('rahasia'),
    )
  })

  test('REDIS_URL: redis:// and rediss:// are accepted; unset keeps the buckets in memory; a refusal never echoes the URL', () => {
    assert.equal(loadConfig({}).redisUrl, undefined)
    assert.equal(loadConfig({ REDIS_URL: 'redis://h:6379/2' }).redisUrl, 'redis://h:6379/2')
    assert.equal(loadConfig({ REDIS_URL: 'rediss://:pw@h:6380' }).redisUrl, 'rediss://:pw@h:6380')
    assert.throws(
      () => loadConfig({ REDIS_URL: 'http://:rahasia@h:6379' }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message === 'REDIS_URL must be a redis:// URL, e.g. redis://host:6379',
    )
  })

  test('WORKERS above 1 is refused without both DATABASE_URL and REDIS_URL, in one line', () => {
    const database = 'postgres://h/db'
    const redis = 'redis://h:6379'
    assert.equal(loadConfig({}).workers, 1)
    assert.equal(loadConfig({ WORKERS: '1' }).workers, 1)
    assert.equal(loadConfig({ WORKERS: '3', DATABASE_URL: database, REDIS_URL: redis }).workers, 3)
    for (const env of [
      { WORKERS: '2' },
      { WORKERS: '2', DATABASE_URL: database },
      { WORKERS: '2', REDIS_URL: redis },
    ]) {
      assert.throws(
        () => loadConfig(env),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.message ===
            'WORKERS=2 needs both DATABASE_URL and REDIS_URL: every process must share the data and the /laporan buckets',
      )
    }
  })

  test('TLS_CERT_FILE and TLS_KEY_FILE: both or neither', () => {
    assert.equal(loadConfig({}).tls, undefined)
    for (const env of [{ TLS_CERT_FILE: '/c.pem' }, { TLS_KEY_FILE: '/k.pem' }]) {
      assert.throws(
        () => loadConfig(env),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.message === 'TLS_CERT_FILE and TLS_KEY_FILE must be set together, or neither',
      )
    }
  })
})
