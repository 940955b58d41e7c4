// The CredentialStore contract (the one table of secrets), on every implementation: identify
// by exact secret, the ref as the SHA-256 of the secret in hex, secrets of any Unicode text.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { describe, test } from 'node:test'
import type { Identity } from '../../src/access/identity.js'
import { MemoryCredentialStore, REVOKED_KEPT } from '../../src/access/memory-store.js'
import type { CredentialStore } from '../../src/access/store.js'
import { demoSeed, parseSeed } from '../../src/seed.js'
import { forEachStore, type StoreKind, tryMutate } from '../support/stores.js'
import { ADMIN, BUDI, SITI } from '../support/supporting.js'

/** The SHA-256 of the secret's UTF-8 bytes, in lowercase hex: computed here, not by the store. */
const sha256Hex = (secret: string) => createHash('sha256').update(secret, 'utf8').digest('hex')

/** A fresh credential table of `kind` holding `credentials`, filled through the interface. */
async function credentialTable(
  kind: StoreKind,
  credentials: Record<string, Identity>,
): Promise<CredentialStore> {
  const store = (await kind.fresh()).credentials
  for (const [secret, identity] of Object.entries(credentials)) await store.add(secret, identity)
  return store
}

await forEachStore('CredentialStore', (kind) => {
  // From access.test.ts (MemoryCredentialStore: one table of secrets), now on every store.
  test('identify returns the identity of each secret', async () => {
    const store = await credentialTable(kind, demoSeed.credentials)
    for (const [secret, identity] of Object.entries(demoSeed.credentials)) {
      assert.deepEqual((await store.identify(secret))?.identity, identity, secret)
    }
  })

  test('identify returns undefined for an unknown, empty, prefix, longer or other-case secret', async () => {
    const store = await credentialTable(kind, demoSeed.credentials)
    for (const secret of [
      'nope',
      '',
      'demo-budi',
      'demo-budi-toke',
      'd',
      'demo-budi-token-x',
      'demo-budi-token ',
      ' demo-budi-token',
      'DEMO-BUDI-TOKEN',
      'Demo-budi-token',
    ]) {
      assert.equal(await store.identify(secret), undefined, JSON.stringify(secret))
    }
  })

  test('the ref of a credential is not the secret, is stable per secret and differs between secrets', async () => {
    const store = await credentialTable(kind, demoSeed.credentials)
    const again = await credentialTable(kind, demoSeed.credentials)
    const refs = new Set<string>()
    for (const secret of [ADMIN, BUDI, SITI]) {
      const first = await store.identify(secret)
      const second = await store.identify(secret)
      assert.ok(first !== undefined && second !== undefined)
      assert.equal(typeof first.ref, 'string')
      assert.ok(first.ref.length > 0)
      assert.notEqual(first.ref, secret)
      assert.ok(!first.ref.includes(secret), 'the ref does not contain the secret')
      assert.equal(second.ref, first.ref, 'stable per secret')
      assert.equal((await again.identify(secret))?.ref, first.ref, 'stable across stores')
      refs.add(first.ref)
    }
    assert.equal(refs.size, 3, 'one ref per secret')
  })

  test('two secrets of the same identity are two credentials with their own refs', async () => {
    const same = { nama: 'budi', peran: 'user' } as const
    const store = await credentialTable(kind, { 'key-a': same, 'key-b': same })
    const a = await store.identify('key-a')
    const b = await store.identify('key-b')
    assert.deepEqual(a?.identity, same)
    assert.deepEqual(b?.identity, same)
    assert.notEqual(a?.ref, b?.ref)
  })

  test('inherited member names are not secrets', async () => {
    const store = await credentialTable(kind, demoSeed.credentials)
    for (const secret of ['constructor', 'toString', 'hasOwnProperty', '__proto__', 'valueOf']) {
      assert.equal(await store.identify(secret), undefined, secret)
    }
  })

  test('a seed secret spelled __proto__ is a secret like any other and pollutes nothing', async () => {
    const seed = parseSeed(
      JSON.parse('{"credentials":{"__proto__":{"nama":"x","peran":"admin"}}}') as unknown,
    )
    assert.ok(Object.hasOwn(seed.credentials, '__proto__'))
    assert.equal(Object.getPrototypeOf(seed.credentials), Object.prototype)
    const store = await credentialTable(kind, seed.credentials)
    assert.deepEqual((await store.identify('__proto__'))?.identity, { nama: 'x', peran: 'admin' })
    assert.equal(await store.identify('constructor'), undefined)
    assert.equal(({} as Record<string, unknown>).nama, undefined)
    assert.equal(({} as Record<string, unknown>).peran, undefined)
    assert.equal(Object.hasOwn(Object.prototype, 'nama'), false)
  })

  // Added with the contract suite.
  test('identify gives exactly { identity, ref }, the ref the SHA-256 of the secret in lowercase hex', async () => {
    const store = await credentialTable(kind, demoSeed.credentials)
    for (const [secret, identity] of Object.entries(demoSeed.credentials)) {
      const credential = await store.identify(secret)
      assert.deepEqual(credential, { identity, ref: sha256Hex(secret) }, secret)
      assert.match(credential?.ref ?? '', /^[0-9a-f]{64}$/)
    }
    assert.equal(
      sha256Hex(ADMIN),
      createHash('sha256').update(Buffer.from(ADMIN, 'utf8')).digest('hex'),
    )
  })

  test('an unknown secret is undefined, in an empty table too', async () => {
    const empty = (await kind.fresh()).credentials
    for (const secret of ['', 'nope', ADMIN, '😀']) {
      assert.equal(await empty.identify(secret), undefined, JSON.stringify(secret))
    }
    await empty.add('satu', { nama: 'satu', peran: 'user' })
    assert.equal(await empty.identify('dua'), undefined)
  })

  test('secrets of any Unicode text work, each exactly: astral, combining, RTL, NUL, long', async () => {
    const secrets = [
      '😀',
      '😀😀',
      'kata sandi rahasia',
      'é',
      'e\u0301',
      'ǅ',
      'ﬁ',
      'fi',
      'مرحبا بالعالم',
      '日本語のパスワード',
      '\u0000',
      '\u0000\u0000',
      'a\u0000b',
      '\u200d',
      '\ufeffbom',
      '\ufffd',
      '\u{10ffff}',
      '\t\r\n ',
      ' ',
      'x'.repeat(10_000),
      '🔑'.repeat(2_000),
    ]
    assert.equal(new Set(secrets).size, secrets.length)
    const table = Object.fromEntries(
      secrets.map((secret, i) => [
        secret,
        { nama: `nama-${i}`, peran: i % 2 === 0 ? 'user' : 'admin' } as Identity,
      ]),
    )
    const store = await credentialTable(kind, table)
    for (const [i, secret] of secrets.entries()) {
      assert.deepEqual(
        await store.identify(secret),
        { identity: table[secret], ref: sha256Hex(secret) },
        `secret ${i}`,
      )
    }
    for (const other of ['😀😀😀', 'E\u0301', 'a\u0000', '\u0000b', '', 'x'.repeat(9_999)]) {
      assert.equal(await store.identify(other), undefined, JSON.stringify(other.slice(0, 20)))
    }
  })

  test('credentials are snapshots: changing the identity added, or a credential returned, changes nothing stored', async () => {
    const store = (await kind.fresh()).credentials
    const identity: Identity = { nama: 'budi', peran: 'user' }
    await store.add('kunci', identity)
    identity.nama = 'diubah'
    identity.peran = 'admin'
    const expected = { identity: { nama: 'budi', peran: 'user' }, ref: sha256Hex('kunci') }
    const first = await store.identify('kunci')
    assert.deepEqual(first, expected)
    tryMutate(() => {
      ;(first?.identity as { peran: string }).peran = 'admin'
      ;(first as { ref: string }).ref = 'lain'
    })
    assert.deepEqual(await store.identify('kunci'), expected)
  })
})

/** A clock the test moves. */
function clock(start = Date.parse('2026-06-01T00:00:00Z')) {
  let at = start
  return { now: () => new Date(at), advance: (ms: number) => (at += ms) }
}

await forEachStore('CredentialStore, managed at run time', (kind) => {
  test('create, list, get and revoke; ids from 1, the seed first; the secret works until revoked', async () => {
    const time = clock()
    const store = (await kind.fresh(time.now)).credentials
    await store.add(ADMIN, { nama: 'admin', peran: 'admin' })
    const created = await store.create({
      secret: 'rahasia-baru',
      nama: 'ci',
      peran: 'user',
      kedaluwarsa: null,
    })
    assert.deepEqual(created, {
      id: 2,
      nama: 'ci',
      peran: 'user',
      created_at: time.now().toISOString(),
      kedaluwarsa: null,
      last_used_at: null,
    })
    assert.deepEqual(
      (await store.list()).map(({ id, nama }) => [id, nama]),
      [
        [1, 'admin'],
        [2, 'ci'],
      ],
    )
    assert.deepEqual(await store.get(2), created)
    assert.equal(await store.get(3), undefined)
    assert.deepEqual((await store.identify('rahasia-baru'))?.identity, {
      nama: 'ci',
      peran: 'user',
    })
    assert.equal(await store.revoke(2), 'revoked')
    assert.equal(await store.identify('rahasia-baru'), undefined)
    assert.equal(await store.get(2), undefined)
    assert.equal(await store.revoke(2), 'not-found')
  })

  test('from its kedaluwarsa on a credential is refused, and still listed', async () => {
    const time = clock()
    const store = (await kind.fresh(time.now)).credentials
    const kedaluwarsa = new Date(time.now().getTime() + 60_000)
    const { id } = await store.create({ secret: 'sebentar', nama: 'x', peran: 'user', kedaluwarsa })
    time.advance(59_999)
    assert.ok(await store.identify('sebentar'))
    time.advance(1)
    assert.equal(await store.identify('sebentar'), undefined)
    assert.equal((await store.get(id))?.kedaluwarsa, kedaluwarsa.toISOString())
  })

  test('last_used_at: null until used, then the time of a use within the last second', async () => {
    const time = clock()
    const store = (await kind.fresh(time.now)).credentials
    const { id } = await store.create({
      secret: 'dipakai',
      nama: 'x',
      peran: 'user',
      kedaluwarsa: null,
    })
    assert.equal((await store.get(id))?.last_used_at, null)
    time.advance(5000)
    const first = time.now().toISOString()
    await store.identify('dipakai')
    assert.equal((await store.get(id))?.last_used_at, first)
    time.advance(2000)
    await store.identify('dipakai')
    assert.equal((await store.get(id))?.last_used_at, time.now().toISOString())
  })

  test('the last admin credential that has not expired is kept, whoever asks at once', async () => {
    const time = clock()
    const store = (await kind.fresh(time.now)).credentials
    const admin = (secret: string, kedaluwarsa: Date | null = null) =>
      store.create({ secret, nama: secret, peran: 'admin', kedaluwarsa })
    const user = await store.create({ secret: 'u', nama: 'u', peran: 'user', kedaluwarsa: null })
    const a = await admin('a')
    const expired = await admin('lama', new Date(time.now().getTime() + 1000))
    time.advance(1000)
    assert.equal(await store.revoke(a.id), 'last-admin', 'an expired admin does not count')
    assert.equal(await store.revoke(expired.id), 'revoked')
    assert.equal(await store.revoke(user.id), 'revoked')
    const b = await admin('b')
    // Two revocations at once of the last two: one goes, one is refused.
    const outcomes = await Promise.all([store.revoke(a.id), store.revoke(b.id)])
    assert.deepEqual([...outcomes].sort(), ['last-admin', 'revoked'])
    assert.equal((await store.list()).filter(({ peran }) => peran === 'admin').length, 1)
  })

  test('a revoked credential is told apart as revoked, and its id is never given again', async () => {
    const store = (await kind.fresh(clock().now)).credentials
    const user = (secret: string) =>
      store.create({ secret, nama: secret, peran: 'user', kedaluwarsa: null })
    await store.add(ADMIN, { nama: 'admin', peran: 'admin' })
    const gone = await user('dicabut')
    assert.equal(await store.revoke(gone.id), 'revoked')
    assert.equal(await store.whyRefused('dicabut'), 'revoked')
    assert.equal(await store.whyRefused('tidak-pernah-ada'), 'unknown')
    const next = await user('baru')
    assert.equal(next.id, gone.id + 1)
    assert.deepEqual(
      (await store.list()).map(({ id }) => id),
      [1, next.id],
    )
  })
})

describe('MemoryCredentialStore: one map keyed by the digest', () => {
  test('a lookup does not grow with the table: 20,000 credentials cost what one does', async () => {
    const one = new MemoryCredentialStore()
    await one.add('satu', { nama: 'satu', peran: 'user' })
    const many = new MemoryCredentialStore()
    for (let n = 0; n < 20_000; n++)
      await many.add(`rahasia-${n}`, { nama: `n${n}`, peran: 'user' })
    // The best of three runs of 2,000 lookups (unknown secrets, the slowest case), each.
    const lookups = async (store: MemoryCredentialStore) => {
      let best = Number.POSITIVE_INFINITY
      for (let run = 0; run < 3; run++) {
        const started = performance.now()
        for (let n = 0; n < 2000; n++) await store.identify(`salah-${n}`)
        best = Math.min(best, performance.now() - started)
      }
      return best
    }
    await lookups(one)
    const [small, large] = [await lookups(one), await lookups(many)]
    assert.ok(large < small * 5 + 5, `${large.toFixed(1)} ms against ${small.toFixed(1)} ms`)
  })

  test(`revoked credentials are removed: only the latest ${REVOKED_KEPT} digests are remembered`, async () => {
    const store = new MemoryCredentialStore()
    await store.add(ADMIN, { nama: 'admin', peran: 'admin' })
    for (let n = 0; n <= REVOKED_KEPT; n++) {
      const { id } = await store.create({
        secret: `r${n}`,
        nama: 'r',
        peran: 'user',
        kedaluwarsa: null,
      })
      assert.equal(await store.revoke(id), 'revoked')
    }
    assert.equal(await store.whyRefused('r0'), 'unknown', 'the oldest is forgotten')
    assert.equal(await store.whyRefused('r1'), 'revoked')
    assert.equal(await store.whyRefused(`r${REVOKED_KEPT}`), 'revoked')
    assert.equal(await store.identify(`r${REVOKED_KEPT}`), undefined)
    assert.deepEqual(
      (await store.list()).map(({ id }) => id),
      [1],
    )
  })
})
