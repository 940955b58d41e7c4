// The real process for tests of the run contract: `npm start` with a given environment, its
// log lines, its exit. Every process started here is killed when the test file ends.
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { request } from 'node:http'
import { createInterface } from 'node:readline'
import { after } from 'node:test'
import { setTimeout as pause } from 'node:timers/promises'
import { freshDatabaseUrl } from './postgres.js'
import { freshPrefix, REDIS_URL } from './redis.js'

const root = new URL('../..', import.meta.url).pathname

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

/**
 * `npm start` with WORKERS=2 on a database and a Redis key prefix of its own, path versioning,
 * logging at info: the several-processes service the workers tests run against.
 */
export async function startTwoWorkers(): Promise<ChildProcess> {
  return npmStart({
    WORKERS: '2',
    DATABASE_URL: await freshDatabaseUrl(),
    REDIS_URL,
    REDIS_KEY_PREFIX: freshPrefix(),
    TUGAS_VERSIONING: 'path',
    LOG_LEVEL: 'info',
  })
}

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

export interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/**
 * One request on a new connection (no keep-alive), so each may reach another worker; `id` is
 * its X-Request-Id, to find its log line.
 */
export function send(
  base: string,
  method: string,
  path: string,
  {
    body,
    id,
    headers: extra,
  }: { body?: unknown; id?: string; headers?: Record<string, string> } = {},
) {
  return new Promise<Answer>((resolve, reject) => {
    const headers: Record<string, string> = { connection: 'close', ...extra }
    if (body !== undefined) headers['content-type'] = 'application/json'
    if (id !== undefined) headers['x-request-id'] = id
    const sent = request(`${base}${path}`, { method, headers, agent: false }, (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => {
        text += chunk
      })
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }),
      )
      response.on('error', reject)
    })
    sent.on('error', reject)
    // A request lost with a killed worker must fail, not hold the test.
    sent.setTimeout(5000, () => sent.destroy(new Error(`no answer to ${method} ${path} in 5 s`)))
    sent.end(body === undefined ? undefined : JSON.stringify(body))
  })
}

/**
 * Sends `one()` in rounds of four at once until `enough(every answer so far)` holds, for at most
 * 25 rounds; returns every answer. Which worker accepts a connection is the kernel's pick
 * (SCHED_NONE), and on a loaded machine it can hand a long run of one-at-a-time connections to
 * the same worker: requests sent together reach the other while the first is busy, and the
 * growing pause between rounds lets the other be waiting when the next round comes.
 */
export async function inRounds<T>(
  one: () => Promise<T>,
  enough: (answers: T[]) => boolean,
): Promise<T[]> {
  const answers: T[] = []
  for (let round = 0; round < 25; round++) {
    answers.push(...(await Promise.all([one(), one(), one(), one()])))
    if (enough(answers)) break
    await pause(10 * round)
  }
  return answers
}
