// Standard output for the service's log lines (docs/operating.md#logs): the lines of one turn of
// the event loop leave in one write at its end. Under load several requests finish in a turn, and
// a write per line costs a system call, and on a pipe often a wake-up of its reader, each.
import { pino } from 'pino'

/** Past this many characters held, they are written at once rather than at the turn's end. */
export const HELD_AT_MOST = 64 * 1024

/** Where the lines go: by default sonic-boom on standard output, synchronous as pino's own. */
export interface Writer {
  write(text: string): unknown
}

export function linesByTurn(
  out: Writer = pino.destination({ dest: 1, sync: true }),
): pino.DestinationStream {
  let held = ''
  let scheduled = false
  const flush = () => {
    scheduled = false
    if (held === '') return
    const lines = held
    held = ''
    out.write(lines)
  }
  // However the process ends, SIGKILL aside, the lines of its last turn are written.
  process.once('exit', flush)
  return {
    write(line: string) {
      held += line
      if (held.length >= HELD_AT_MOST) flush()
      else if (!scheduled) {
        scheduled = true
        setImmediate(flush)
      }
    },
  }
}
