// The Postman collection and environment shipped in docs/postman/ (docs/openapi.md#postman):
// - they are what `npm run postman` makes of the served document today: a change to the
//   document that is not regenerated fails here;
// - run by Newman, as a user would (`newman run <collection> -e <environment>`, with `origin`
//   pointed at the service), against a freshly started service: every request gets an answer,
//   every contract assertion Portman wrote passes (a 2xx, its content type, a JSON body where
//   one is documented, the body's schema, the documented headers), and every answer is also one
//   the document gives for that operation (test/support/conformance.ts).
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance } from 'fastify'
import newman, { type NewmanRunSummary } from 'newman'
import {
  COLLECTION_PATH,
  collectedOperations,
  ENVIRONMENT_PATH,
  LOCAL_ORIGIN,
  postmanFiles,
} from '../../../scripts/postman.js'
import { conformanceChecker } from '../../support/conformance.js'
import { testApp } from '../../support/helpers.js'

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))

const committed = (path: string) => readFile(join(ROOT, path), 'utf8')

test('docs/postman/ holds what `npm run postman` makes of the served document', async () => {
  const generated = await postmanFiles()
  for (const [path, text] of Object.entries(generated)) {
    assert.ok(
      (await committed(path)) === text,
      `${path} differs from what the document gives: run \`npm run postman\` and commit it`,
    )
  }
})

test('the environment points at npm start and holds the demo admin credential', async () => {
  const environment = JSON.parse(await committed(ENVIRONMENT_PATH))
  const values = Object.fromEntries(
    (environment.values as { key: string; value: string }[]).map(({ key, value }) => [key, value]),
  )
  assert.deepEqual(values, {
    origin: LOCAL_ORIGIN,
    bearerToken: 'demo-admin-token',
    apiKey: 'demo-admin-token',
  })
})

describeNewmanRun()

function describeNewmanRun() {
  let app: FastifyInstance
  let origin: string
  let summary: NewmanRunSummary

  before(async () => {
    app = await testApp({ closedBy: 'caller' })
    await app.listen({ host: '127.0.0.1', port: 0 })
    origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
    const collection = JSON.parse(await committed(COLLECTION_PATH))
    const environment = JSON.parse(await committed(ENVIRONMENT_PATH))
    summary = await new Promise<NewmanRunSummary>((resolve, reject) => {
      newman.run(
        { collection, environment, envVar: [{ key: 'origin', value: origin }], reporters: [] },
        (error, result) => (error ? reject(error) : resolve(result)),
      )
    })
  })
  after(() => app.close())

  test('Newman: every request is answered and every contract assertion passes', async () => {
    const { stats, failures, executions } = summary.run
    const collection = JSON.parse(await committed(COLLECTION_PATH))
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json()
    const operations = collectedOperations(document)
    assert.equal(stats.requests.total, operations.length, 'one request per operation')
    assert.equal(stats.requests.failed, 0, 'requests without an answer')
    assert.equal(executions.length, operations.length)
    const messages = failures.map(
      ({ source, error }) => `${source?.name}: ${error.test}: ${error.message}`,
    )
    assert.deepEqual(messages, [], 'failed assertions')
    assert.equal(stats.assertions.failed, 0)
    // Every request is checked: at least its status and its schema or empty body.
    for (const { item, assertions } of executions) {
      assert.ok(assertions.length >= 2, `${item.name}: ${assertions.length} assertions`)
    }
    const total = stats.assertions.total ?? 0
    assert.ok(total >= 2 * operations.length, `${total} assertions`)
    assert.ok(collection.item.length > 0)
  })

  test('Newman: every answer is one the document gives for its operation', async () => {
    const check = conformanceChecker(
      (await app.inject({ method: 'GET', url: '/openapi.json' })).json(),
    )
    for (const { request, response, item } of summary.run.executions) {
      assert.ok(response, `${item.name}: no answer`)
      const url = new URL(request.url.toString())
      assert.equal(url.origin, origin, `${item.name}: ${url}`)
      assert.ok(response.code >= 200 && response.code < 300, `${item.name}: ${response.code}`)
      check(
        { method: request.method, url: `${url.pathname}${url.search}` },
        {
          statusCode: response.code,
          headers: Object.fromEntries(
            response.headers.all().map(({ key, value }) => [key.toLowerCase(), value]),
          ),
          body: response.stream?.toString('utf8') ?? '',
        },
      )
    }
  })
}
