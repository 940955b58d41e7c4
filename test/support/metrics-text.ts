// Reads the Prometheus text format (0.0.4) that GET /metrics answers, for the tests' checks.

export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

export interface Metrics {
  samples: Sample[]
  /** Each metric family's `# TYPE`. */
  types: Map<string, string>
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

export function parseMetrics(text: string): Metrics {
  const samples: Sample[] = []
  const types = new Map<string, string>()
  for (const line of text.split('\n')) {
    if (line === '') continue
    const type = /^# TYPE (\S+) (\S+)$/.exec(line)
    if (type) types.set(type[1] as string, type[2] as string)
    if (line.startsWith('#')) continue
    const match = SAMPLE.exec(line)
    if (!match) throw new Error(`not a sample line: ${line}`)
    const labels: Record<string, string> = {}
    for (const [, name, value] of (match[2] ?? '').matchAll(LABEL)) {
      labels[name as string] = (value as string).replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c))
    }
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) })
  }
  return { samples, types }
}

/** Every sample of the metric `name`. */
export function samplesOf(metrics: Metrics, name: string): Sample[] {
  return metrics.samples.filter((sample) => sample.name === name)
}

/** The value of the sample of `name` whose labels are exactly `labels`, if there is one. */
export function sampleOf(
  metrics: Metrics,
  name: string,
  labels: Record<string, string>,
): number | undefined {
  const wanted = Object.entries(labels).sort()
  return samplesOf(metrics, name).find((sample) => {
    const has = Object.entries(sample.labels).sort()
    return JSON.stringify(has) === JSON.stringify(wanted)
  })?.value
}
