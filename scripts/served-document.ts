// The document the generated files (the typed client's types, the Postman collection) are made
// from: GET /openapi.json of the app in its default configuration, on memory stores.

import { buildApp } from '../src/app.js'
import { type Config, defaults } from '../src/config.js'
import { createInfrastructure } from '../src/infrastructure.js'
import { demoSeed } from '../src/seed.js'

/**
 * The body of GET /openapi.json as a client at `host` sees it: the document's `origin` variable
 * defaults to `http://<host>`.
 */
export async function servedDocument(host = 'localhost'): Promise<Record<string, unknown>> {
  const config: Config = { ...defaults, logLevel: 'silent' }
  const infrastructure = await createInfrastructure(config, demoSeed)
  const app = await buildApp({ config, infrastructure, logger: { level: 'silent' } })
  try {
    const response = await app.inject({ method: 'GET', url: '/openapi.json', headers: { host } })
    if (response.statusCode !== 200) {
      throw new Error(`GET /openapi.json answered ${response.statusCode}: ${response.body}`)
    }
    return response.json()
  } finally {
    await app.close()
  }
}
