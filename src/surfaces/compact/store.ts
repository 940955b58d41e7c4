import type { ItemStore } from '../../store/item-store.js'
import type { CompactTugas } from './schemas.js'

/**
 * Surface B's data: its own tasks, separate from surface A's, each created from its `judul`;
 * `replace` sets `judul` and `selesai`.
 */
export type CompactStore = ItemStore<CompactTugas, string, Omit<CompactTugas, 'id'>>
