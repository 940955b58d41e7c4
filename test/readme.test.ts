// README.md and docs/*.md kept true: every curl example in them is run against the real service
// (`npm start`, built in dist/) and must answer exactly as the page shows under it.
//
// The rules (docs/development.md, Tests, says them too). Every page is read by the same rules:
// - An example is a ```sh block holding at least one `curl` command. Other ```sh blocks (npm,
//   createdb, the WORKERS start line) are set-up commands, listed here as skipped.
// - A block preceded by `<!-- not run: <reason> -->` is not run (it needs what this test cannot
//   provide); it is listed as skipped with its reason, and its answers are still required.
// - A block's configuration is its first line, `# with NAME=value ... npm start`, or the
//   default when it has none. A block in a section whose heading names a setting
//   (`TUGAS_VERSIONING=path`, not marked "(default)") must have that line, naming it.
// - Each configuration gets one fresh service; its blocks run on it in reading order, the state
//   carrying over from one to the next, as for a reader who keeps one service per setting.
//   Reading order is README.md first, then the docs pages in the order of PAGES below (the
//   order of README's "Read on"), then any other docs/*.md by name; within a page, top to
//   bottom. The configurations are independent, so their services run side by side.
// - Within a block, a command is one line, or several joined by a trailing `\`. It is read as
//   the shell would read a plain command (quotes, escapes, `#` comments; no pipes,
//   redirections or substitutions) and run as `curl` itself, without a shell, with the
//   page's `localhost:8080` (or `127.0.0.1:8080`) pointing at the service. Only `curl`
//   commands are examples: a run block holds nothing else.
// - The `# ` lines right under a command, up to a blank line, are its answer (`#` alone is an
//   empty line). Every curl command has one. Without `-i` it is the body. With `-i` it is the
//   status line, the headers that matter (`name: value`, the name matched ignoring case, every
//   header listed must be sent), `# ...` for the headers left out, then the body.
// - A body ending in `...` is a prefix: the body must start with the text before it.
// - A command with its own `--max-time` (a `GET /events` stream, which never ends) answers what
//   came before that time passed.
// - Before comparing, both sides have their RFC 3339 timestamps (`created_at`) and UUIDs
//   (generated request ids) replaced by placeholders, and the answer's trailing newline is
//   dropped; everything else is compared exactly.
// - `UPDATE_README=1` writes the answers the service gave in place of those that differ or
//   are missing (with `-i`, the headers the page lists, or all but date, x-request-id,
//   content-length, connection and keep-alive), into the page the example is in, to be
//   reviewed before committing.
//
// In the PostgreSQL pass of `npm test` (TUGAS_TEST_STORE=postgres) each configuration runs on a
// fresh PostgreSQL schema: the pages' answers hold on both stores.
import assert from 'node:assert/strict'
import { type ChildProcess, execFile } from 'node:child_process'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import { promisify } from 'node:util'
import { TEST_STORE } from './support/helpers.js'
import { freshDatabaseUrl } from './support/postgres.js'
import { exitOf, listening, npmStart } from './support/processes.js'

const root = new URL('..', import.meta.url).pathname
const run = promisify(execFile)

/** The pages whose examples run, in reading order: README.md, then docs/ as README lists it. */
const PAGES = [
  'README.md',
  ...[
    'tugas',
    'compact',
    'todos',
    'supporting',
    'versioning',
    'events',
    'webhooks',
    'http',
    'openapi',
    'client',
    'operating',
    'development',
    'decisions',
  ].map((name) => `docs/${name}.md`),
]

interface Page {
  /** The page's path from the repository's root, as test names show it. */
  file: string
  lines: string[]
  /** Answer lines to write in place of the page's, with UPDATE_README=1. */
  updates: { start: number; end: number; lines: string[] }[]
}

function pages(): Page[] {
  const docs = readdirSync(`${root}docs`)
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`)
  const listed = PAGES.filter((file) => file === 'README.md' || docs.includes(file))
  const others = docs.filter((file) => !PAGES.includes(file)).sort()
  return [...listed, ...others].map((file) => ({
    file,
    lines: readFileSync(`${root}${file}`, 'utf8').split('\n'),
    updates: [],
  }))
}

interface Command {
  /** 1-based page line of the command's first line. */
  line: number
  source: string
  args: string[]
  include: boolean
  /** The answer lines, `# ` taken off; empty when the page shows none. */
  answer: string[]
  /** 0-based page line range [answerStart, answerEnd) of the answer lines. */
  answerStart: number
  answerEnd: number
}

interface Block {
  name: string
  page: Page
  /** 1-based page line of the opening fence. */
  line: number
  notRun: string | undefined
  env: Record<string, string>
  commands: Command[]
  /** Whether a command starts with `curl`: the block is an example. */
  example: boolean
  /** Commands other than curl (npm, openssl...): never run. */
  others: number
  problems: string[]
}

const WITH = /^# with ((?:[A-Z][A-Z0-9_]*=\S+ +)+)npm start\b/
const SETTING_IN_HEADING = /`([A-Z][A-Z0-9_]*)=([^`\s]+)`/

function parsePage(page: Page): Block[] {
  const lines = page.lines
  const blocks: Block[] = []
  let heading = '(top)'
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] ?? ''
    const headingMatch = /^#{1,6} +(.*)$/.exec(text)
    if (headingMatch?.[1] !== undefined) {
      heading = headingMatch[1]
      continue
    }
    const fence = /^```(\S*)\s*$/.exec(text)
    if (!fence) continue
    let end = i + 1
    while (end < lines.length && !/^```\s*$/.test(lines[end] ?? '')) end++
    if (fence[1] === 'sh') {
      let previous = i - 1
      while (previous >= 0 && (lines[previous] ?? '').trim() === '') previous--
      const notRun = /^<!-- not run: (.*?) -->$/.exec(lines[previous] ?? '')?.[1]
      blocks.push(parseBlock(page, i + 1, end, heading, notRun))
    }
    i = end
  }
  return blocks
}

function parseBlock(
  page: Page,
  start: number,
  end: number,
  heading: string,
  notRun: string | undefined,
): Block {
  const lines = page.lines
  const block: Block = {
    name: `${heading} (${page.file}:${start})`,
    page,
    line: start,
    notRun,
    env: {},
    commands: [],
    example: false,
    others: 0,
    problems: [],
  }
  let current: Command | undefined
  let seenCommand = false
  let withLine = false
  for (let j = start; j < end; j++) {
    const text = lines[j] ?? ''
    if (text.trim() === '') {
      current = undefined
      continue
    }
    if (text.startsWith('#')) {
      if (current) {
        if (text !== '#' && !text.startsWith('# ')) {
          block.problems.push(`line ${j + 1}: an answer line is "# " and the text, or "#" alone`)
        }
        current.answer.push(text.slice(2))
        current.answerEnd = j + 1
      } else if (text.startsWith('# with ')) {
        const match = WITH.exec(text)
        if (seenCommand || withLine || !match?.[1]) {
          block.problems.push(
            `line ${j + 1}: "# with NAME=value npm start" is a block's first line; move the example to a block of its own`,
          )
        } else {
          withLine = true
          for (const pair of match[1].trim().split(/ +/)) {
            const at = pair.indexOf('=')
            block.env[pair.slice(0, at)] = pair.slice(at + 1)
          }
        }
      }
      continue
    }
    // A command: its own line and those its trailing backslashes join to it.
    const first = j
    let source = text
    while (/(^|[^\\])(\\\\)*\\$/.test(lines[j] ?? '') && j + 1 < end) {
      j++
      source += `\n${lines[j]}`
    }
    seenCommand = true
    current = undefined
    const curl = /^curl\s/.test(source)
    if (curl) block.example = true
    let args: string[]
    try {
      args = shellWords(source)
    } catch (error) {
      if (curl) block.problems.push(`line ${first + 1}: ${(error as Error).message}`)
      else block.others++
      continue
    }
    if (args[0] !== 'curl') {
      block.others++
      continue
    }
    current = {
      line: first + 1,
      source,
      args,
      include: includesHeaders(args),
      answer: [],
      answerStart: j + 1,
      answerEnd: j + 1,
    }
    block.commands.push(current)
  }
  if (block.example) {
    for (const command of block.commands) {
      const problem = expectedOf(command).problem
      if (problem) block.problems.push(`line ${command.line}: ${problem}`)
    }
    if (block.notRun === undefined && block.others > 0) {
      block.problems.push(
        'a run example holds curl commands only: name its configuration in a first line "# with NAME=value npm start"',
      )
    }
    const setting = SETTING_IN_HEADING.exec(heading)
    if (setting?.[1] && setting[2] && !heading.includes('(default)')) {
      if (block.env[setting[1]] !== setting[2]) {
        block.problems.push(
          `it is in the ${setting[1]}=${setting[2]} section: its first line must be "# with ${setting[1]}=${setting[2]} npm start"`,
        )
      }
    }
  }
  return block
}

/**
 * The words of a plain shell command: blanks separate words, `'...'` and `"..."` quote,
 * backslash escapes, backslash-newline joins lines, `#` starting a word comments out the rest.
 * Anything a plain command does not need (pipes, redirections, substitutions, globs) is refused,
 * so what runs here is what a reader's shell runs.
 */
function shellWords(source: string): string[] {
  const words: string[] = []
  let word: string | undefined
  let i = 0
  while (i < source.length) {
    const c = source[i] as string
    if (c === '\\') {
      const next = source[i + 1]
      if (next === undefined) throw new Error('a command ends with a lone backslash')
      if (next !== '\n') word = (word ?? '') + next
      i += 2
    } else if (c === ' ' || c === '\t' || c === '\n') {
      if (word !== undefined) words.push(word)
      word = undefined
      i++
    } else if (c === '#' && word === undefined) {
      const newline = source.indexOf('\n', i)
      if (newline < 0) break
      i = newline
    } else if (c === "'") {
      const close = source.indexOf("'", i + 1)
      if (close < 0) throw new Error('a single quote is not closed')
      word = (word ?? '') + source.slice(i + 1, close)
      i = close + 1
    } else if (c === '"') {
      let part = ''
      i++
      for (;;) {
        const d = source[i]
        if (d === undefined) throw new Error('a double quote is not closed')
        if (d === '"') break
        if (d === '$' || d === '`')
          throw new Error(`"${d}" inside double quotes: use single quotes`)
        if (d === '\\' && source[i + 1] !== undefined && '"\\$`\n'.includes(source[i + 1] ?? '')) {
          if (source[i + 1] !== '\n') part += source[i + 1]
          i += 2
        } else {
          part += d
          i++
        }
      }
      word = (word ?? '') + part
      i++
    } else if ('|&;<>()$`*?[]{}'.includes(c)) {
      throw new Error(`"${c}" outside quotes: the examples are plain commands (quote it)`)
    } else {
      word = (word ?? '') + c
      i++
    }
  }
  if (word !== undefined) words.push(word)
  return words
}

/** curl's short options that take a value: in `-sXPOST`, what follows X is X's value. */
const VALUE_LETTERS = new Set('AbcdDeEFHKmoOrTuUwxXy')

function includesHeaders(args: string[]): boolean {
  return args.slice(1).some((arg) => {
    if (arg === '--include') return true
    if (!/^-[a-zA-Z]+$/.test(arg)) return false
    for (const letter of arg.slice(1)) {
      if (letter === 'i') return true
      if (VALUE_LETTERS.has(letter)) return false
    }
    return false
  })
}

interface Answer {
  status?: string
  headers: [string, string][]
  body: string
  /** The body is a prefix (the page's body ended in `...`). */
  prefix: boolean
}

function expectedOf(command: Command): { answer?: Answer; problem?: string } {
  const lines = command.answer
  if (lines.length === 0) return { problem: `\`${oneLine(command.source)}\` shows no answer` }
  let bodyLines = lines
  const answer: Answer = { headers: [], body: '', prefix: false }
  if (command.include) {
    answer.status = lines[0]
    if (!/^HTTP\/[\d.]+ \d{3}\b/.test(answer.status ?? '')) {
      return { problem: 'an answer with -i starts with the status line, e.g. "# HTTP/1.1 200 OK"' }
    }
    const omitted = lines.indexOf('...')
    if (omitted < 0) {
      return { problem: 'an answer with -i lists the headers that matter, then "# ..."' }
    }
    for (const header of lines.slice(1, omitted)) {
      const colon = header.indexOf(':')
      if (colon <= 0) return { problem: `"# ${header}" is not a header line (name: value)` }
      answer.headers.push([header.slice(0, colon).trim(), header.slice(colon + 1).trim()])
    }
    bodyLines = lines.slice(omitted + 1)
  }
  answer.body = bodyLines.join('\n')
  if (answer.body.endsWith('...')) {
    answer.body = answer.body.slice(0, -3)
    answer.prefix = true
    if (answer.body === '') return { problem: 'a body "..." alone says nothing: show its start' }
  }
  return { answer }
}

function actualOf(output: string, include: boolean): Answer {
  if (!include) return { headers: [], body: output.replace(/\n$/, ''), prefix: false }
  const end = output.indexOf('\r\n\r\n')
  const head = (end < 0 ? output : output.slice(0, end)).split('\r\n')
  const headers = head.slice(1).map((line): [string, string] => {
    const colon = line.indexOf(':')
    return [line.slice(0, colon), line.slice(colon + 1).trim()]
  })
  const body = end < 0 ? '' : output.slice(end + 4)
  return { status: head[0]?.trimEnd(), headers, body: body.replace(/\n$/, ''), prefix: false }
}

const TIMESTAMP = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})/g
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi

/** What may differ from one run to the next: timestamps and generated ids. */
function normalise(text: string): string {
  return text.replace(TIMESTAMP, '<timestamp>').replace(UUID, '<uuid>')
}

function matches(expected: Answer, actual: Answer): boolean {
  if (expected.status !== actual.status) return false
  for (const [name, value] of expected.headers) {
    const sent = actual.headers.some(
      ([actualName, actualValue]) =>
        actualName.toLowerCase() === name.toLowerCase() &&
        normalise(actualValue) === normalise(value),
    )
    if (!sent) return false
  }
  const body = normalise(actual.body)
  return expected.prefix
    ? body.startsWith(normalise(expected.body))
    : body === normalise(expected.body)
}

/** Left out of a written answer: they change with every request or say nothing of the API. */
const VOLATILE = new Set(['date', 'x-request-id', 'content-length', 'connection', 'keep-alive'])

/** The actual answer as page lines; with -i, the headers `keep` names (or all but VOLATILE). */
function answerLines(actual: Answer, include: boolean, keep: string[]): string[] {
  const lines: string[] = []
  if (include) {
    lines.push(actual.status ?? '')
    for (const [name, value] of actual.headers) {
      const lower = name.toLowerCase()
      if (keep.length > 0 ? keep.includes(lower) : !VOLATILE.has(lower)) {
        lines.push(`${name}: ${value}`)
      }
    }
    lines.push('...')
  }
  if (!include || actual.body !== '') lines.push(...actual.body.split('\n'))
  return lines.map((line) => (line === '' ? '#' : `# ${line}`))
}

function oneLine(source: string): string {
  return source.replace(/\\\n\s*/g, '')
}

async function curl(command: Command, port: string): Promise<string> {
  const args = command.args.slice(1).map((arg) => {
    if (!/\b(?:localhost|127\.0\.0\.1):8080\b/.test(arg)) return arg
    return arg.replace(/\b(?:localhost|127\.0\.0\.1):8080\b/g, `127.0.0.1:${port}`)
  })
  // -q first: no ~/.curlrc of the machine changes what the page's command does.
  try {
    const { stdout } = await run('curl', ['-q', '--max-time', '10', ...args], {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    })
    return stdout
  } catch (error) {
    // A stream never ends: its example stops it with its own --max-time, and shows what came.
    const { code, stdout } = error as { code?: number; stdout?: string }
    if (code === CURL_TIMED_OUT && args.includes('--max-time')) return stdout ?? ''
    throw error
  }
}

/** curl's exit code when --max-time passed. */
const CURL_TIMED_OUT = 28

async function runBlock(block: Block, port: string): Promise<void> {
  const failures: string[] = []
  for (const command of block.commands) {
    if (!command.args.some((arg) => /\b(?:localhost|127\.0\.0\.1):8080\b/.test(arg))) {
      failures.push(
        `line ${command.line}: \`${oneLine(command.source)}\` does not call the service at localhost:8080`,
      )
      continue
    }
    const actual = actualOf(await curl(command, port), command.include)
    const { answer: expected } = expectedOf(command)
    if (expected && matches(expected, actual)) continue
    const keep = expected?.headers.map(([name]) => name.toLowerCase()) ?? []
    const got = answerLines(actual, command.include, keep)
    failures.push(
      [
        `line ${command.line}: ${oneLine(command.source)}`,
        expected ? `${block.page.file} shows:` : `${block.page.file} shows no answer.`,
        ...command.answer.map((line) => (line === '' ? '#' : `# ${line}`)),
        'the service answered:',
        ...got,
      ].join('\n'),
    )
    const next = block.page.lines[command.answerEnd] ?? ''
    // A blank line after a new answer, so the next command is not read as part of it.
    const spacer = command.answer.length === 0 && next.trim() !== '' && !/^(#|```)/.test(next)
    block.page.updates.push({
      start: command.answerStart,
      end: command.answerEnd,
      lines: spacer ? [...got, ''] : got,
    })
  }
  if (failures.length > 0) assert.fail(failures.join('\n\n'))
}

const read = pages()
const blocks = read.flatMap(parsePage)
const examples = blocks.filter((block) => block.example)

for (const page of read) {
  test(`${page.file}: every curl example is well-formed and shows its answer`, () => {
    const own = examples.filter((block) => block.page === page)
    if (page.file === 'README.md') assert.ok(own.length > 0, 'README.md has curl examples')
    const problems = own.flatMap((block) =>
      block.problems.map((problem) => `${block.name}: ${problem}`),
    )
    if (problems.length > 0) assert.fail(problems.join('\n'))
  })
}

test('docs/: the pages hold curl examples, and every page of the reading order exists', () => {
  assert.ok(
    examples.some((block) => block.page.file.startsWith('docs/')),
    'docs/*.md have curl examples',
  )
  const missing = PAGES.filter((file) => !read.some((page) => page.file === file))
  assert.deepEqual(missing, [], 'PAGES names pages that do not exist')
})

describe('README.md and docs/*.md blocks not run', () => {
  for (const block of blocks) {
    if (!block.example) {
      test(block.name, { skip: 'set-up commands, no curl example' }, () => {})
    } else if (block.notRun !== undefined) {
      test(block.name, { skip: `not run: ${block.notRun}` }, () => {})
    }
  }
})

/** Run blocks by configuration, each configuration in the order it first appears. */
const configurations = new Map<string, Block[]>()
for (const block of examples) {
  if (block.notRun !== undefined) continue
  const key = Object.entries(block.env)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ')
  configurations.set(key, [...(configurations.get(key) ?? []), block])
}

// The configurations side by side (each its own service); within one, its blocks one at a time.
describe('README.md and docs/*.md examples', { concurrency: true }, () => {
  for (const [key, configured] of configurations) {
    const env = configured[0]?.env ?? {}
    describe(`examples on ${key === '' ? '' : `${key} `}npm start`, { concurrency: 1 }, () => {
      let child: ChildProcess | undefined
      let exited: ReturnType<typeof exitOf> | undefined
      let port = ''
      before(async () => {
        const database =
          TEST_STORE === 'postgres' ? { DATABASE_URL: await freshDatabaseUrl() } : undefined
        child = npmStart({ LOG_LEVEL: 'info', ...database, ...env })
        const exit = exitOf(child)
        exited = exit
        const lines: Record<string, unknown>[] = []
        const address = await listening(child, lines).catch(async (error: Error) => {
          // Say why: the exit code, stderr and the last log lines of the service.
          const { code, stderr } = await exit
          const last = lines.slice(-3).map((line) => JSON.stringify(line))
          throw new Error(`${error.message} (exit ${code}): ${stderr} ${last.join(' ')}`)
        })
        port = new URL(address).port
      })
      after(async () => {
        try {
          if (child?.pid !== undefined) process.kill(-child.pid, 'SIGTERM')
        } catch {
          // Already gone.
        }
        await exited
      })
      for (const block of configured) test(block.name, () => runBlock(block, port))
    })
  }
})

after(() => {
  if (process.env.UPDATE_README !== '1') return
  for (const page of read) {
    if (page.updates.length === 0) continue
    const lines = [...page.lines]
    for (const update of [...page.updates].sort((a, b) => b.start - a.start)) {
      lines.splice(update.start, update.end - update.start, ...update.lines)
    }
    writeFileSync(`${root}${page.file}`, lines.join('\n'))
    process.stderr.write(
      `${page.file}: ${page.updates.length} answers written; review them, run again\n`,
    )
  }
})
