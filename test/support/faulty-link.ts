// A TCP proxy between the service and a backing service (PostgreSQL, Redis), for fault tests:
// its link can be cut (open connections reset, new ones closed), black-holed (accepted, never
// answered) or refused (nothing listens), then restored.
import { once } from 'node:events'
import { connect, createServer, type Server, type Socket } from 'node:net'

/** A TCP proxy to `upstream` whose link can be cut, black-holed or refused, then restored. */
export class FaultyLink {
  readonly #server: Server = createServer((socket) => this.#accept(socket))
  readonly #upstream: { host: string; port: number }
  #mode: 'open' | 'cut' | 'stall' | 'refuse' = 'open'
  readonly #pairs = new Set<{ app: Socket; database: Socket }>()
  /** Sockets that carry nothing: black-holed, dropped when the link is restored. */
  readonly #held = new Set<Socket>()
  port = 0

  constructor(upstream: { host: string; port: number }) {
    this.#upstream = upstream
  }

  async listen(port = 0): Promise<void> {
    this.#server.listen(port, '127.0.0.1')
    await once(this.#server, 'listening')
    this.port = (this.#server.address() as { port: number }).port
  }

  /** Connections open through the link now. */
  get open(): number {
    return this.#pairs.size
  }

  #accept(app: Socket): void {
    app.on('error', () => {})
    if (this.#mode === 'cut' || this.#mode === 'refuse') {
      app.destroy()
      return
    }
    if (this.#mode === 'stall') {
      this.#hold(app)
      return
    }
    const database = connect(this.#upstream.port, this.#upstream.host)
    database.on('error', () => {})
    const pair = { app, database }
    this.#pairs.add(pair)
    const drop = () => {
      app.destroy()
      database.destroy()
      this.#pairs.delete(pair)
    }
    app.on('close', drop)
    database.on('close', drop)
    app.pipe(database)
    database.pipe(app)
  }

  #hold(socket: Socket): void {
    socket.pause()
    this.#held.add(socket)
    socket.on('close', () => this.#held.delete(socket))
  }

  /** Resets every open connection; new ones are closed as soon as they are accepted. */
  cut(): void {
    this.#mode = 'cut'
    for (const { app, database } of [...this.#pairs]) {
      app.resetAndDestroy()
      database.destroy()
    }
    this.#dropHeld()
  }

  /** Open connections stop carrying anything, new ones are accepted and never answered. */
  stall(): void {
    this.#mode = 'stall'
    for (const pair of [...this.#pairs]) {
      this.#pairs.delete(pair)
      pair.app.unpipe(pair.database)
      pair.database.unpipe(pair.app)
      this.#hold(pair.app)
      this.#hold(pair.database)
    }
  }

  /** Nothing listens any more: connecting is refused. */
  refuse(): void {
    this.cut()
    this.#mode = 'refuse'
    this.#server.close()
  }

  /** Lets connections through again; what was black-holed is dropped, never delivered late. */
  async restore(): Promise<void> {
    const refused = this.#mode === 'refuse'
    this.#dropHeld()
    this.#mode = 'open'
    if (refused) await this.listen(this.port)
  }

  async close(): Promise<void> {
    this.cut()
    if (this.#server.listening) {
      const closed = once(this.#server, 'close')
      this.#server.close()
      await closed
    }
  }

  #dropHeld(): void {
    for (const socket of [...this.#held]) socket.destroy()
    this.#held.clear()
  }
}
