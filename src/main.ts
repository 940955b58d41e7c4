import { buildApp } from './app.js'
import { ConfigError, loadConfig } from './config.js'
import { createInfrastructure, StartUpError } from './infrastructure.js'
import { releaseStartUpGarbage } from './release-memory.js'
import { demoSeed, readSeedFile, SeedError } from './seed.js'

function refuse(message: string): never {
  process.stderr.write(`tugas: ${message}\n`)
  process.exit(1)
}

async function start(): Promise<void> {
  let config: ReturnType<typeof loadConfig>
  let infrastructure: Awaited<ReturnType<typeof createInfrastructure>>
  try {
    config = loadConfig()
    // A bad SEED_FILE refuses start-up even when a database already holds data.
    const seed = config.seedFile === undefined ? demoSeed : await readSeedFile(config.seedFile)
    infrastructure = await createInfrastructure(config, seed)
  } catch (error) {
    if (error instanceof ConfigError || error instanceof SeedError) refuse(error.message)
    if (error instanceof StartUpError) refuse(error.message)
    throw error
  }

  if (config.seedFile !== undefined) releaseStartUpGarbage()
  const app = await buildApp({ config, infrastructure })
  if (infrastructure.seed === 'kept-existing-data') {
    app.log.info('seed skipped: the database already holds data')
  }

  // Under `npm start`, one Ctrl-C (or a stop signal sent to the process group) arrives twice:
  // once directly and once forwarded by npm. So the first signal starts the graceful close,
  // the second is only logged, and a third forces the exit, dropping requests in flight.
  let signals = 0
  const stop = (signal: NodeJS.Signals) => {
    signals += 1
    if (signals === 1) {
      app.log.info({ signal }, 'shutting down: no new connections, finishing requests in flight')
      app.close().then(
        () => process.exit(0),
        (error: unknown) => {
          app.log.error({ err: error }, 'shutdown failed')
          process.exit(1)
        },
      )
    } else if (signals === 2) {
      app.log.warn({ signal }, 'already shutting down; a third signal forces the exit')
    } else {
      app.log.error({ signal }, 'forced exit: requests in flight are dropped')
      process.exit(1)
    }
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)

  try {
    // Fastify logs the one "Server listening at ..." line, with the real port when PORT=0.
    await app.listen({ host: config.host, port: config.port })
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException
    refuse(`cannot listen on ${config.host}:${config.port} (${code ?? message})`)
  }
}

await start()
