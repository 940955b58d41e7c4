import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/**
 * One full garbage collection, now. Reading a large SEED_FILE leaves its text and parsed
 * objects behind once the stores hold the data (a few hundred MB for a million tasks), and V8
 * keeps that memory resident until a full collection it has no reason to run while the heap
 * is not growing. Collecting once after start-up gives it back to the system.
 */
export function releaseStartUpGarbage(): void {
  // Node exposes no collection call without --expose-gc; set at run time, the flag gives one
  // to a new context only, leaving the service's own global untouched.
  setFlagsFromString('--expose-gc')
  const collect = runInNewContext('gc') as () => void
  collect()
}
