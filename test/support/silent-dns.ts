// A DNS server on loopback that takes every query and never answers: what a resolver that is
// down or dropping packets looks like to the service. It counts the queries it got.
import { createSocket, type Socket } from 'node:dgram'

export class SilentDns {
  queries = 0
  private constructor(private readonly socket: Socket) {
    socket.on('message', () => {
      this.queries += 1
    })
  }

  /** Listening on 127.0.0.1 at a free UDP port. */
  static async start(): Promise<SilentDns> {
    const socket = createSocket('udp4')
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve))
    return new SilentDns(socket)
  }

  /** As WEBHOOK_DNS_SERVERS takes it: `127.0.0.1:<port>`. */
  get server(): string {
    return `127.0.0.1:${this.socket.address().port}`
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()))
  }
}
