// The UserStore contract, on every implementation: emails unique ignoring case (as `emailKey`
// compares them) in one indivisible step, created_at from the injected clock, the password hash
// kept apart from every representation, id order, snapshots.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { emailKey } from '../../../src/surfaces/supporting/users/store.js'
import { forEachStore, ODD_TEXTS, tryMutate } from '../../support/stores.js'

const NOW = '2024-02-29T10:20:30.456Z'
const clock = () => new Date(NOW)

await forEachStore('UserStore', (kind) => {
  test('create gives { user: { id, name, email, created_at } } from id 1; get and list read it, never the hash', async () => {
    let time = Date.parse(NOW)
    const { users } = await kind.fresh(() => new Date(time))
    assert.deepEqual(await users.list(), [])
    const budi = await users.create({ name: 'Budi', email: 'Budi@X.id', passwordHash: 'scrypt$a' })
    assert.deepEqual(budi, {
      user: { id: 1, name: 'Budi', email: 'Budi@X.id', created_at: NOW },
    })
    time += 1001
    const siti = await users.create({ name: 'Siti', email: 'siti@x.id' })
    const sitiUser = {
      id: 2,
      name: 'Siti',
      email: 'siti@x.id',
      created_at: '2024-02-29T10:20:31.457Z',
    }
    assert.deepEqual(siti, { user: sitiUser })
    const expected = [{ id: 1, name: 'Budi', email: 'Budi@X.id', created_at: NOW }, sitiUser]
    assert.deepEqual(await users.list(), expected)
    assert.deepEqual(await users.get(1), expected[0])
    assert.deepEqual(await users.get(2), expected[1])
    for (const user of [...(await users.list()), await users.get(1)]) {
      assert.deepEqual(Object.keys(user as object).sort(), ['created_at', 'email', 'id', 'name'])
    }
    for (const id of [0, -1, 3, 2 ** 53 - 1]) assert.equal(await users.get(id), undefined, `${id}`)
  })

  test('passwordHash(id): the stored hash, or undefined without one or for a missing id', async () => {
    const { users } = await kind.fresh(clock)
    await users.create({ name: 'a', email: 'a@x.id', passwordHash: 'scrypt$salt$hash' })
    await users.create({ name: 'b', email: 'b@x.id' })
    await users.create({ name: 'c', email: 'c@x.id', passwordHash: 'ünïcode 😀 hash' })
    assert.equal(await users.passwordHash(1), 'scrypt$salt$hash')
    assert.equal(await users.passwordHash(2), undefined)
    assert.equal(await users.passwordHash(3), 'ünïcode 😀 hash')
    for (const id of [0, 4, 99]) assert.equal(await users.passwordHash(id), undefined, `${id}`)
  })

  test('an email taken in any letter case is { emailTaken: true } and adds no user', async () => {
    const { users } = await kind.fresh(clock)
    await users.create({ name: 'Budi', email: 'budi@x.id', passwordHash: 'h1' })
    for (const email of ['budi@x.id', 'BUDI@X.ID', 'Budi@x.Id', 'bUdI@X.iD']) {
      assert.deepEqual(
        await users.create({ name: 'lain', email, passwordHash: 'h2' }),
        { emailTaken: true },
        email,
      )
    }
    assert.deepEqual(await users.list(), [
      { id: 1, name: 'Budi', email: 'budi@x.id', created_at: NOW },
    ])
    assert.equal(await users.passwordHash(1), 'h1', 'the refused create changed no hash')
    assert.equal(await users.passwordHash(2), undefined)
  })

  test('two emails clash exactly when their emailKey is equal', async () => {
    const { users } = await kind.fresh(clock)
    const emails = [
      'a@x.id',
      'A@X.ID',
      'straße@x.id',
      'STRASSE@x.id',
      'strasse@x.id',
      'İ@x.id',
      'i̇@x.id',
      'i@x.id',
      'ΟΔΟΣ@x.id',
      'οδος@x.id',
      'οδοσ@x.id',
      'ÄÖÜ@x.id',
      'äöü@x.id',
      'a\u0308@x.id',
    ]
    const keys = new Set<string>()
    const kept: string[] = []
    for (const email of emails) {
      const result = await users.create({ name: 'n', email })
      if (keys.has(emailKey(email))) {
        assert.deepEqual(result, { emailTaken: true }, email)
      } else {
        assert.ok('user' in result, `${email}: ${JSON.stringify(result)}`)
        assert.equal(result.user.email, email)
        keys.add(emailKey(email))
        kept.push(email)
      }
    }
    assert.deepEqual(
      (await users.list()).map((user) => user.email),
      kept,
    )
  })

  test('20 concurrent creates of one email in mixed case: exactly one user, nineteen emailTaken', async () => {
    const { users } = await kind.fresh(clock)
    const spellings = Array.from({ length: 20 }, (_, i) =>
      [...'sama@contoh.id'].map((c, j) => ((i >> (j % 5)) & 1 ? c.toUpperCase() : c)).join(''),
    )
    assert.equal(new Set(spellings).size, 20)
    const results = await Promise.all(
      spellings.map((email, i) =>
        users.create({ name: `n${i}`, email, passwordHash: `hash-${i}` }),
      ),
    )
    const winners = results.flatMap((result) => ('user' in result ? [result.user] : []))
    assert.equal(winners.length, 1, JSON.stringify(results))
    const losers = results.filter((result) => !('user' in result))
    assert.equal(losers.length, 19)
    for (const result of losers) assert.deepEqual(result, { emailTaken: true })
    const [winner] = winners as [(typeof winners)[number]]
    const i = Number(winner.name.slice(1))
    assert.deepEqual(winner, { id: winner.id, name: `n${i}`, email: spellings[i], created_at: NOW })
    assert.equal(typeof winner.id, 'number')
    assert.deepEqual(await users.list(), [winner])
    assert.deepEqual(await users.get(winner.id), winner)
    assert.equal(await users.passwordHash(winner.id), `hash-${i}`)
  })

  test('a create refused for a taken email takes no id; ids increase and are never reused', async () => {
    const { users } = await kind.fresh(clock)
    await users.create({ name: 'a', email: 'a@x.id' })
    for (const email of ['a@x.id', 'A@x.id', 'A@X.ID']) {
      assert.deepEqual(await users.create({ name: 'a', email }), { emailTaken: true })
    }
    const b = await users.create({ name: 'b', email: 'b@x.id' })
    assert.deepEqual(b, { user: { id: 2, name: 'b', email: 'b@x.id', created_at: NOW } })
    // Of concurrent creates of one email, a refused one may draw an id on PostgreSQL (the
    // unique index refuses it after the identity value is drawn): ids only increase.
    const raced = await Promise.all(
      Array.from({ length: 10 }, () => users.create({ name: 'c', email: 'c@x.id' })),
    )
    const [winner] = raced.flatMap((result) => ('user' in result ? [result.user] : []))
    assert.ok(winner !== undefined && winner.id > 2, JSON.stringify(winner))
    const d = await users.create({ name: 'd', email: 'd@x.id' })
    assert.ok('user' in d && d.user.id > winner.id, JSON.stringify(d))
    assert.deepEqual(
      (await users.list()).map((user) => user.email),
      ['a@x.id', 'b@x.id', 'c@x.id', 'd@x.id'],
    )
  })

  test('returned users are snapshots: changing them changes nothing stored', async () => {
    const { users } = await kind.fresh(clock)
    const created = await users.create({ name: 'Budi', email: 'budi@x.id', passwordHash: 'h' })
    const listed = await users.list()
    const got = await users.get(1)
    const stored = { id: 1, name: 'Budi', email: 'budi@x.id', created_at: NOW }
    if ('user' in created) tryMutate(() => Object.assign(created.user, { name: 'x', id: 9 }))
    tryMutate(() => Object.assign(listed[0] as object, { email: 'lain@x.id' }))
    tryMutate(() => Object.assign(got as object, { passwordHash: 'bocor', created_at: 'kemarin' }))
    assert.deepEqual(await users.get(1), stored)
    assert.deepEqual(await users.list(), [stored])
    assert.equal(await users.passwordHash(1), 'h')
    assert.deepEqual(await users.create({ name: 'x', email: 'BUDI@x.id' }), { emailTaken: true })
    assert.ok('user' in (await users.create({ name: 'x', email: 'lain@x.id' })))
  })

  test('odd text is kept exactly in name and email, and clashes only with its own emailKey', async () => {
    const { users } = await kind.fresh()
    for (const text of ODD_TEXTS) {
      const created = await users.create({ name: text, email: `${text}@x.id` })
      assert.ok('user' in created)
      assert.equal(created.user.name, text)
      assert.equal((await users.get(created.user.id))?.email, `${text}@x.id`)
      assert.deepEqual(await users.create({ name: 'lagi', email: `${text.toUpperCase()}@X.ID` }), {
        emailTaken: true,
      })
    }
  })
})
