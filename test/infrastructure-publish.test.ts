// createInfrastructure's `publish: false`, which only the bench uses (its "POST /tugas with
// events against without"): on PostgreSQL the writes then store no event, and by default they do.
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import { defaults } from '../src/config.js'
import { createInfrastructure } from '../src/infrastructure.js'
import { demoSeed } from '../src/seed.js'
import { migratedSchema, skipWithoutPostgres } from './support/postgres.js'
import { eventsAfter } from './support/sse.js'

const skip = await skipWithoutPostgres()

async function infrastructure(publish: boolean | undefined) {
  const schema = await migratedSchema()
  const config = { ...defaults, databaseUrl: schema.url, databaseDirectUrl: schema.directUrl }
  const built = await createInfrastructure(config, demoSeed, undefined, { publish })
  after(async () => {
    await built.close()
    await schema.release()
  })
  return built.stores
}

describe('whether PostgreSQL writes publish', { skip }, () => {
  test('by default each write stores its event', async () => {
    const stores = await infrastructure(undefined)
    await stores.compact.create('diterbitkan')
    assert.equal((await eventsAfter(stores.events, 0, 1)).length, 1)
  })

  test('with publish: false no write stores one', async () => {
    const stores = await infrastructure(false)
    await stores.compact.create('tanpa peristiwa')
    // A write that published would be numbered well within this (its process asks at once).
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.deepEqual(await stores.events.after(0, 10), [])
    assert.equal(stores.events.publishedByType.size, 0)
  })
})
