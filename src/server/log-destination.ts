// Standard output for the service's log lines (docs/operating.md#logs): the lines of one turn of
// the event loop leave in one write at its end. Under load several requests finish in a turn, and
// a write per line costs a system call, and on a pipe often a wake-up of its reader, each.
import { pino } from 'pino'

/**
 * The most one write carries, in whole lines (a longer line alone): what a pipe writes at once
 * (PIPE_BUF on Linux), so the lines of several workers sharing one never interleave.
 */
export const WRITE_AT_MOST = 4096

/** Where the lines go: by default sonic-boom on standard output, synchronous as pino's own. */
export interface Writer {
  write(text: string): unknown
}

export function linesByTurn(
  out: Writer = pino.destination({ dest: 1, sync: true }),
): pino.DestinationStream {
  let held = ''
  let heldBytes = 0
  let scheduled = false
  const writeHeld = () => {
    if (held === '') return
    const lines = held
    held = ''
    heldBytes = 0
    out.write(lines)
  }
  const flush = () => {
    scheduled = false
    writeHeld()
  }
  // However the process ends, SIGKILL aside, the lines of its last turn are written.
  process.once('exit', writeHeld)
  return {
    write(line: string) {
      const bytes = Buffer.byteLength(line)
      if (heldBytes + bytes > WRITE_AT_MOST) writeHeld()
      held += line
      heldBytes += bytes
      if (!scheduled) {
        scheduled = true
        setImmediate(flush)
      }
    },
  }
}
