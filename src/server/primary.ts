import cluster, { type Worker } from 'node:cluster'
import { pino } from 'pino'
import type { Config } from '../config.js'
import { serveClusterMetrics } from '../metrics/cluster.js'

/** How long a replacement that died before listening waits before the next try, at most. */
const MAX_RESTART_DELAY_MS = 30_000

/**
 * The primary of `WORKERS=N`: it serves nothing itself. It starts the workers, which share its
 * one listener (node:cluster hands each connection to one of them), replaces a worker that
 * dies, and on SIGTERM or SIGINT lets every worker drain and exits 0 once all have.
 *
 * The first worker starts alone: it migrates the schema and loads the seed, and a setting it
 * cannot use (a database it cannot reach, a bad SEED_FILE) is refused by it with its one line,
 * then by the primary with exit 1. The others start once it listens. The primary writes the
 * one "Server listening at" line when all of them listen; the workers write none.
 */
export async function runPrimary(config: Config): Promise<void> {
  const log = pino({ level: config.logLevel })
  // The workers accept from the one listening socket themselves. Node's default instead has
  // the primary accept and hand each connection over; a connection handed to a worker that is
  // killed at that moment stays open in the primary, unanswered, until the client gives up.
  cluster.schedulingPolicy = cluster.SCHED_NONE
  // A scrape of /metrics on any worker is answered with every worker's metrics, summed here.
  serveClusterMetrics()
  const live = new Set<Worker>()
  let stopping = false
  let failedToStop = false

  const fork = () => {
    const worker = cluster.fork()
    live.add(worker)
    worker.once('exit', (code) => {
      live.delete(worker)
      if (!stopping) return
      if (code !== 0) failedToStop = true
      if (live.size === 0) process.exit(failedToStop ? 1 : 0)
    })
    return worker
  }
  const killAll = (signal: NodeJS.Signals) => {
    for (const worker of live) worker.process.kill(signal)
  }

  // As in a single process: the first signal drains, the second is logged, a third forces the
  // exit. Each worker gets the signal from here once (and maybe once more from the terminal,
  // which its own handler counts as a repeat).
  let signals = 0
  const stop = (signal: NodeJS.Signals) => {
    signals += 1
    if (signals === 1) {
      stopping = true
      log.info({ signal }, 'shutting down: every worker finishes its requests in flight')
      if (live.size === 0) process.exit(0)
      killAll('SIGTERM')
    } else if (signals === 2) {
      log.warn({ signal }, 'already shutting down; a third signal forces the exit')
    } else {
      log.error({ signal }, 'forced exit: requests in flight are dropped')
      killAll('SIGKILL')
      process.exit(1)
    }
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)

  let url: string
  try {
    url = await listening(config, fork())
    await Promise.all(Array.from({ length: config.workers - 1 }, () => listening(config, fork())))
  } catch {
    if (stopping) return
    // The worker that failed wrote why; the others are stopped before the refusal.
    stopping = true
    killAll('SIGKILL')
    process.exit(1)
  }
  log.info({ workers: config.workers }, `Server listening at ${url}`)

  // A worker that dies after it listened is replaced at once; a replacement that cannot even
  // start (the database gone, say) is tried again after a delay that doubles each time.
  let restartDelayMs = 0
  const serving = new WeakSet<Worker>()
  for (const worker of live) serving.add(worker)
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return
    log.error({ worker: worker.process.pid, code, signal }, 'worker died; starting a replacement')
    restartDelayMs = serving.has(worker)
      ? 0
      : Math.min(MAX_RESTART_DELAY_MS, Math.max(250, restartDelayMs * 2))
    setTimeout(() => {
      if (stopping) return
      const replacement = fork()
      listening(config, replacement).then(
        () => {
          serving.add(replacement)
          log.info({ worker: replacement.process.pid }, 'replacement worker listening')
        },
        () => {}, // its exit is handled above
      )
    }, restartDelayMs)
  })
}

/** Resolves with the listener's URL once `worker` listens; rejects if it exits first. */
function listening(config: Config, worker: Worker): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const listened = (address: { address: string; port: number }) => {
      worker.off('exit', died)
      resolve(urlOf(config, address))
    }
    const died = () => {
      worker.off('listening', listened)
      reject(new Error(`worker ${worker.process.pid} exited before listening`))
    }
    worker.once('listening', listened)
    worker.once('exit', died)
  })
}

/** The address as Fastify writes it in its own listening line. */
function urlOf(config: Config, { address, port }: { address: string; port: number }): string {
  const scheme = config.tls === undefined ? 'http' : 'https'
  const host = address.includes(':') ? `[${address}]` : address
  return `${scheme}://${host}:${port}`
}
