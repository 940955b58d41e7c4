// A free TCP port on loopback, for a server that must be told its port before it starts (the
// service at LOG_LEVEL=warn in the bench, a PgBouncer in the tests).
import { type AddressInfo, createServer } from 'node:net'

/** A port no one listens on now: the kernel's pick for a listener closed at once. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo
      probe.close(() => resolve(port))
    })
  })
}
