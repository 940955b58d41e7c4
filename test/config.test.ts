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
    })
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
})
