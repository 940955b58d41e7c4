import type { SortField } from './list-query.js'
import type { TugasInput } from './rules.js'
import type { Komentar, Tugas } from './schemas.js'
import type { TugasQuery, TugasSlice, TugasStore } from './store.js'

function compare(sort: SortField, descending: boolean) {
  return (a: Tugas, b: Tugas): number => {
    const x = a[sort]
    const y = b[sort]
    // Code-unit order, not locale order; ties always fall back to ascending id.
    const order = x < y ? -1 : x > y ? 1 : 0
    return (descending ? -order : order) || a.id - b.id
  }
}

/**
 * The default store: process memory. Tasks are frozen objects replaced on every change, so a
 * caller can keep one without seeing later writes. Sorted, filtered views are cached until the
 * next write: reads of a page cost a slice, not a sort.
 */
export class MemoryTugasStore implements TugasStore {
  readonly #tasks = new Map<number, Tugas>()
  readonly #comments = new Map<number, Komentar[]>()
  readonly #views = new Map<string, Tugas[]>()
  #nextId = 1
  #nextCommentId = 1

  async all(): Promise<Tugas[]> {
    return this.#view({ status: undefined, sort: 'id', descending: false }).slice()
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
    this.#changed()
    return task
  }

  async replace(id: number, input: TugasInput): Promise<Tugas | undefined> {
    return this.#write(id, { title: input.title, status: input.status })
  }

  async update(id: number, changes: Partial<TugasInput>): Promise<Tugas | undefined> {
    return this.#write(id, changes)
  }

  async delete(id: number): Promise<boolean> {
    if (!this.#tasks.delete(id)) return false
    this.#comments.delete(id)
    this.#changed()
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
    this.#changed()
    return next
  }

  #changed(): void {
    this.#views.clear()
  }

  #view(query: Pick<TugasQuery, 'status' | 'sort' | 'descending'>): Tugas[] {
    const key = `${query.status ?? '*'}:${query.sort}:${query.descending}`
    let view = this.#views.get(key)
    if (view === undefined) {
      view = [...this.#tasks.values()]
      if (query.status !== undefined) view = view.filter((task) => task.status === query.status)
      if (query.sort !== 'id' || query.descending) view.sort(compare(query.sort, query.descending))
      this.#views.set(key, view)
    }
    return view
  }
}
