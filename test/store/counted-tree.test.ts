import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { CountedTree } from '../../src/store/memory/counted-tree.js'

interface Item {
  key: number
  id: number
  group: number
}

const compare = (a: Item, b: Item) => a.key - b.key || a.id - b.id
const GROUPS = 3

/**
 * Keys a tree may be given (CountedTree's keyOf): none (every step compares items), the key
 * itself (ties between items of one key), and a coarse one (ties across many keys).
 */
const KEYINGS = [
  undefined,
  (item: Item) => item.key,
  (item: Item) => Math.floor(item.key / 10),
] as const
const keying = fc.constantFrom(...KEYINGS)

function tree(keyOf: ((item: Item) => number) | undefined = undefined) {
  return new CountedTree<Item>(compare, (item) => item.group, GROUPS, keyOf)
}

/** The same questions asked of a plain sorted array. */
function modelAnswers(items: Item[], group: number | undefined) {
  const sorted = items.filter((item) => group === undefined || item.group === group).sort(compare)
  return sorted
}

const operation = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('insert' as const),
      key: fc.integer({ min: 0, max: 50 }),
      group: fc.integer({ min: 0, max: GROUPS - 1 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }) },
  {
    // Through change(): in place when the new item sorts where the old one did, else a move.
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('change' as const),
      pick: fc.nat(),
      key: fc.option(fc.integer({ min: 0, max: 50 }), { nil: undefined }),
      group: fc.integer({ min: 0, max: GROUPS - 1 }),
    }),
  },
)

/** Runs `operations` on a tree and on an array; returns both. */
function play(
  operations: fc.Arbitrary<(typeof operation extends fc.Arbitrary<infer O> ? O : never)[]>,
) {
  return fc.tuple(keying, operations).map(([keyOf, ops]) => {
    const counted = tree(keyOf)
    const model: Item[] = []
    let nextId = 1
    for (const op of ops) {
      if (op.kind === 'insert') {
        const item = { key: op.key, id: nextId++, group: op.group }
        assert.equal(counted.insert(item), true)
        model.push(item)
      } else if (op.kind === 'remove' && model.length > 0) {
        const [item] = model.splice(op.pick % model.length, 1) as [Item]
        assert.equal(counted.remove(item), true)
        assert.equal(counted.remove(item), false, 'removed twice')
      } else if (op.kind === 'change' && model.length > 0) {
        const at = op.pick % model.length
        const before = model[at] as Item
        const after = { key: op.key ?? before.key, id: before.id, group: op.group }
        counted.change(before, after)
        model[at] = after
      }
    }
    return { counted, model }
  })
}

/** Trees of up to a few hundred items after random inserts and removals, with their models. */
const playedTrees = play(fc.array(operation, { maxLength: 600 }))
/** Where a slice starts (taken modulo the size) and how long it is. */
const aWindow = fc.record({ start: fc.nat(), length: fc.nat({ max: 120 }) })

describe('CountedTree (the memory store ordered index)', () => {
  test('after any inserts and removals, the order, the counts and every slice equal a sorted array', () => {
    fc.assert(
      fc.property(playedTrees, aWindow, ({ counted, model }, { start, length }) => {
        assert.deepEqual([...counted], modelAnswers(model, undefined))
        for (const item of model) assert.equal(counted.find({ ...item, group: -1 }), item)
        assert.equal(counted.find({ key: 51, id: 0, group: 0 }), undefined)
        assert.equal(counted.find({ key: -1, id: 0, group: 0 }), undefined)
        for (const group of [undefined, 0, 1, 2]) {
          const expected = modelAnswers(model, group)
          assert.equal(counted.count(group), expected.length)
          const from = expected.length === 0 ? 0 : start % (expected.length + 1)
          assert.deepEqual(
            counted.slice(from, from + length, group),
            expected.slice(from, from + length),
          )
          for (const index of [0, from, expected.length - 1, expected.length]) {
            assert.equal(counted.at(index, group), expected[index])
          }
        }
      }),
      { numRuns: 200 },
    )
  })

  test('sliceDescending reads runs of equal keys last one first, each run in its own order', () => {
    const sameKey = (a: Item, b: Item) => a.key === b.key
    fc.assert(
      fc.property(playedTrees, aWindow, ({ counted, model }, { start, length }) => {
        for (const group of [undefined, 0, 1, 2]) {
          const expected = modelAnswers(model, group).sort((a, b) => b.key - a.key || a.id - b.id)
          const from = start % (expected.length + 2)
          assert.deepEqual(
            counted.sliceDescending(from, from + length, sameKey, group),
            expected.slice(from, from + length),
          )
        }
      }),
      { numRuns: 300 },
    )
  })

  test('rank counts the items before a point of the order, of all or of a group', () => {
    fc.assert(
      fc.property(playedTrees, fc.integer({ min: -1, max: 52 }), ({ counted, model }, key) => {
        for (const group of [undefined, 0, 1, 2]) {
          const expected = modelAnswers(model, group)
          assert.equal(
            counted.rank((item) => item.key < key, group),
            expected.filter((item) => item.key < key).length,
          )
          assert.equal(
            counted.rank((item) => item.key <= key, group),
            expected.filter((item) => item.key <= key).length,
          )
        }
      }),
      { numRuns: 200 },
    )
  })

  test('fill loads sorted items into an empty tree; later inserts and removals work as on any tree', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ key: fc.integer({ min: 0, max: 50 }), group: fc.nat({ max: 2 }) }), {
          maxLength: 3000,
        }),
        fc.array(operation, { maxLength: 300 }),
        fc.nat(),
        (initial, ops, start) => {
          const model: Item[] = initial.map((item, at) => ({ ...item, id: at + 1 }))
          const counted = tree(KEYINGS[start % KEYINGS.length])
          counted.fill([...model].sort(compare))
          let nextId = model.length + 1
          for (const op of ops) {
            if (op.kind === 'insert') {
              const item = { key: op.key, id: nextId++, group: op.group }
              counted.insert(item)
              model.push(item)
            } else if (model.length > 0) {
              const [item] = model.splice(op.pick % model.length, 1) as [Item]
              assert.equal(counted.remove(item), true)
            }
          }
          assert.deepEqual([...counted], modelAnswers(model, undefined))
          for (const group of [undefined, 0, 1, 2]) {
            const expected = modelAnswers(model, group)
            assert.equal(counted.count(group), expected.length)
            const from = start % (expected.length + 1)
            assert.deepEqual(counted.slice(from, from + 25, group), expected.slice(from, from + 25))
            assert.equal(
              counted.rank((item) => item.key < 25, group),
              expected.filter((item) => item.key < 25).length,
            )
          }
        },
      ),
      { numRuns: 100 },
    )
  })

  test('fill refuses a tree that is not empty, or items out of order, and changes nothing', () => {
    const counted = tree()
    const a = { key: 1, id: 1, group: 0 }
    const b = { key: 2, id: 2, group: 1 }
    assert.throws(() => counted.fill([b, a]), /out of order/)
    assert.throws(() => counted.fill([a, a]), /out of order/)
    assert.equal(counted.count(), 0)
    counted.fill([a, b])
    assert.throws(() => counted.fill([a]), /not empty/)
    assert.deepEqual([...counted], [a, b])
  })

  test('an item equal to one held is refused; removing what is not there changes nothing', () => {
    const counted = tree()
    assert.equal(counted.insert({ key: 1, id: 1, group: 0 }), true)
    assert.equal(counted.insert({ key: 1, id: 1, group: 2 }), false)
    assert.equal(counted.remove({ key: 2, id: 1, group: 0 }), false)
    assert.equal(counted.count(), 1)
    assert.equal(counted.count(0), 1)
    assert.equal(counted.count(2), 0)
  })

  test('replace puts an item in the place of an equal one, groups recounted; it refuses items that sort apart', () => {
    const counted = tree()
    const items = Array.from({ length: 1000 }, (_, id) => ({ key: id % 7, id, group: id % GROUPS }))
    counted.fill([...items].sort(compare))
    const first = [...counted][0] as Item
    const regrouped = { ...first, group: (first.group + 1) % GROUPS }
    assert.equal(counted.replace(first, regrouped), true)
    assert.equal(counted.find(first), regrouped)
    assert.equal(counted.at(0), regrouped)
    assert.equal(counted.count(first.group), 333)
    assert.equal(counted.count(regrouped.group), 334)
    assert.equal(counted.count(), 1000)
    assert.equal(counted.replace({ key: 99, id: 0, group: 0 }, { key: 99, id: 0, group: 1 }), false)
    assert.throws(() => counted.replace(regrouped, { ...regrouped, key: 6 }), /sort apart/)
    assert.deepEqual(
      [...counted],
      [...items].map((item) => (item === first ? regrouped : item)).sort(compare),
    )
  })

  test('remove and replace find an item by an equal copy as well as by the object held', () => {
    const counted = tree()
    const items = Array.from({ length: 500 }, (_, id) => ({ key: id % 5, id, group: id % GROUPS }))
    counted.fill([...items].sort(compare))
    const [first, second, third] = items as [Item, Item, Item]
    assert.equal(counted.remove({ ...first }), true)
    assert.equal(counted.find(first), undefined)
    const moved = { ...second, group: (second.group + 1) % GROUPS }
    assert.equal(counted.replace({ ...second }, moved), true)
    assert.equal(counted.find(second), moved)
    assert.equal(counted.remove(third), true)
    assert.equal(counted.remove({ ...third }), false)
    assert.equal(counted.count(), 498)
    const expected = items.slice(3).concat(moved)
    assert.deepEqual([...counted], expected.sort(compare))
    for (const group of [0, 1, 2]) {
      assert.equal(counted.count(group), expected.filter((item) => item.group === group).length)
    }
  })

  test('a hundred thousand items in order, then every other one removed, then the rest', () => {
    // Removing them all merges nodes at every level: with each keying, so its keys follow.
    for (const keyOf of [undefined, (item: Item) => item.key, (item: Item) => item.key >> 8]) {
      const counted = tree(keyOf)
      const items = Array.from({ length: 100_000 }, (_, i) => ({ key: i, id: i, group: i % 3 }))
      for (const item of items) counted.insert(item)
      assert.equal(counted.count(), 100_000)
      assert.equal(counted.at(77_777)?.id, 77_777)
      assert.equal(counted.at(20_000, 1)?.id, 60_001)
      for (const item of items) if (item.id % 2 === 0) assert.equal(counted.remove(item), true)
      assert.equal(counted.count(), 50_000)
      for (const item of items) {
        assert.equal(counted.find({ ...item }), item.id % 2 === 1 ? item : undefined)
      }
      assert.deepEqual(
        counted.slice(24_998, 25_003).map((item) => item.id),
        [49_997, 49_999, 50_001, 50_003, 50_005],
      )
      assert.equal(
        counted.rank((item) => item.key < 50_000),
        25_000,
      )
      // The rest from the far end, then from the middle out: merges on both sides of a node.
      const odd = items.filter((item) => item.id % 2 === 1)
      for (const item of odd.splice(37_500)) assert.equal(counted.remove(item), true)
      const middle = odd.length >>> 1
      for (let step = 0; step < odd.length; step++) {
        const at = step % 2 === 0 ? middle + (step >>> 1) : middle - 1 - (step >>> 1)
        assert.equal(counted.remove(odd[at] as Item), true)
      }
      assert.equal(counted.count(), 0)
      assert.deepEqual([...counted], [])
      assert.equal(counted.insert(items[5] as Item), true)
      assert.deepEqual([...counted], [items[5]])
    }
  })

  test('thirty thousand random inserts and removals at depth three equal a sorted array', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        let state = seed >>> 0
        const next = (limit: number) => {
          state = (Math.imul(state, 1664525) + 1013904223) >>> 0
          return state % limit
        }
        const counted = tree(KEYINGS[(seed >>> 0) % KEYINGS.length])
        const model: Item[] = []
        for (let id = 1; id <= 30_000; id++) {
          if (model.length > 0 && next(3) === 0) {
            const [item] = model.splice(next(model.length), 1) as [Item]
            counted.remove(item)
          } else {
            const item = { key: next(1000), id, group: next(GROUPS) }
            counted.insert(item)
            model.push(item)
          }
        }
        for (const group of [undefined, 0, 1, 2]) {
          const expected = modelAnswers(model, group)
          assert.equal(counted.count(group), expected.length)
          for (let probe = 0; probe < 20; probe++) {
            const from = next(expected.length + 1)
            assert.deepEqual(counted.slice(from, from + 10, group), expected.slice(from, from + 10))
          }
        }
        assert.deepEqual([...counted], modelAnswers(model, undefined))
      }),
      { numRuns: 6 },
    )
  })
})
