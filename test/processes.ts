// The real process for tests of the run contract: `npm start` with a given environment, its
// log lines, its exit. Every process started here is killed when the test file ends.
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { after } from 'node:test'

const root = new URL('..', import.meta.url).pathname

const started: ChildProcess[] = []

/** `npm start` in a process group of its own, so cleanup can reach the node process too. */
export function npmStart(env: Record<string, string>): ChildProcess {
  const child = spawn('npm', ['start', '--silent'], {
    cwd: root,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  started.push(child)
  return child
}

after(() => {
  for (const child of started) {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
    } catch {
      // Already gone: the test stopped it.
    }
  }
})

/** Resolves with the address from the "Server listening at" log line; collects every line. */
export async function listening(
  child: ChildProcess,
  lines: Record<string, unknown>[],
): Promise<string> {
  // One listener for the whole life of the process: a `for await` over the lines would close
  // the reader when it returns, and lines written later could be missed.
  const reader = createInterface({ input: child.stdout as NodeJS.ReadableStream })
  return new Promise((resolve, reject) => {
    reader.on('line', (line) => {
      const entry = JSON.parse(line) as Record<string, unknown>
      lines.push(entry)
      const match = /Server listening at (https?:\/\/127\.0\.0\.1:\d+)/.exec(String(entry.msg))
      if (match?.[1]) resolve(match[1])
    })
    reader.once('close', () => reject(new Error('the service exited before listening')))
  })
}

export async function exitOf(
  child: ChildProcess,
): Promise<{ code: number | null; stderr: string }> {
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk
  })
  // 'close', not 'exit': every line the process wrote has been read by then.
  const [code] = (await once(child, 'close')) as [number | null]
  return { code, stderr }
}

/** Resolves true once a log line has the message `msg`, false after `ms` milliseconds. */
export async function logged(lines: Record<string, unknown>[], msg: string, ms: number) {
  for (let waited = 0; waited < ms; waited += 20) {
    if (lines.some((line) => line.msg === msg)) return true
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return false
}
