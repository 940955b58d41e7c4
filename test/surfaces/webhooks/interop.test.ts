// A real delivery, received on loopback, read by the tools client developers already use
// (docs/webhooks.md#for-client-developers), on the store of the pass: the CloudEvents SDK
// (`cloudevents`, HTTP.toEvent) reads it as the event of the change feed, and the Standard
// Webhooks library (`standardwebhooks`) verifies it with the subscription's secret, refusing a
// changed body, another secret or a stale timestamp. The page's own snippet does the same.
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { pathToFileURL } from 'node:url'
import { CloudEvent, HTTP } from 'cloudevents'
import { Webhook, WebhookVerificationError } from 'standardwebhooks'
import { createTask, storesOf, testApp } from '../../support/helpers.js'
import { type Received, Receiver, subscribe } from '../../support/receiver.js'

let receiver: Receiver
before(async () => {
  receiver = await Receiver.start()
})
after(() => receiver.close())

const OTHER_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'

/** The headers as the libraries take them: each a string. */
const flat = (headers: Received['headers']): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)]))

describe('a delivery read by the CloudEvents SDK and verified by standardwebhooks', async () => {
  const app = await testApp({ config: { webhookAllowPrivate: true } })

  test('HTTP.toEvent gives the event; Webhook.verify checks the signature with the secret', async () => {
    const subscription = await subscribe(app, receiver.url('/interop'), ['tugas.created'])
    const task = await createTask(app, 'Dibaca SDK')
    const [delivery] = await receiver.until('/interop', 1)
    assert.ok(delivery)
    const headers = flat(delivery.headers)
    const { body } = delivery

    const event = HTTP.toEvent({ headers, body })
    assert.ok(event instanceof CloudEvent, 'one event, not a batch')
    assert.equal(event.specversion, '1.0')
    assert.equal(event.type, 'tugas.created')
    assert.equal(event.source, '/tugas')
    assert.equal(event.subject, String(task.id))
    assert.equal(event.id, headers['webhook-id'])
    assert.equal(event.datacontenttype, 'application/json')
    assert.deepEqual(event.data, { id: task.id, title: 'Dibaca SDK', status: 'belum' })
    assert.ok(event.validate())
    // The same event as the change feed keeps it.
    const [kept] = await storesOf(app).events.after(Number(event.id) - 1, 1)
    assert.equal(kept?.json, body)

    const verified = new Webhook(subscription.secret).verify(body, headers)
    assert.deepEqual(verified, JSON.parse(body))
    const refused = [
      () => new Webhook(subscription.secret).verify(body.replace('Dibaca', 'Diubah'), headers),
      () => new Webhook(OTHER_SECRET).verify(body, headers),
      () =>
        new Webhook(subscription.secret).verify(body, {
          ...headers,
          'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 600),
        }),
      () => new Webhook(subscription.secret).verify(body, { ...headers, 'webhook-id': '999999' }),
    ]
    for (const attempt of refused) assert.throws(attempt, WebhookVerificationError)
  })

  test("docs/webhooks.md's snippet for client developers receives a real delivery", async () => {
    const page = readFileSync(new URL('../../../docs/webhooks.md', import.meta.url), 'utf8')
    const code = /## For client developers[\s\S]*?```js\n([\s\S]*?)```/.exec(page)?.[1]
    assert.ok(code, 'the section has its snippet')
    // Written outside the project, the snippet finds the packages where this test does.
    const resolved = code.replace(
      /from '(cloudevents|standardwebhooks)'/g,
      (_, name: string) => `from '${import.meta.resolve(name)}'`,
    )
    const file = join(mkdtempSync(join(tmpdir(), 'tugas-client-')), 'receive.mjs')
    writeFileSync(file, resolved)
    const { receive } = (await import(pathToFileURL(file).href)) as {
      receive(secret: string, headers: Received['headers'], body: string): CloudEvent<unknown>
    }
    const subscription = await subscribe(app, receiver.url('/snippet'), ['tugas.created'])
    const task = await createTask(app, 'Diterima klien')
    const [delivery] = await receiver.until('/snippet', 1)
    assert.ok(delivery)
    const event = receive(subscription.secret, delivery.headers, delivery.body)
    assert.equal(event.type, 'tugas.created')
    assert.equal(event.id, delivery.headers['webhook-id'])
    assert.deepEqual(event.data, { id: task.id, title: 'Diterima klien', status: 'belum' })
    assert.throws(() => receive(OTHER_SECRET, delivery.headers, delivery.body))
  })
})
