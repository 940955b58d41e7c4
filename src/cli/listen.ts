// `tugas listen`: the change feed forwarded to a receiver on this machine, as webhook
// deliveries signed with a secret kept across restarts, as `stripe listen` does
// (docs/events.md#for-client-developers). The service never connects to the receiver, so a
// loopback or private address is what it is for, not refused.
import { parseArgs } from 'node:util'
import { eventMessages, type FeedMessage } from '../client/events.js'
import { deliveryHeaders } from '../events/standard-webhooks.js'
import { configDirectory, ListenState } from './listen-state.js'

export const LISTEN_USAGE = `usage: tugas listen --service <url> --forward-to <local url> [--types <list>] [--credential <secret>]

  --service <url>         the service's root, e.g. http://127.0.0.1:8080
  --forward-to <url>      where each event is POSTed as a webhook delivery
  --types <list>          event types or <resource>.*, separated by commas (default: all)
  --credential <secret>   sent as Authorization: Bearer (dokumen.* events need one)
`

/** Arguments that cannot be used: the command prints the usage and exits with 2. */
export class UsageError extends Error {}

export interface ListenOptions {
  service: URL
  forwardTo: URL
  types: string[] | undefined
  credential: string | undefined
}

function httpUrl(name: string, value: string | undefined): URL {
  if (value === undefined || value === '') throw new UsageError(`--${name} is required`)
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new UsageError(`--${name} must be an http or https URL: ${value}`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--${name} must be an http or https URL: ${value}`)
  }
  return url
}

/** The options of `tugas listen <args>`; a UsageError for anything else. */
export function parseListenArgs(args: string[]): ListenOptions {
  let values: Record<string, string | boolean | undefined>
  try {
    ;({ values } = parseArgs({
      args,
      options: {
        service: { type: 'string' },
        'forward-to': { type: 'string' },
        types: { type: 'string' },
        credential: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }))
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  const types = (values.types as string | undefined)?.split(',').map((type) => type.trim())
  if (types?.includes('')) {
    throw new UsageError(`--types must be event types separated by commas: ${values.types}`)
  }
  return {
    service: httpUrl('service', values.service as string | undefined),
    forwardTo: httpUrl('forward-to', values['forward-to'] as string | undefined),
    types,
    credential: values.credential as string | undefined,
  }
}

/** How long the receiver has to answer a forward, as a subscription's default. */
const FORWARD_TIMEOUT_MS = 5000

/** What one forward got: the receiver's status, or why none came. */
async function forward(to: URL, secret: string, message: FeedMessage): Promise<string> {
  try {
    const response = await fetch(to, {
      method: 'POST',
      headers: deliveryHeaders(secret, message.id, message.data),
      body: message.data,
      redirect: 'manual',
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    })
    await response.arrayBuffer().catch(() => {})
    return String(response.status)
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code
    return `failed (${cause ?? (error as Error).message})`
  }
}

/**
 * Forwards every event of the feed, from after the last one forwarded from this service
 * (live the first time), until `signal` aborts; each forward is one line on stdout. A forward
 * is made once, whatever the receiver answers: the line says what it did.
 */
export async function listen(options: ListenOptions, signal: AbortSignal): Promise<void> {
  const state = new ListenState(configDirectory())
  const secret = state.secret()
  const service = options.service.href
  const after = state.lastForwarded(service)
  process.stdout.write(`Signing secret: ${secret}\n`)
  let ready = false
  const feed = eventMessages({
    baseUrl: options.service,
    ...(options.types !== undefined && { types: options.types }),
    ...(options.credential !== undefined && { credential: options.credential }),
    ...(after !== undefined && { after }),
    signal,
    onOpen: () => {
      if (ready) return
      ready = true
      const from = after === undefined ? 'new events' : `events after ${after}`
      process.stdout.write(
        `Ready: forwarding ${from} of ${new URL('events', service)} to ${options.forwardTo}\n`,
      )
    },
  })
  for await (const message of feed) {
    if (message.type === 'reset') {
      const { oldest } = JSON.parse(message.data) as { oldest: string }
      process.stderr.write(
        `reset: the service no longer keeps every event asked for; forwarding from ${oldest}\n`,
      )
      continue
    }
    const status = await forward(options.forwardTo, secret, message)
    state.forwarded(service, message.id)
    process.stdout.write(`${message.id} ${message.type} ${status}\n`)
  }
}
