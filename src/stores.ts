import type { Seed } from './seed.js'
import { type CompactStore, MemoryCompactStore } from './surfaces/compact/store.js'
import { MemoryTodoStore, type TodoStore } from './surfaces/todos/store.js'
import { MemoryTugasStore } from './surfaces/tugas/memory-store.js'
import type { TugasStore } from './surfaces/tugas/store.js'

/** Every surface's data, behind its store interface. */
export interface Stores {
  tugas: TugasStore
  compact: CompactStore
  todos: TodoStore
}

/**
 * In-memory stores holding the seed; ids are assigned from 1 in array order. Surfaces B and C
 * have no seed key and start empty.
 */
export async function createMemoryStores(seed: Seed): Promise<Stores> {
  const tugas = new MemoryTugasStore()
  for (const task of seed.tugas) await tugas.create(task)
  for (const komentar of seed.komentar) await tugas.addComment(komentar.tugasId, komentar.isi)
  return { tugas, compact: new MemoryCompactStore(), todos: new MemoryTodoStore() }
}
