// The baseline: a bare node:http server answering every request with one fixed task, so the
// benchmark can show what the service costs on top of Node's HTTP stack on this machine.
// It announces its address in the same JSON line Fastify prints, so run.ts parses both alike.
import { createServer } from 'node:http'

const body = JSON.stringify({ id: 1, title: 'Belajar REST', status: 'belum' })
// BARE_HEADERS=security: also the two headers every credentialed answer of the service carries
// (docs/http.md#security-headers), to show what they alone cost on this machine.
const headers = {
  'content-type': 'application/json; charset=utf-8',
  'content-length': Buffer.byteLength(body),
  ...(process.env.BARE_HEADERS === 'security' && {
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
  }),
}

const server = createServer((_request, response) => {
  response.writeHead(200, headers)
  response.end(body)
})

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const { address, port } = server.address()
  process.stdout.write(
    `${JSON.stringify({ msg: `Server listening at http://${address}:${port}` })}\n`,
  )
})

process.once('SIGTERM', () => {
  server.close(() => process.exit(0))
  server.closeIdleConnections()
})
