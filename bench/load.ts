// One measured load of one server with its CPU per request: driven by wrk where it is installed
// (its cost stays out of the server's figures), else by autocannon (which says so in the rates:
// it parses every answer in JavaScript on the same cores).
import autocannon from 'autocannon'
import { measure, pidOf } from './servers.js'
import { cpuTicksOf, type Load, wrk, wrkProblem } from './wrk.js'

export interface LoadFigures {
  /** Requests per second, over the measured run. */
  rate: number
  /** The 99th percentile of response times, in milliseconds. */
  p99: number
  /** The server's CPU (its process and every descendant) per request, in microseconds. */
  cpu: number
}

/**
 * Warms up for `warmup` seconds (none when 0), then measures `duration` seconds of `request`
 * against the server at `base`; `fallback` gives autocannon's options for a length where wrk is
 * missing. A failed answer is reported and fails the bench's exit code.
 */
export async function measuredLoad(
  name: string,
  base: string,
  request: Omit<Load, 'seconds'>,
  fallback: (duration: number) => autocannon.Options,
  { warmup, duration }: { warmup: number; duration: number },
): Promise<LoadFigures> {
  const pid = pidOf(base)
  if (wrkProblem() === undefined) {
    if (warmup > 0) await wrk({ ...request, seconds: warmup }, [pid])
    const measured = await wrk({ ...request, seconds: duration }, [pid])
    if (measured.errors > 0) {
      console.error(`  ! ${name}: ${measured.errors} errors or answers of 400 and above`)
      process.exitCode = 1
    }
    return { rate: measured.rate, p99: measured.p99, cpu: measured.cpuPerRequest }
  }
  if (warmup > 0) await autocannon(fallback(warmup))
  const before = await cpuTicksOf([pid])
  const { result, p99 } = await measure(fallback(duration))
  const ticks = (await cpuTicksOf([pid])) - before
  const { errors, timeouts, non2xx } = result
  if (errors + timeouts + non2xx > 0) {
    console.error(`  ! ${name}: ${non2xx} non-2xx, ${errors} errors, ${timeouts} timeouts`)
    process.exitCode = 1
  }
  return { rate: result.requests.average, p99, cpu: ((ticks / 100) * 1e6) / result.requests.total }
}
