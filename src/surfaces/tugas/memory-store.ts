import type { EventType, Publish } from '../../store/events.js'
import { CountedTree } from '../../store/memory/counted-tree.js'
import { type Precondition, writeIf } from '../../store/precondition.js'
import type { TugasInput } from './rules.js'
import { type Komentar, TUGAS_STATUSES, type Tugas, type TugasStatus } from './schemas.js'
import type { TugasQuery, TugasSlice, TugasStore } from './store.js'

/** Each status as a group of the ordered indexes, in code-unit order of the status. */
const STATUSES = [...TUGAS_STATUSES].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
const groupOfStatus = (status: TugasStatus) => STATUSES.indexOf(status)
const groupOf = (task: Tugas) => groupOfStatus(task.status)

const byId = (a: Tugas, b: Tugas) => a.id - b.id
/** Code-unit order on the title, not locale order; ties by ascending id. */
const byTitle = (a: Tugas, b: Tugas) =>
  a.title < b.title ? -1 : a.title > b.title ? 1 : a.id - b.id

/** A code unit of `text`, 0 past its end. */
const unitAt = (text: string, at: number) => (at < text.length ? text.charCodeAt(at) : 0)
/**
 * The title order's key (see CountedTree): the title's first three code units as one number,
 * which orders titles as byTitle does wherever two keys differ.
 */
const titlePrefixKey = ({ title }: Tugas) =>
  unitAt(title, 0) * 2 ** 32 + unitAt(title, 1) * 2 ** 16 + unitAt(title, 2)
const idKey = (task: Tugas) => task.id

/** Tasks in one run of the title order: descending pages keep them in ascending id order. */
const sameTitle = (a: Tugas, b: Tugas) => a.title === b.title
/** In id order every run is one task. */
const sameTask = (a: Tugas, b: Tugas) => a.id === b.id

/**
 * The default store: process memory. Tasks are frozen objects replaced on every change, so a
 * caller can keep one without seeing later writes. Two ordered indexes serve every filter and
 * order of the list, each counting its tasks per status: by id (also the status orders: each
 * status's tasks in id order, one status after the other) and by title. A write costs
 * O(log n) in each, and so does a page at any offset.
 */
export class MemoryTugasStore implements TugasStore {
  /** Only tasks that have comments: most have none. */
  readonly #comments = new Map<number, Komentar[]>()
  readonly #byId = new CountedTree<Tugas>(byId, groupOf, STATUSES.length, idKey)
  readonly #byTitle = new CountedTree<Tugas>(byTitle, groupOf, STATUSES.length, titlePrefixKey)
  #nextId = 1
  #nextCommentId = 1

  /** `publish`: where writes publish their events (none: they publish nothing). */
  constructor(private readonly publish?: Publish) {}

  async all(): Promise<Tugas[]> {
    return [...this.#byId]
  }

  async query({ status, sort, descending, offset, limit }: TugasQuery): Promise<TugasSlice> {
    const group = status === undefined ? undefined : groupOfStatus(status)
    const total = this.#byId.count(group)
    return { items: this.#page(sort, descending, group, offset, limit), total }
  }

  async get(id: number): Promise<Tugas | undefined> {
    return this.#find(id)
  }

  async create(input: TugasInput): Promise<Tugas> {
    const task = this.#newTask(input)
    this.#changed(undefined, task)
    this.#published('tugas.created', task)
    return task
  }

  async createMany(inputs: TugasInput[]): Promise<Tugas[]> {
    if (this.#byId.count() > 0) {
      return inputs.map((input) => {
        const task = this.#newTask(input)
        this.#changed(undefined, task)
        return task
      })
    }
    // Into an empty store (the seed), the indexes are built at once rather than insert by
    // insert: one sort instead of a descent per task, a second or more saved per million.
    const tasks = inputs.map((input) => this.#newTask(input))
    this.#byId.fill(tasks)
    this.#byTitle.fill([...tasks].sort(byTitle))
    return tasks
  }

  #newTask(input: TugasInput): Tugas {
    const task = Object.freeze({
      id: this.#nextId++,
      title: input.title,
      status: canonical(input.status),
    })
    return task
  }

  async replace(id: number, input: TugasInput, precondition?: Precondition<Tugas>) {
    const changes = { title: input.title, status: input.status }
    return this.#write(id, changes, precondition, 'tugas.replaced')
  }

  async update(id: number, changes: Partial<TugasInput>, precondition?: Precondition<Tugas>) {
    return this.#write(id, changes, precondition, 'tugas.updated')
  }

  async delete(id: number, precondition?: Precondition<Tugas>) {
    const task = this.#find(id)
    return writeIf(task, precondition, () => {
      if (task === undefined) return false
      this.#comments.delete(id)
      this.#changed(task, undefined)
      this.#published('tugas.deleted', { id })
      return true
    })
  }

  async comments(tugasId: number): Promise<Komentar[] | undefined> {
    if (this.#find(tugasId) === undefined) return undefined
    return this.#comments.get(tugasId)?.slice() ?? []
  }

  async comment(tugasId: number, id: number): Promise<Komentar | undefined> {
    return this.#comments.get(tugasId)?.find((komentar) => komentar.id === id)
  }

  async addComment(tugasId: number, isi: string): Promise<Komentar | undefined> {
    if (this.#find(tugasId) === undefined) return undefined
    const komentar = Object.freeze({ id: this.#nextCommentId++, tugasId, isi })
    const list = this.#comments.get(tugasId)
    if (list === undefined) this.#comments.set(tugasId, [komentar])
    else list.push(komentar)
    this.publish?.({
      type: 'komentar.created',
      subject: `${tugasId}/komentar/${komentar.id}`,
      data: komentar,
    })
    return komentar
  }

  #write(
    id: number,
    changes: Partial<TugasInput>,
    precondition: Precondition<Tugas> | undefined,
    type: EventType,
  ) {
    const current = this.#find(id)
    return writeIf(current, precondition, () => {
      if (current === undefined) return undefined
      const next = Object.freeze({
        id,
        title: changes.title ?? current.title,
        status: canonical(changes.status ?? current.status),
      })
      this.#changed(current, next)
      this.#published(type, next)
      return next
    })
  }

  #published(type: EventType, data: { id: number }): void {
    this.publish?.({ type, subject: String(data.id), data })
  }

  /** The id tree is also the id index: no map beside it (a map entry costs more than a task). */
  #find(id: number): Tugas | undefined {
    return this.#byId.find({ id } as Tugas)
  }

  #changed(before: Tugas | undefined, after: Tugas | undefined): void {
    this.#byId.change(before, after)
    this.#byTitle.change(before, after)
  }

  /** The page of one filter (`group`) in one order. */
  #page(
    sort: TugasQuery['sort'],
    descending: boolean,
    group: number | undefined,
    offset: number,
    limit: number,
  ): Tugas[] {
    if (sort === 'status') return this.#byStatus(descending, group, offset, limit)
    const [index, sameRun] = sort === 'id' ? [this.#byId, sameTask] : [this.#byTitle, sameTitle]
    return descending
      ? index.sliceDescending(offset, offset + limit, sameRun, group)
      : index.slice(offset, offset + limit, group)
  }

  /** Each status's tasks in id order, statuses in code-unit order (reversed when descending). */
  #byStatus(
    descending: boolean,
    group: number | undefined,
    offset: number,
    limit: number,
  ): Tugas[] {
    const groups = group === undefined ? STATUSES.map((_, g) => g) : [group]
    if (descending) groups.reverse()
    const page: Tugas[] = []
    let skip = offset
    for (const g of groups) {
      const size = this.#byId.count(g)
      if (skip >= size) {
        skip -= size
        continue
      }
      page.push(...this.#byId.slice(skip, skip + limit - page.length, g))
      skip = 0
      if (page.length === limit) break
    }
    return page
  }
}

/** The one string of each status, so a million tasks share two strings rather than hold their own. */
function canonical(status: TugasStatus): TugasStatus {
  return STATUSES[groupOfStatus(status)] ?? status
}
