// The precondition contract of a store's guarded writes (If-Match, decisions.md 8), declared
// once and run by each store-contract suite on every implementation: a precondition that holds
// writes, one that fails changes nothing and says PRECONDITION_FAILED, a missing item is
// reported missing whatever the precondition, and of 20 concurrent writes guarded by the same
// precondition exactly one wins.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { isDeepStrictEqual } from 'node:util'
import { PRECONDITION_FAILED, type Precondition } from '../../src/store/precondition.js'
import type { Stores } from '../../src/stores.js'
import type { StoreKind } from './stores.js'

/** One guarded write of a store: what it takes, and what it answers. */
export interface GuardedWrite<T> {
  name: string
  /**
   * Writes item `id`; `n` varies the write, so that each of several concurrent writes would
   * leave the item in a state of its own.
   */
  run(id: number, n: number, precondition?: Precondition<T>): Promise<unknown>
  /** What the write answers for an item that does not exist (undefined, false, `missing`...). */
  missing: unknown
  /** Whether an answer says the write was made. */
  wrote(result: unknown): boolean
  /** The write removes the item: after it, the others find it missing rather than changed. */
  removes?: boolean
}

/** An answer that is an item (the written item), not a refusal. */
export const isItem = (result: unknown) => typeof result === 'object' && result !== null

/** A guarded write that answers the written item, and undefined for a missing item. */
export function guardedChange<T>(name: string, run: GuardedWrite<T>['run']): GuardedWrite<T> {
  return { name, run, missing: undefined, wrote: isItem }
}

/** The guarded `delete` of a store whose delete answers true, and false for a missing item. */
export function guardedDelete<T>(
  remove: (id: number, precondition?: Precondition<T>) => Promise<unknown>,
): GuardedWrite<T> {
  return {
    name: 'delete',
    run: (id, _n, precondition) => remove(id, precondition),
    missing: false,
    wrote: (result) => result === true,
    removes: true,
  }
}

export interface GuardedStore<T> {
  /** A new item in `stores`, in the state every write can change (an order not yet paid). */
  create(): Promise<T & { id: number }>
  get(id: number): Promise<T | undefined>
  writes: GuardedWrite<T>[]
}

/** Declares the precondition tests of the guarded writes `of(stores)` gives, on `kind`. */
export function preconditionContract<T>(
  kind: StoreKind,
  of: (stores: Stores) => GuardedStore<T>,
): void {
  test('a guarded write whose precondition holds is made, the precondition shown the item as it is', async () => {
    const store = of(await kind.fresh())
    for (const write of store.writes) {
      const item = await store.create()
      const seen: T[] = []
      const result = await write.run(item.id, 1, (current) => {
        seen.push(current)
        return true
      })
      assert.ok(write.wrote(result), `${write.name}: ${String(result)}`)
      assert.deepEqual(seen, [item], `${write.name} shows the current item once`)
    }
  })

  test('a guarded write whose precondition fails changes nothing and is PRECONDITION_FAILED', async () => {
    const store = of(await kind.fresh())
    for (const write of store.writes) {
      const item = await store.create()
      const result = await write.run(item.id, 1, () => false)
      assert.equal(result, PRECONDITION_FAILED, write.name)
      assert.deepEqual(await store.get(item.id), item, `${write.name} changed nothing`)
      // And the same write without a precondition is made as before.
      assert.ok(write.wrote(await write.run(item.id, 2)), `${write.name} unguarded`)
    }
  })

  test('a guarded write of a missing item is missing, whatever the precondition', async () => {
    const store = of(await kind.fresh())
    for (const write of store.writes) {
      for (const holds of [true, false]) {
        const result = await write.run(9_999, 1, () => holds)
        assert.deepEqual(result, write.missing, `${write.name}, precondition ${holds}`)
      }
    }
  })

  test('20 concurrent writes guarded by one precondition on the same item: exactly one is made', async () => {
    const store = of(await kind.fresh())
    for (const write of store.writes) {
      const item = await store.create()
      // Each finds the item as first created, or not at all: only the first writer can.
      const unchanged = (current: T) => isDeepStrictEqual(current, item)
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, n) => write.run(item.id, n + 1, unchanged)),
      )
      const made = results.filter((result) => write.wrote(result))
      assert.equal(made.length, 1, `${write.name}: ${results.map(String).join(', ')}`)
      const lost = write.removes ? write.missing : PRECONDITION_FAILED
      for (const result of results.filter((result) => !write.wrote(result))) {
        assert.deepEqual(result, lost, `${write.name}: each other write finds it ${String(lost)}`)
      }
    }
  })
}
