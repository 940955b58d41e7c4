/**
 * A B+ tree of items in a total order whose every node counts its items per group (a task's
 * status), so that it finds the k-th item, of all or of one group, and how many items come
 * before a given one, in O(log n). Inserting and removing cost O(log n) too, where a sorted
 * array costs a memory move of the whole array.
 *
 * Leaves hold the items, in arrays of at most LEAF_MAX, linked left to right; branches hold
 * their children and each child's smallest item. Items are compared by `compare`, which must be
 * a total order: no two items in the tree compare equal.
 */

const LEAF_MAX = 128
const BRANCH_MAX = 32
/**
 * How full fill() leaves its nodes: leaves nearly full (a pointer per item is most of a
 * leaf's cost, and the seed is most of a store), branches with room to grow.
 */
const FILL_LEAF = LEAF_MAX - 8
const FILL_BRANCH = (BRANCH_MAX * 3) >>> 2

interface Leaf<T> {
  leaf: true
  items: T[]
  /** Items per group, then the total. */
  counts: number[]
  next: Leaf<T> | undefined
}

interface Branch<T> {
  leaf: false
  children: Node<T>[]
  /** The smallest item under each child. */
  mins: T[]
  /** Each min's key (see the constructor), read before the min itself. */
  keys: number[]
  counts: number[]
}

type Node<T> = Leaf<T> | Branch<T>

export class CountedTree<T> {
  #root: Node<T>
  readonly #total: number

  /**
   * @param compare the order, total over every item the tree will hold
   * @param groupOf the group of an item, an integer from 0 below `groups`
   * @param keyOf a number per item that orders items as `compare` does, ties allowed: where
   *   `keyOf(a) < keyOf(b)`, `compare(a, b) < 0`. A descent compares keys, kept in the
   *   branches, and reads an item only when they tie: with a million items, reading one is a
   *   cache miss or two (the item, then its string), and a descent reads about fifteen.
   *   Without it every key is 0, and every step compares items.
   */
  constructor(
    readonly compare: (a: T, b: T) => number,
    readonly groupOf: (item: T) => number,
    readonly groups: number,
    readonly keyOf: (item: T) => number = () => 0,
  ) {
    this.#total = groups
    this.#root = this.#leaf([])
  }

  /** How many items the tree holds, of `group` or of all. */
  count(group?: number): number {
    return this.#root.counts[group ?? this.#total] as number
  }

  /**
   * Fills an empty tree with `sorted`, items already in the tree's order, bottom-up in O(n):
   * a million items load in a fraction of the time a million inserts take. Leaves are left
   * nearly full, branches three quarters. Throws, changing nothing, when the tree
   * is not empty or `sorted` is out of order.
   */
  fill(sorted: T[]): void {
    if (this.count() !== 0) throw new Error('CountedTree.fill: the tree is not empty')
    for (let at = 1; at < sorted.length; at++) {
      if (this.compare(sorted[at - 1] as T, sorted[at] as T) >= 0) {
        throw new Error(`CountedTree.fill: items ${at - 1} and ${at} are out of order`)
      }
    }
    if (sorted.length === 0) return
    const leaves: Leaf<T>[] = []
    for (let at = 0; at < sorted.length; at += FILL_LEAF) {
      const leaf = this.#leaf(sorted.slice(at, at + FILL_LEAF))
      const previous = leaves.at(-1)
      if (previous !== undefined) previous.next = leaf
      leaves.push(leaf)
    }
    let level: Node<T>[] = leaves
    while (level.length > 1) {
      const above: Node<T>[] = []
      for (let at = 0; at < level.length; at += FILL_BRANCH) {
        above.push(this.#branch(level.slice(at, at + FILL_BRANCH)))
      }
      level = above
    }
    this.#root = level[0] as Node<T>
  }

  /** Adds `item`; false (and nothing changes) when an item equal to it is already there. */
  insert(item: T): boolean {
    const path = this.#pathTo(item)
    const leaf = path.at(-1)?.node as Leaf<T>
    const at = this.#placeIn(leaf.items, item)
    if (at < leaf.items.length && this.compare(leaf.items[at] as T, item) === 0) return false
    leaf.items.splice(at, 0, item)
    this.#tally(path, item, 1)
    if (leaf.items.length > LEAF_MAX) this.#split(path, at === LEAF_MAX && leaf.next === undefined)
    return true
  }

  /** The item equal to `probe` (which need hold only what `compare` reads), if any. */
  find(probe: T): T | undefined {
    const leaf = this.#pathTo(probe).at(-1)?.node as Leaf<T>
    const found = leaf.items[this.#placeIn(leaf.items, probe)]
    return found !== undefined && this.compare(found, probe) === 0 ? found : undefined
  }

  /** Removes the item equal to `item`; false when there is none. */
  remove(item: T): boolean {
    const path = this.#pathTo(item)
    const leaf = path.at(-1)?.node as Leaf<T>
    const at = this.#indexIn(leaf.items, item)
    if (at >= leaf.items.length || this.compare(leaf.items[at] as T, item) !== 0) return false
    const [removed] = leaf.items.splice(at, 1)
    this.#tally(path, removed as T, -1)
    this.#rebalance(path)
    return true
  }

  /**
   * Replaces `before` (when given) with `after` (when given): in place when both sort alike
   * (see replace), else a removal and an insertion. Nothing is checked: the caller knows
   * `before` is held and `after` is not.
   */
  change(before: T | undefined, after: T | undefined): void {
    if (before !== undefined && after !== undefined && this.compare(before, after) === 0) {
      this.replace(before, after)
      return
    }
    if (before !== undefined) this.remove(before)
    if (after !== undefined) this.insert(after)
  }

  /**
   * Puts `after` in the place of the item equal to `before`, in one descent where a removal and
   * an insertion take two and may move items between leaves: for a change that leaves an item's
   * place in the order as it was (a task's new status in the id order). `after` must compare
   * equal to `before`; its group may differ. False, changing nothing, when no item is equal.
   */
  replace(before: T, after: T): boolean {
    if (this.compare(before, after) !== 0) {
      throw new Error('CountedTree.replace: the two items sort apart; remove, then insert')
    }
    const path = this.#pathTo(before)
    const leaf = path.at(-1)?.node as Leaf<T>
    const at = this.#indexIn(leaf.items, before)
    const current = leaf.items[at]
    if (current === undefined || this.compare(current, before) !== 0) return false
    leaf.items[at] = after
    if (this.groupOf(current) !== this.groupOf(after)) {
      this.#tally(path, current, -1)
      this.#tally(path, after, 1)
    } else if (at === 0) {
      // The branches above hold the leaf's first item as a smallest item: the new one, so
      // that the old is not kept alive.
      this.#tally(path, after, 0)
    }
    return true
  }

  /**
   * How many items (of `group`, or of all) come before the first item for which `before` is
   * false. `before` must be true for a first stretch of the order and false after it.
   */
  rank(before: (item: T) => boolean, group?: number): number {
    const slot = group ?? this.#total
    let node = this.#root
    let rank = 0
    while (!node.leaf) {
      const child = lastChildWhere(node.mins, before)
      for (let left = 0; left < child; left++) {
        rank += (node.children[left] as Node<T>).counts[slot] as number
      }
      node = node.children[child] as Node<T>
    }
    for (const item of node.items) {
      if (!before(item)) break
      if (group === undefined || this.groupOf(item) === group) rank++
    }
    return rank
  }

  /** The item at `index` in the order (of `group`, or of all). */
  at(index: number, group?: number): T | undefined {
    return this.slice(index, index + 1, group)[0]
  }

  /** The items from `start` up to before `end` in the order, of `group` or of all. */
  slice(start: number, end: number, group?: number): T[] {
    const slot = group ?? this.#total
    const found: T[] = []
    if (start < 0 || start >= end || start >= this.count(group)) return found
    // Down to the leaf holding the start, counting what lies before it.
    let node = this.#root
    let skip = start
    while (!node.leaf) {
      let child = 0
      while (skip >= ((node.children[child] as Node<T>).counts[slot] as number)) {
        skip -= (node.children[child] as Node<T>).counts[slot] as number
        child++
      }
      node = node.children[child] as Node<T>
    }
    // Then along the leaves.
    let leaf: Leaf<T> | undefined = node
    const wanted = end - start
    while (leaf !== undefined && found.length < wanted) {
      for (const item of leaf.items) {
        if (group !== undefined && this.groupOf(item) !== group) continue
        if (skip > 0) skip--
        else if (found.length < wanted) found.push(item)
        else break
      }
      leaf = leaf.next
    }
    return found
  }

  /**
   * The items from `start` up to before `end` of the order read backwards run by run: items
   * that `sameRun` calls equal (a run, adjacent in the order; every item is in its own run) keep their order among
   * themselves, the runs come last one first. So a tree ordered by title, then ascending id,
   * reads "title descending, ties in ascending id". Costs a few descents, whatever `start`.
   */
  sliceDescending(
    start: number,
    end: number,
    sameRun: (a: T, b: T) => boolean,
    group?: number,
  ): T[] {
    const count = this.count(group)
    const found: T[] = []
    if (start < 0 || start >= end || start >= count) return found
    const limit = end - start
    // The run holding the first item; the runs above it fill the first places.
    const top = this.at(count - 1 - start, group) as T
    const [first, last] = this.#runAround(top, sameRun, group)
    const from = first + start - (count - 1 - last)
    found.push(...this.slice(from, Math.min(last + 1, from + limit), group))
    // Below it, a window as long as what is still wanted: its runs are whole except perhaps
    // the lowest, which may begin below the window.
    let below = first
    while (found.length < limit && below > 0) {
      const windowStart = Math.max(0, below - (limit - found.length))
      const window = this.slice(windowStart, below, group)
      let high = window.length
      while (high > 0 && found.length < limit) {
        let low = high - 1
        while (low > 0 && sameRun(window[low - 1] as T, window[high - 1] as T)) low--
        if (low === 0 && windowStart > 0) break
        found.push(...window.slice(low, Math.min(high, low + limit - found.length)))
        high = low
      }
      if (high === 0) {
        below = windowStart
        continue
      }
      if (found.length === limit) break
      // The lowest run reaches below the window: read it from its start.
      const runFirst = this.#runAround(window[0] as T, sameRun, group)[0]
      const runEnd = windowStart + high
      found.push(...this.slice(runFirst, Math.min(runEnd, runFirst + limit - found.length), group))
      below = runFirst
    }
    return found
  }

  /** The first and last positions of the run holding `item`. */
  #runAround(item: T, sameRun: (a: T, b: T) => boolean, group?: number): [number, number] {
    const first = this.rank(
      (other) => !sameRun(other, item) && this.compare(other, item) < 0,
      group,
    )
    const last = this.rank((other) => sameRun(other, item) || this.compare(other, item) < 0, group)
    return [first, last - 1]
  }

  /** Every item, in order. */
  *[Symbol.iterator](): IterableIterator<T> {
    let node = this.#root
    while (!node.leaf) node = node.children[0] as Node<T>
    for (let leaf: Leaf<T> | undefined = node; leaf !== undefined; leaf = leaf.next) {
      yield* leaf.items
    }
  }

  // -------------------------------------------------------------------------------------------

  #leaf(items: T[]): Leaf<T> {
    return { leaf: true, items, counts: this.#countsOf(items), next: undefined }
  }

  #countsOf(items: T[]): number[] {
    const counts = new Array<number>(this.groups + 1).fill(0)
    for (const item of items) (counts[this.groupOf(item)] as number)++
    counts[this.#total] = items.length
    return counts
  }

  #branch(children: Node<T>[]): Branch<T> {
    const counts = new Array<number>(this.groups + 1).fill(0)
    for (const child of children) {
      for (let slot = 0; slot <= this.groups; slot++) {
        ;(counts[slot] as number) += child.counts[slot] as number
      }
    }
    const mins = children.map(minOf)
    return { leaf: false, children, mins, keys: mins.map(this.keyOf), counts }
  }

  /** The nodes from the root to the leaf where `item` belongs, with each child's index. */
  #pathTo(item: T): { node: Node<T>; index: number }[] {
    const path: { node: Node<T>; index: number }[] = [{ node: this.#root, index: 0 }]
    let node = this.#root
    const key = this.keyOf(item)
    while (!node.leaf) {
      const child = this.#childFor(node, item, key)
      node = node.children[child] as Node<T>
      path.push({ node, index: child })
    }
    return path
  }

  /** The last child of `branch` whose smallest item does not sort after `item` (else 0). */
  #childFor(branch: Branch<T>, item: T, key: number): number {
    const { mins, keys } = branch
    let low = 0
    let high = keys.length - 1
    while (low < high) {
      const middle = (low + high + 1) >>> 1
      const other = keys[middle] as number
      const notAfter = other < key || (other === key && this.compare(mins[middle] as T, item) <= 0)
      if (notAfter) low = middle
      else high = middle - 1
    }
    return low
  }

  /** Sets the smallest item of `branch`'s child `at`, and its key. */
  #setMin(branch: Branch<T>, at: number, min: T): void {
    // Every write passes here at every level; the key of an unchanged min is not read again.
    if (branch.mins[at] === min) return
    branch.mins[at] = min
    branch.keys[at] = this.keyOf(min)
  }

  /**
   * Where `item` is in a leaf's `items`: by identity when the very object is held (the usual
   * case: a store removes what it holds), else its place in the order. A scan of the leaf's
   * pointers reads one array; a binary search by `compare` reads an item (and, for a title, a
   * string) per step, each from memory the cache has long lost once a tree holds a million.
   */
  #indexIn(items: T[], item: T): number {
    const at = items.indexOf(item)
    return at >= 0 ? at : this.#placeIn(items, item)
  }

  /** The first place in `items` whose item does not sort before `item`. */
  #placeIn(items: T[], item: T): number {
    let low = 0
    let high = items.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if (this.compare(items[middle] as T, item) < 0) low = middle + 1
      else high = middle
    }
    return low
  }

  /** Counts `item` in (`by` 1) or out (-1) along `path`, and brings the smallest items up to date. */
  #tally(path: { node: Node<T>; index: number }[], item: T, by: number): void {
    const group = this.groupOf(item)
    for (let depth = path.length - 1; depth >= 0; depth--) {
      const { node } = path[depth] as { node: Node<T> }
      ;(node.counts[group] as number) += by
      ;(node.counts[this.#total] as number) += by
      if (depth + 1 < path.length && !node.leaf) {
        const below = path[depth + 1] as { node: Node<T>; index: number }
        if (below.node.counts[this.#total] !== 0) this.#setMin(node, below.index, minOf(below.node))
      }
    }
  }

  /**
   * Splits the overfull node at the end of `path`, and its parents as they overflow in turn.
   * An append at the far right leaves the full node full, so items added in order (ids) fill
   * their leaves instead of leaving each half empty.
   */
  #split(path: { node: Node<T>; index: number }[], appending: boolean): void {
    for (let depth = path.length - 1; depth >= 0; depth--) {
      const { node, index } = path[depth] as { node: Node<T>; index: number }
      const size = node.leaf ? node.items.length : node.children.length
      if (size <= (node.leaf ? LEAF_MAX : BRANCH_MAX)) return
      const cut = appending ? size - 1 : size >>> 1
      const right = node.leaf ? this.#splitLeaf(node, cut) : this.#splitBranch(node, cut)
      if (depth === 0) {
        this.#root = this.#branch([node, right])
        return
      }
      const parent = (path[depth - 1] as { node: Branch<T> }).node
      parent.children.splice(index + 1, 0, right)
      parent.mins.splice(index + 1, 0, minOf(right))
      parent.keys.splice(index + 1, 0, this.keyOf(minOf(right)))
    }
  }

  #splitLeaf(leaf: Leaf<T>, cut: number): Leaf<T> {
    const right = this.#leaf(leaf.items.splice(cut))
    right.next = leaf.next
    leaf.next = right
    this.#recount(leaf)
    return right
  }

  #splitBranch(branch: Branch<T>, cut: number): Branch<T> {
    const right = this.#branch(branch.children.splice(cut))
    branch.mins.splice(cut)
    branch.keys.splice(cut)
    this.#recount(branch)
    return right
  }

  #recount(node: Node<T>): void {
    const fresh = node.leaf ? this.#countsOf(node.items) : this.#branch(node.children).counts
    node.counts.splice(0, fresh.length, ...fresh)
  }

  /**
   * After a removal: a node left under a quarter full takes items from a neighbour, or merges
   * with it, up the path; a root left with one child gives way to it.
   */
  #rebalance(path: { node: Node<T>; index: number }[]): void {
    for (let depth = path.length - 1; depth >= 1; depth--) {
      const { node, index } = path[depth] as { node: Node<T>; index: number }
      const parent = (path[depth - 1] as { node: Branch<T> }).node
      const max = node.leaf ? LEAF_MAX : BRANCH_MAX
      if (sizeOf(node) >= max >>> 2) break
      if (parent.children.length < 2) break
      // The node and a neighbour, left one first.
      const leftAt = index > 0 ? index - 1 : index
      const left = parent.children[leftAt] as Node<T>
      const right = parent.children[leftAt + 1] as Node<T>
      if (sizeOf(left) + sizeOf(right) <= max) {
        this.#merge(left, right)
        parent.children.splice(leftAt + 1, 1)
        parent.mins.splice(leftAt + 1, 1)
        parent.keys.splice(leftAt + 1, 1)
      } else {
        this.#even(left, right)
        this.#setMin(parent, leftAt + 1, minOf(right))
      }
      if (sizeOf(left) > 0) this.#setMin(parent, leftAt, minOf(left))
    }
    while (!this.#root.leaf && this.#root.children.length === 1) {
      this.#root = this.#root.children[0] as Node<T>
    }
  }

  /** Moves everything in `right` to the end of `left`. */
  #merge(left: Node<T>, right: Node<T>): void {
    if (left.leaf && right.leaf) {
      left.items.push(...right.items)
      left.next = right.next
    } else if (!left.leaf && !right.leaf) {
      left.children.push(...right.children)
      left.mins.push(...right.mins)
      left.keys.push(...right.keys)
    }
    this.#recount(left)
  }

  /** Shares the entries of two neighbours evenly between them. */
  #even(left: Node<T>, right: Node<T>): void {
    if (left.leaf && right.leaf) {
      const all = [...left.items, ...right.items]
      const cut = all.length >>> 1
      left.items = all.slice(0, cut)
      right.items = all.slice(cut)
    } else if (!left.leaf && !right.leaf) {
      const children = [...left.children, ...right.children]
      const cut = children.length >>> 1
      left.children = children.slice(0, cut)
      right.children = children.slice(cut)
      left.mins = left.children.map(minOf)
      right.mins = right.children.map(minOf)
      left.keys = left.mins.map(this.keyOf)
      right.keys = right.mins.map(this.keyOf)
    }
    this.#recount(left)
    this.#recount(right)
  }
}

function sizeOf<T>(node: Node<T>): number {
  return node.leaf ? node.items.length : node.children.length
}

function minOf<T>(node: Node<T>): T {
  return (node.leaf ? node.items[0] : node.mins[0]) as T
}

/**
 * The last child whose smallest item passes `test` (0 when none past the first does), by
 * binary search: `test` holds for a first stretch of the children and not after it. The
 * first child is where everything before the second belongs, whatever its smallest item.
 */
function lastChildWhere<T>(mins: T[], test: (min: T) => boolean): number {
  let low = 0
  let high = mins.length - 1
  while (low < high) {
    const middle = (low + high + 1) >>> 1
    if (test(mins[middle] as T)) low = middle
    else high = middle - 1
  }
  return low
}
