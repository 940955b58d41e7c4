import { buildApp } from './app.js'
import { ConfigError, loadConfig } from './config.js'
import { demoSeed, readSeedFile, SeedError } from './seed.js'
import { createMemoryStores } from './stores.js'

function refuse(message: string): never {
  process.stderr.write(`tugas: ${message}\n`)
  process.exit(1)
}

async function start(): Promise<void> {
  let config: ReturnType<typeof loadConfig>
  let seed: typeof demoSeed
  try {
    config = loadConfig()
    seed = config.seedFile === undefined ? demoSeed : await readSeedFile(config.seedFile)
  } catch (error) {
    if (error instanceof ConfigError || error instanceof SeedError) refuse(error.message)
    throw error
  }

  const app = await buildApp({ config, stores: await createMemoryStores(seed) })

  let closing = false
  const stop = (signal: NodeJS.Signals) => {
    if (closing) return
    closing = true
    app.log.info({ signal }, 'shutting down: no new connections, finishing requests in flight')
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed')
        process.exit(1)
      },
    )
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)

  try {
    // Fastify logs the one "Server listening at ..." line, with the real port when PORT=0.
    await app.listen({ host: config.host, port: config.port })
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException
    refuse(`cannot listen on ${config.host}:${config.port} (${code ?? message})`)
  }
}

await start()
