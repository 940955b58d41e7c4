// The service as `npm start` runs it on PostgreSQL (the same configuration from the
// environment), except that its writes store no event: the reference the bench's
// "POST /tugas with events vs without" is read against, so that the ratio is what the change
// feed's outbox costs a write and nothing else. Not for operators: `npm start` always publishes.
import { buildApp } from '../dist/app.js'
import { loadConfig } from '../dist/config.js'
import { createInfrastructure } from '../dist/infrastructure.js'
import { demoSeed, readSeedFile } from '../dist/seed.js'

const config = loadConfig()
const seed = config.seedFile === undefined ? demoSeed : await readSeedFile(config.seedFile)
const infrastructure = await createInfrastructure(config, seed, undefined, { publish: false })
const app = await buildApp({ config, infrastructure, logger: { level: config.logLevel } })
process.once('SIGTERM', () => app.close().then(() => process.exit(0)))
await app.listen({ host: config.host, port: config.port })
