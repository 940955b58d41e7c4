#!/usr/bin/env node
// `tugas`, the command the package installs (package.json `bin`): `tugas listen` forwards the
// change feed to a local receiver (docs/events.md#for-client-developers).
import { FeedError } from '../client/events.js'
import { LISTEN_USAGE, listen, parseListenArgs, UsageError } from './listen.js'

async function main(args: string[]): Promise<number> {
  const [command, ...rest] = args
  const help = ['--help', '-h', 'help']
  if (help.includes(command ?? '') || (command === 'listen' && help.includes(rest[0] ?? ''))) {
    process.stdout.write(LISTEN_USAGE)
    return 0
  }
  if (command !== 'listen') {
    const unknown = command === undefined ? 'a command is required' : `unknown command: ${command}`
    process.stderr.write(`tugas: ${unknown}\n${LISTEN_USAGE}`)
    return 2
  }
  let options: ReturnType<typeof parseListenArgs>
  try {
    options = parseListenArgs(rest)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    process.stderr.write(`tugas listen: ${error.message}\n${LISTEN_USAGE}`)
    return 2
  }
  const stop = new AbortController()
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort())
  try {
    await listen(options, stop.signal)
    return 0
  } catch (error) {
    const message = error instanceof FeedError ? error.message : String(error)
    process.stderr.write(`tugas listen: ${message}\n`)
    return 1
  }
}

process.exitCode = await main(process.argv.slice(2))
