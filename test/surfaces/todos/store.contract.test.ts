// The TodoStore contract (surface C), on every implementation: created_at from the injected
// clock, priority and due_date present only when set, due dates kept as the text they are,
// ids from 1 never reused, id order, snapshots.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Todo } from '../../../src/surfaces/todos/schemas.js'
import { guardedChange, guardedDelete, preconditionContract } from '../../support/preconditions.js'
import { forEachStore, ODD_TEXTS, tryMutate } from '../../support/stores.js'

/** A clock the test moves by hand. */
function manualClock(iso: string) {
  let time = new Date(iso)
  return {
    now: () => new Date(time),
    set(next: string) {
      time = new Date(next)
    },
  }
}

await forEachStore('TodoStore', (kind) => {
  preconditionContract<Todo>(kind, ({ todos }) => ({
    create: () => todos.create({ title: 'awal', done: false, priority: 2 }),
    get: (id) => todos.get(id),
    writes: [
      guardedChange('replace', (id, n, precondition) =>
        todos.replace(id, { title: `ganti ${n}`, done: n % 2 === 0 }, precondition),
      ),
      guardedDelete((id, precondition) => todos.delete(id, precondition)),
    ],
  }))

  test('create stamps created_at from the clock (exact ISO string); no priority or due_date unless set', async () => {
    const clock = manualClock('2024-02-29T23:59:59.999Z')
    const { todos } = await kind.fresh(clock.now)
    assert.deepEqual(await todos.list(), [])
    const first = await todos.create({ title: 'satu', done: false })
    assert.deepEqual(first, {
      id: 1,
      title: 'satu',
      done: false,
      created_at: '2024-02-29T23:59:59.999Z',
    })
    assert.deepEqual(Object.keys(first).sort(), ['created_at', 'done', 'id', 'title'])
    clock.set('2025-01-01T00:00:00.001Z')
    assert.deepEqual(await todos.create({ title: 'dua', done: true }), {
      id: 2,
      title: 'dua',
      done: true,
      created_at: '2025-01-01T00:00:00.001Z',
    })
    clock.set('2026-11-23T21:14:29.500Z')
    assert.deepEqual(await todos.create({ title: 'tiga', done: false, priority: 5 }), {
      id: 3,
      title: 'tiga',
      done: false,
      priority: 5,
      created_at: '2026-11-23T21:14:29.500Z',
    })
    const expected = [
      { id: 1, title: 'satu', done: false, created_at: '2024-02-29T23:59:59.999Z' },
      { id: 2, title: 'dua', done: true, created_at: '2025-01-01T00:00:00.001Z' },
      { id: 3, title: 'tiga', done: false, priority: 5, created_at: '2026-11-23T21:14:29.500Z' },
    ]
    assert.deepEqual(await todos.list(), expected)
    for (const todo of expected) assert.deepEqual(await todos.get(todo.id), todo)
    const listed = await todos.list()
    assert.equal('priority' in (listed[0] as object), false, 'absent, not null or undefined')
    assert.equal('due_date' in (listed[2] as object), false, 'absent, not null or undefined')
    for (const id of [0, -1, 4, 2 ** 53 - 1]) assert.equal(await todos.get(id), undefined, `${id}`)
  })

  test('due_date round-trips exactly as YYYY-MM-DD, early years and leap days included', async () => {
    const { todos } = await kind.fresh(() => new Date('2024-06-01T08:00:00.000Z'))
    const dates = [
      '0001-01-01',
      '0099-12-31',
      '0100-03-01',
      '1899-12-31',
      '1900-02-28',
      '1970-01-01',
      '2000-02-29',
      '2024-02-29',
      '9999-12-31',
    ]
    for (const [i, due_date] of dates.entries()) {
      const priority = (i % 5) + 1
      assert.deepEqual(await todos.create({ title: `t${i}`, done: false, priority, due_date }), {
        id: i + 1,
        title: `t${i}`,
        done: false,
        priority,
        due_date,
        created_at: '2024-06-01T08:00:00.000Z',
      })
    }
    assert.deepEqual(
      (await todos.list()).map((todo) => todo.due_date),
      dates,
    )
    for (const [i, due_date] of dates.entries()) {
      assert.equal((await todos.get(i + 1))?.due_date, due_date)
    }
    const noPriority = await todos.create({ title: 'tanpa', done: false, due_date: '2024-02-29' })
    assert.deepEqual(noPriority, {
      id: dates.length + 1,
      title: 'tanpa',
      done: false,
      due_date: '2024-02-29',
      created_at: '2024-06-01T08:00:00.000Z',
    })
  })

  test('replace sets title and done only: priority, due_date and created_at stay; a missing id is undefined', async () => {
    const clock = manualClock('2024-01-02T03:04:05.006Z')
    const { todos } = await kind.fresh(clock.now)
    await todos.create({ title: 'satu', done: false, priority: 2, due_date: '0001-01-01' })
    await todos.create({ title: 'dua', done: false })
    clock.set('2030-01-01T00:00:00.000Z')
    const one = {
      id: 1,
      title: 'satu!',
      done: true,
      priority: 2,
      due_date: '0001-01-01',
      created_at: '2024-01-02T03:04:05.006Z',
    }
    assert.deepEqual(await todos.replace(1, { title: 'satu!', done: true }), one)
    const two = { id: 2, title: 'dua', done: true, created_at: '2024-01-02T03:04:05.006Z' }
    assert.deepEqual(await todos.replace(2, { title: 'dua', done: true }), two)
    assert.deepEqual(await todos.list(), [one, two])
    assert.deepEqual(await todos.replace(2, { title: 'dua', done: false }), { ...two, done: false })
    for (const id of [0, 3, 99]) {
      assert.equal(await todos.replace(id, { title: 'x', done: true }), undefined, `${id}`)
    }
    assert.equal((await todos.list()).length, 2)
    assert.equal((await todos.create({ title: 'tiga', done: false })).id, 3)
  })

  test('delete is true then false; ids are never reused; a deleted todo is gone everywhere', async () => {
    const { todos } = await kind.fresh(() => new Date('2024-01-01T00:00:00.000Z'))
    for (const title of ['satu', 'dua', 'tiga']) await todos.create({ title, done: false })
    assert.equal(await todos.delete(3), true)
    assert.equal(await todos.delete(3), false)
    assert.equal(await todos.delete(42), false)
    assert.equal(await todos.get(3), undefined)
    assert.equal(await todos.replace(3, { title: 'x', done: true }), undefined)
    assert.equal(await todos.delete(1), true)
    assert.equal((await todos.create({ title: 'empat', done: false })).id, 4)
    assert.deepEqual(
      (await todos.list()).map((todo) => todo.id),
      [2, 4],
    )
  })

  test('returned todos are snapshots: later writes, or changing them, change nothing stored', async () => {
    const { todos } = await kind.fresh(() => new Date('2024-01-01T00:00:00.000Z'))
    const created = await todos.create({ title: 'abc', done: false, priority: 3 })
    const listed = await todos.list()
    await todos.replace(1, { title: 'baru', done: true })
    const stored = {
      id: 1,
      title: 'baru',
      done: true,
      priority: 3,
      created_at: '2024-01-01T00:00:00.000Z',
    }
    assert.equal(created.title, 'abc')
    assert.equal(listed[0]?.done, false)
    const got = await todos.get(1)
    tryMutate(() => Object.assign(created, { title: 'x', priority: 1, due_date: '2000-01-01' }))
    tryMutate(() => Object.assign(got as object, { created_at: 'kemarin', done: false }))
    tryMutate(() => {
      delete (listed[0] as { priority?: number }).priority
    })
    assert.deepEqual(await todos.get(1), stored)
    assert.deepEqual(await todos.list(), [stored])
  })

  test('20 concurrent creates take ids 1 to 20, each once, each stamped by the clock', async () => {
    const { todos } = await kind.fresh(() => new Date('2024-01-01T12:00:00.000Z'))
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) => todos.create({ title: `t${i}`, done: i % 2 === 0 })),
    )
    assert.deepEqual(
      created.map((todo) => todo.id).sort((a, b) => a - b),
      Array.from({ length: 20 }, (_, i) => i + 1),
    )
    const listed = await todos.list()
    assert.deepEqual(
      listed.map((todo) => todo.id),
      Array.from({ length: 20 }, (_, i) => i + 1),
    )
    for (const todo of created) {
      assert.equal(todo.created_at, '2024-01-01T12:00:00.000Z')
      assert.deepEqual(await todos.get(todo.id), todo)
    }
  })

  test('odd text is kept exactly; a due_date of year 0000 and instants before 1970 round-trip', async () => {
    for (const instant of ['0001-01-01T00:00:00.000Z', '1969-12-31T23:59:59.999Z']) {
      const { todos } = await kind.fresh(() => new Date(instant))
      for (const text of ODD_TEXTS) {
        const todo = await todos.create({
          title: text,
          done: false,
          priority: 1,
          due_date: '0000-01-01',
        })
        assert.deepEqual(await todos.get(todo.id), {
          id: todo.id,
          title: text,
          done: false,
          priority: 1,
          due_date: '0000-01-01',
          created_at: instant,
        })
      }
    }
  })
})
