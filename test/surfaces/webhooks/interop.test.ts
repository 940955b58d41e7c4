// A real delivery, received on loopback, read by the tools client developers already use
// (docs/webhooks.md#for-client-developers), on the store of the pass: the CloudEvents SDK
// (`cloudevents`, HTTP.toEvent) reads it as the event of the change feed, and the Standard
// Webhooks library (`standardwebhooks`) verifies it with the subscription's secret, refusing a
// changed body, another secret or a stale timestamp.
// The page's own snippet is run by test/docs-snippets.test.ts.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
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
})
