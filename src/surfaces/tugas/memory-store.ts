import type { SortField } from './list-query.js'
import type { TugasInput } from './rules.js'
import type { Komentar, Tugas } from './schemas.js'
import type { TugasQuery, TugasSlice, TugasStore } from './store.js'

type Compare = (a: Tugas, b: Tugas) => number

/** A total order: code-unit order on the column, not locale order; ties by ascending id. */
function compare(sort: SortField, descending: boolean): Compare {
  return (a, b) => {
    const x = a[sort]
    const y = b[sort]
    const order = x < y ? -1 : x > y ? 1 : 0
    return (descending ? -order : order) || a.id - b.id
  }
}

/**
 * The tasks of one status filter in one sort order, kept sorted as tasks change: the order is
 * total, so binary search finds each task's exact place and a write costs a splice, not a sort.
 */
class SortedView {
  readonly items: Tugas[]

  constructor(
    tasks: Iterable<Tugas>,
    readonly status: TugasQuery['status'],
    readonly compare: Compare,
  ) {
    this.items = [...tasks].filter((task) => this.#holds(task)).sort(compare)
  }

  add(task: Tugas): void {
    if (this.#holds(task)) this.items.splice(this.#place(task), 0, task)
  }

  remove(task: Tugas): void {
    if (!this.#holds(task)) return
    const at = this.#place(task)
    if (this.items[at]?.id === task.id) this.items.splice(at, 1)
  }

  #holds(task: Tugas): boolean {
    return this.status === undefined || task.status === this.status
  }

  /** The first index whose task does not sort before `task`. */
  #place(task: Tugas): number {
    let low = 0
    let high = this.items.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if (this.compare(this.items[middle] as Tugas, task) < 0) low = middle + 1
      else high = middle
    }
    return low
  }
}

/**
 * The default store: process memory. Tasks are frozen objects replaced on every change, so a
 * caller can keep one without seeing later writes. Each filter and order asked for is built
 * once and then kept up to date by every write: a page costs a slice, never a sort.
 */
export class MemoryTugasStore implements TugasStore {
  readonly #tasks = new Map<number, Tugas>()
  readonly #comments = new Map<number, Komentar[]>()
  readonly #views = new Map<string, SortedView>()
  #nextId = 1
  #nextCommentId = 1

  async all(): Promise<Tugas[]> {
    return [...this.#tasks.values()]
  }

  async query(query: TugasQuery): Promise<TugasSlice> {
    const view = this.#view(query)
    return { items: view.slice(query.offset, query.offset + query.limit), total: view.length }
  }

  async get(id: number): Promise<Tugas | undefined> {
    return this.#tasks.get(id)
  }

  async create(input: TugasInput): Promise<Tugas> {
    const task = Object.freeze({ id: this.#nextId++, title: input.title, status: input.status })
    this.#tasks.set(task.id, task)
    this.#comments.set(task.id, [])
    this.#changed(undefined, task)
    return task
  }

  async replace(id: number, input: TugasInput): Promise<Tugas | undefined> {
    return this.#write(id, { title: input.title, status: input.status })
  }

  async update(id: number, changes: Partial<TugasInput>): Promise<Tugas | undefined> {
    return this.#write(id, changes)
  }

  async delete(id: number): Promise<boolean> {
    const task = this.#tasks.get(id)
    if (task === undefined) return false
    this.#tasks.delete(id)
    this.#comments.delete(id)
    this.#changed(task, undefined)
    return true
  }

  async comments(tugasId: number): Promise<Komentar[] | undefined> {
    return this.#comments.get(tugasId)?.slice()
  }

  async comment(tugasId: number, id: number): Promise<Komentar | undefined> {
    return this.#comments.get(tugasId)?.find((komentar) => komentar.id === id)
  }

  async addComment(tugasId: number, isi: string): Promise<Komentar | undefined> {
    const list = this.#comments.get(tugasId)
    if (list === undefined) return undefined
    const komentar = Object.freeze({ id: this.#nextCommentId++, tugasId, isi })
    list.push(komentar)
    return komentar
  }

  #write(id: number, changes: Partial<TugasInput>): Tugas | undefined {
    const current = this.#tasks.get(id)
    if (current === undefined) return undefined
    const next = Object.freeze({ ...current, ...changes })
    // Map.set on an existing key keeps its place: iteration stays in ascending id order.
    this.#tasks.set(id, next)
    this.#changed(current, next)
    return next
  }

  #changed(before: Tugas | undefined, after: Tugas | undefined): void {
    for (const view of this.#views.values()) {
      if (before !== undefined) view.remove(before)
      if (after !== undefined) view.add(after)
    }
  }

  #view(query: Pick<TugasQuery, 'status' | 'sort' | 'descending'>): Tugas[] {
    const key = `${query.status ?? '*'}:${query.sort}:${query.descending}`
    let view = this.#views.get(key)
    if (view === undefined) {
      view = new SortedView(
        this.#tasks.values(),
        query.status,
        compare(query.sort, query.descending),
      )
      this.#views.set(key, view)
    }
    return view.items
  }
}
