import type { Seed } from './seed.js'
import { MemoryTugasStore } from './surfaces/tugas/memory-store.js'
import type { TugasStore } from './surfaces/tugas/store.js'

/** Every surface's data, behind its store interface. */
export interface Stores {
  tugas: TugasStore
}

/** In-memory stores holding the seed; ids are assigned from 1 in array order. */
export async function createMemoryStores(seed: Seed): Promise<Stores> {
  const tugas = new MemoryTugasStore()
  for (const task of seed.tugas) await tugas.create(task)
  for (const komentar of seed.komentar) await tugas.addComment(komentar.tugasId, komentar.isi)
  return { tugas }
}
