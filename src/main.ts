import cluster from 'node:cluster'
import type { FastifyServerOptions } from 'fastify'
import { buildApp } from './app.js'
import { type Config, ConfigError, loadConfig } from './config.js'
import { createInfrastructure } from './infrastructure.js'
import { releaseStartUpGarbage } from './release-memory.js'
import { demoSeed, readSeedFile, SeedError } from './seed.js'
import { linesByTurn } from './server/log-destination.js'
import { runPrimary } from './server/primary.js'
import { loadTls } from './server/tls.js'
import { StartUpError } from './start-up-error.js'

function refuse(message: string): never {
  process.stderr.write(`tugas: ${message}\n`)
  process.exit(1)
}

function configOrRefuse(): Config {
  try {
    return loadConfig()
  } catch (error) {
    if (error instanceof ConfigError) refuse(error.message)
    throw error
  }
}

/**
 * Pino options for the app, writing to standard output a turn of the event loop at a time. A
 * worker of several writes no "Server listening at" line of its own: the primary writes the one
 * line once every worker listens.
 */
function loggerOptions(config: Config): FastifyServerOptions['logger'] {
  const options = { level: config.logLevel, stream: linesByTurn() }
  if (!cluster.isWorker) return options
  return {
    ...options,
    hooks: {
      logMethod(args, method) {
        const [first] = args
        if (typeof first === 'string' && first.startsWith('Server listening at ')) return
        method.apply(this, args)
      },
    },
  }
}

/** One process serving the listener: the whole service, or one worker of several. */
async function serve(config: Config): Promise<void> {
  let infrastructure: Awaited<ReturnType<typeof createInfrastructure>>
  let tls: Awaited<ReturnType<typeof loadTls>> | undefined
  try {
    tls = config.tls === undefined ? undefined : await loadTls(config.tls)
    // A bad SEED_FILE refuses start-up even when a database already holds data.
    const seed = config.seedFile === undefined ? demoSeed : await readSeedFile(config.seedFile)
    infrastructure = await createInfrastructure(config, seed)
  } catch (error) {
    if (error instanceof SeedError || error instanceof StartUpError) refuse(error.message)
    throw error
  }

  if (config.seedFile !== undefined) releaseStartUpGarbage()
  const app = await buildApp({
    config,
    infrastructure,
    logger: loggerOptions(config),
    ...(tls && { tls }),
  })
  // Of several workers only the first started on the database as it was; the others would
  // all say the same of the data it has just seeded.
  const firstProcess = !cluster.isWorker || cluster.worker?.id === 1
  if (firstProcess) for (const warning of infrastructure.warnings) app.log.warn(warning)
  if (infrastructure.seed === 'kept-existing-data' && firstProcess) {
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
  // A worker whose primary is gone would hold its connections with no listener to serve.
  if (cluster.isWorker) process.once('disconnect', () => stop('SIGTERM'))

  try {
    // Fastify logs the one "Server listening at ..." line, with the real port when PORT=0.
    await app.listen({ host: config.host, port: config.port })
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException
    refuse(`cannot listen on ${config.host}:${config.port} (${code ?? message})`)
  }
}

const config = configOrRefuse()
if (config.workers > 1 && cluster.isPrimary) await runPrimary(config)
else await serve(config)
