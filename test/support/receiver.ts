// A webhook receiver on loopback for the delivery tests: every request it gets, with when, and
// each path's answers in turn (a path with none left, or none given, answers 204).
import assert from 'node:assert/strict'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { call } from './helpers.js'
import { ADMIN, bearer } from './supporting.js'

export interface Received {
  path: string
  headers: IncomingMessage['headers']
  body: string
  /** performance.now() when the body had arrived. */
  at: number
}

export type Answer = (response: ServerResponse) => void

export const answer = {
  status:
    (code: number): Answer =>
    (response) =>
      response.writeHead(code).end(),
  redirect:
    (location: string): Answer =>
    (response) =>
      response.writeHead(302, { location }).end(),
  /** Never answers (until the receiver closes). */
  silent: (): Answer => () => {},
  /** Answers `code` once `ms` have passed. */
  after:
    (ms: number, code: number): Answer =>
    (response) => {
      setTimeout(() => response.writeHead(code).end(), ms)
    },
}

export class Receiver {
  readonly received: Received[] = []
  readonly #answers = new Map<string, Answer[]>()
  readonly #server = createServer((request, response) => this.#receive(request, response))
  #waiters: (() => void)[] = []

  /** Listening on 127.0.0.1 at a free port. */
  static async start(): Promise<Receiver> {
    const receiver = new Receiver()
    await new Promise<void>((resolve) => receiver.#server.listen(0, '127.0.0.1', resolve))
    return receiver
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port
  }

  url(path: string, host = '127.0.0.1'): string {
    return `http://${host}:${this.port}${path}`
  }

  /** `path` answers these, one per request, in order. */
  answers(path: string, ...answers: Answer[]): void {
    this.#answers.set(path, answers)
  }

  at(path: string): Received[] {
    return this.received.filter((request) => request.path === path)
  }

  /** Resolves once `path` has received `count` requests; rejects after `ms`. */
  async until(path: string, count: number, ms = 10_000): Promise<Received[]> {
    const deadline = performance.now() + ms
    while (this.at(path).length < count) {
      const left = deadline - performance.now()
      if (left <= 0) {
        throw new Error(`${path}: ${this.at(path).length} of ${count} requests in ${ms} ms`)
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left)
        this.#waiters.push(() => {
          clearTimeout(timer)
          resolve()
        })
      })
    }
    return this.at(path)
  }

  #receive(request: IncomingMessage, response: ServerResponse): void {
    let body = ''
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => {
      body += chunk
    })
    request.on('end', () => {
      const path = request.url ?? ''
      this.received.push({ path, headers: request.headers, body, at: performance.now() })
      const next = this.#answers.get(path)?.shift() ?? answer.status(204)
      next(response)
      const waiters = this.#waiters
      this.#waiters = []
      for (const wake of waiters) wake()
    })
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections()
    await new Promise<void>((resolve) => this.#server.close(() => resolve()))
  }
}

/** A subscription as POST /webhooks answers it. */
export interface Subscription {
  id: number
  secret: string
}

/** Subscribes `url` to `types` through the API, as the demo admin: 201 or the test fails. */
export async function subscribe(
  app: FastifyInstance,
  url: string,
  types: string[],
): Promise<Subscription> {
  const response = await call(app, {
    method: 'POST',
    url: '/webhooks',
    headers: { ...bearer(ADMIN), 'content-type': 'application/json' },
    payload: JSON.stringify({ url, types }),
  })
  assert.equal(response.statusCode, 201, response.body)
  return response.json().data as Subscription
}

/** One attempt as GET /webhooks/<id>/deliveries lists it. */
export interface Attempt {
  event_id: number
  attempt: number
  status_code: number | null
  error: string | null
  duration_ms: number
  result: string
}

/** The subscription's attempts as the API lists them, newest first. */
export async function attempts(app: FastifyInstance, { id }: { id: number }): Promise<Attempt[]> {
  const response = await call(app, {
    method: 'GET',
    url: `/webhooks/${id}/deliveries`,
    headers: bearer(ADMIN),
  })
  assert.equal(response.statusCode, 200)
  return response.json().data
}

/** The attempts once `count` are recorded (a delivery's record follows its request). */
export async function recorded(
  app: FastifyInstance,
  subscription: { id: number },
  count: number,
): Promise<Attempt[]> {
  for (let waited = 0; waited < 10_000; waited += 25) {
    const kept = await attempts(app, subscription)
    if (kept.length >= count) return kept
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`fewer than ${count} attempts recorded`)
}
