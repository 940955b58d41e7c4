// Which addresses a webhook may reach (OWASP API7): none on a private network, checked on what
// a name resolves to, once.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  isPrivateAddress,
  resolveDestination as resolveWith,
} from '../../../src/surfaces/webhooks/address.js'
import { NameResolver } from '../../../src/surfaces/webhooks/resolver.js'

/** Looked up by the system's resolvers, as the service does by default. */
const resolveDestination = (host: string, allowPrivate: boolean) =>
  resolveWith(host, allowPrivate, { resolver: new NameResolver(), timeoutMs: 5000 })

const PRIVATE = [
  '127.0.0.1',
  '127.255.255.254',
  '10.1.2.3',
  '172.16.0.1',
  '172.31.255.255',
  '192.168.1.1',
  '169.254.169.254',
  '0.0.0.0',
  '100.64.0.1',
  '224.0.0.1',
  '255.255.255.255',
  '::',
  '::1',
  'fd00::1',
  'fc12:3456::1',
  'fe80::1',
  'ff02::1',
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '0:0:0:0:0:ffff:7f00:1',
  '0000:0000:0000:0000:0000:0000:0000:0001',
  '::ffff:169.254.169.254',
  '64:ff9b::a9fe:a9fe',
  // 6to4 (2002::/16) carrying a private IPv4 address: 127.0.0.1, 10.0.0.1, 169.254.169.254.
  '2002:7f00:1::1',
  '2002:a00:1::',
  '2002:a9fe:a9fe:1::1',
  // IPv4-translated (::ffff:0:0:0/96) carrying one.
  '::ffff:0:7f00:1',
  '::ffff:0:10.0.0.1',
  // NAT64 for local use (64:ff9b:1::/48), whatever it carries.
  '64:ff9b:1::1',
  '64:ff9b:1:ffff::808:808',
  // Site-local (fec0::/10).
  'fec0::1',
  'feff:ffff::1',
  // IPv4-compatible (::/96, deprecated), whatever it carries.
  '::7f00:1',
  '::8.8.8.8',
  'not an address',
]
const PUBLIC = [
  '93.184.216.34',
  '8.8.8.8',
  '172.32.0.1',
  '192.169.0.1',
  '2606:4700::1111',
  '::ffff:8.8.8.8',
  // The same carriers with a public IPv4 address inside: 8.8.8.8.
  '2002:808:808::1',
  '::ffff:0:808:808',
  '64:ff9b::808:808',
  '64:ff9b:2::1',
  'fe7f::1',
]

test('loopback, private, link-local, unique-local and unspecified addresses are private', () => {
  for (const address of PRIVATE) assert.equal(isPrivateAddress(address), true, address)
})

test('public addresses are not', () => {
  for (const address of PUBLIC) assert.equal(isPrivateAddress(address), false, address)
})

test('a name that resolves to loopback is refused, unless private addresses are allowed', async () => {
  const refused = { refused: 'private' }
  assert.deepEqual(await resolveDestination('localhost', false), refused)
  const allowed = await resolveDestination('localhost', true)
  assert.ok('address' in allowed && isPrivateAddress(allowed.address))
  assert.deepEqual(await resolveDestination('127.0.0.1', false), refused)
  assert.deepEqual(await resolveDestination('[::1]', false), refused)
  assert.deepEqual(await resolveDestination('[::1]', true), { address: '::1', family: 6 })
})

test('a name that resolves to nothing is refused as such', async () => {
  assert.deepEqual(await resolveDestination('no-such-host.invalid', true), {
    refused: 'unresolved',
  })
})

test('an address literal is its own destination, without a lookup', async () => {
  assert.deepEqual(await resolveDestination('93.184.216.34', false), {
    address: '93.184.216.34',
    family: 4,
  })
})
