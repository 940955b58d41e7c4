// `tugas listen`, the built command (`npm run build` first: dist/cli/tugas.js), run as a child
// process with a config directory of the test's own (TUGAS_CONFIG_DIR): its stdout read line by
// line, killed when the file's tests end. For test/surfaces/events/listen.test.ts and the docs'
// own session (test/docs-snippets.test.ts).
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { after } from 'node:test'

/** The built command. */
export const TUGAS_COMMAND = new URL('../../dist/cli/tugas.js', import.meta.url).pathname

const started = new Set<ChildProcess>()
after(() => {
  for (const child of started) child.kill('SIGKILL')
})

export interface Running {
  child: ChildProcess
  lines: string[]
  /** Resolves with the lines once one of them passes `test`; rejects after `ms`. */
  until(test: (line: string) => boolean, ms?: number): Promise<string[]>
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>
}

/** `tugas <args>` with its state in `configDir`. */
export function tugas(args: string[], configDir: string): Running {
  const child = spawn(process.execPath, [TUGAS_COMMAND, ...args], {
    env: { ...process.env, TUGAS_CONFIG_DIR: configDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  started.add(child)
  child.on('exit', () => started.delete(child))
  const lines: string[] = []
  const waiters = new Set<() => void>()
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    lines.push(line)
    for (const wake of waiters) wake()
  })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk
  })
  return {
    child,
    lines,
    until: (test, ms = 15_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (!lines.some(test)) return
          waiters.delete(check)
          clearTimeout(timer)
          resolve(lines)
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`not printed within ${ms} ms: ${JSON.stringify({ lines, stderr })}`))
        }, ms)
        waiters.add(check)
        check()
      }),
    async stop() {
      const exited = once(child, 'exit') as Promise<[number | null]>
      child.kill('SIGTERM')
      return (await exited)[0]
    },
  }
}

/** The secret of the first line, `Signing secret: whsec_...`. */
export const secretOf = (lines: string[]) =>
  /^Signing secret: (whsec_[A-Za-z0-9+/=]+)$/.exec(lines[0] ?? '')?.[1] as string

/** The forward lines: `<id> <type> <status or failure>`. */
export const forwardLines = (lines: string[]) => lines.filter((line) => /^\d+ /.test(line))
