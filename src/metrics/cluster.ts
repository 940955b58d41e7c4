import cluster, { type Worker } from 'node:cluster'
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue } from 'prom-client'

/**
 * Metrics under `WORKERS=N`, summed over every worker. A scrape lands on one worker (the kernel
 * picks it); that worker asks the primary over the cluster IPC channel, the primary asks every
 * worker that listens for its metrics as JSON, sums them with prom-client's AggregatorRegistry
 * (each metric by its `aggregator`: counters, histograms and gauges are summed) and answers
 * the text. The primary serves no requests and keeps no metrics of its own.
 */

export type MetricsJson = MetricObjectWithValues<MetricValue<string>>[]

/** A worker asks the primary for the metrics of all. */
const REQUEST = 'tugas:metrics-request'
/** The primary answers that worker: the text, or why it has none. */
const RESPONSE = 'tugas:metrics-response'
/** The primary asks a worker for its own metrics. */
const COLLECT = 'tugas:metrics-collect'
/** The worker answers with them. */
const COLLECTED = 'tugas:metrics-collected'

/** How long the primary waits for every worker's metrics, and a worker for the primary. */
const GATHER_TIMEOUT_MS = 2000
const ASK_TIMEOUT_MS = GATHER_TIMEOUT_MS + 1000

interface Message {
  type: string
  id: number
  text?: string
  error?: string
  metrics?: MetricsJson
}

const isMessage = (value: unknown): value is Message =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Message).type === 'string' &&
  (value as Message).type.startsWith('tugas:metrics-')

/** The metrics could not be gathered from every worker: the scrape fails rather than undercounts. */
export class MetricsUnavailableError extends Error {
  override name = 'MetricsUnavailableError'
}

/**
 * In the primary: answers each worker's request with the metrics of every listening worker,
 * summed. Call before the first fork, so that every worker's `listening` is seen.
 */
export function serveClusterMetrics(): void {
  const listening = new Set<Worker>()
  /** Gathers in progress, by id: the workers still to answer, and what those that did sent. */
  const gathers = new Map<number, Gather>()
  let nextId = 0

  cluster.on('listening', (worker) => listening.add(worker))
  cluster.on('exit', (worker) => {
    listening.delete(worker)
    // A worker that died has no metrics any more: the others' sum is the answer.
    for (const gather of gathers.values()) gather.drop(worker)
  })
  cluster.on('message', (worker, message: unknown) => {
    if (!isMessage(message)) return
    if (message.type === COLLECTED) {
      gathers.get(message.id)?.receive(worker, message.metrics ?? [])
    } else if (message.type === REQUEST) {
      const id = nextId++
      const gather = new Gather([...listening].filter((each) => each.isConnected()))
      gathers.set(id, gather)
      for (const each of gather.waiting) {
        try {
          each.send({ type: COLLECT, id })
        } catch {
          gather.drop(each)
        }
      }
      gather.result.then(
        (text) => reply(worker, { type: RESPONSE, id: message.id, text }),
        (error: Error) => reply(worker, { type: RESPONSE, id: message.id, error: error.message }),
      )
      gather.result.finally(() => gathers.delete(id)).catch(() => {})
    }
  })
}

function reply(worker: Worker, message: Message): void {
  if (!worker.isConnected()) return
  try {
    worker.send(message)
  } catch {
    // Gone meanwhile: its scrape has no one to answer.
  }
}

/** One gathering of every worker's metrics. */
class Gather {
  readonly waiting: Set<Worker>
  readonly #received: MetricsJson[] = []
  readonly result: Promise<string>
  #settle!: (outcome: { text: string } | { error: Error }) => void

  constructor(workers: Worker[]) {
    this.waiting = new Set(workers)
    this.result = new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#settle({ error: new Error(`${this.waiting.size} worker(s) did not answer`) })
      }, GATHER_TIMEOUT_MS)
      this.#settle = (outcome) => {
        clearTimeout(timer)
        if ('error' in outcome) reject(outcome.error)
        else resolve(outcome.text)
      }
    })
    this.#finishIfDone()
  }

  receive(worker: Worker, metrics: MetricsJson): void {
    if (!this.waiting.delete(worker)) return
    this.#received.push(metrics)
    this.#finishIfDone()
  }

  drop(worker: Worker): void {
    if (this.waiting.delete(worker)) this.#finishIfDone()
  }

  #finishIfDone(): void {
    if (this.waiting.size > 0) return
    AggregatorRegistry.aggregate(this.#received)
      .metrics()
      .then(
        (text) => this.#settle({ text }),
        (error: Error) => this.#settle({ error }),
      )
  }
}

let collect: (() => Promise<MetricsJson>) | undefined

/**
 * In a worker: answers the primary's requests for this worker's metrics with what `source`
 * gives (the last one given: one app per worker).
 */
export function answerClusterCollects(source: () => Promise<MetricsJson>): void {
  const first = collect === undefined
  collect = source
  if (!first) return
  process.on('message', (message: unknown) => {
    if (!isMessage(message) || message.type !== COLLECT || collect === undefined) return
    const { id } = message
    collect().then(
      (metrics) => process.send?.({ type: COLLECTED, id, metrics }),
      () => process.send?.({ type: COLLECTED, id, metrics: [] }),
    )
  })
}

let nextAsk = 0
const asks = new Map<number, (message: Message) => void>()
let hearingAnswers = false

/** In a worker: the metrics of every worker, summed, as Prometheus text (asked of the primary). */
export function clusterMetrics(): Promise<string> {
  if (!hearingAnswers) {
    hearingAnswers = true
    process.on('message', (message: unknown) => {
      if (isMessage(message) && message.type === RESPONSE) asks.get(message.id)?.(message)
    })
  }
  const id = nextAsk++
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      asks.delete(id)
      reject(new MetricsUnavailableError('the primary did not answer'))
    }, ASK_TIMEOUT_MS)
    asks.set(id, (message) => {
      clearTimeout(timer)
      asks.delete(id)
      if (message.text !== undefined) resolve(message.text)
      else reject(new MetricsUnavailableError(message.error ?? 'no metrics'))
    })
    if (process.send === undefined) {
      asks.get(id)?.({ type: RESPONSE, id, error: 'not a cluster worker' })
      return
    }
    process.send({ type: REQUEST, id })
  })
}
