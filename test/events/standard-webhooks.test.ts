// Standard Webhooks signing: the published test vector, a secret's form, and a receiver's
// check (verifyWebhook), against the standardwebhooks package both ways.
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { test } from 'node:test'
import { Webhook } from 'standardwebhooks'
import {
  deliveryHeaders,
  newSecret,
  signature,
  verifyWebhook,
  WebhookVerificationError,
} from '../../src/events/standard-webhooks.js'

test('the Standard Webhooks test vector is reproduced exactly', () => {
  assert.equal(
    signature(
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    ),
    'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  )
})

test('a secret is whsec_ and the base64 of 32 random bytes, a new one each time', () => {
  const secret = newSecret()
  assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
  assert.equal(Buffer.from(secret.slice(6), 'base64').length, 32)
  assert.notEqual(newSecret(), secret)
})

test("the signature is keyed with the secret's bytes, not its text", () => {
  const secret = newSecret()
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64')
  const expected = createHmac('sha256', key).update('7.1700000000.{"a":1}').digest('base64')
  assert.equal(signature(secret, '7', 1700000000, '{"a":1}'), `v1,${expected}`)
})

const EVENT = JSON.stringify({
  specversion: '1.0',
  id: '7',
  source: '/tugas',
  type: 'tugas.created',
  subject: '6',
  time: '2026-01-01T00:00:00.000Z',
  datacontenttype: 'application/json',
  data: { id: 6, title: 'Menulis laporan', status: 'belum' },
})

/** The reason verifyWebhook gave for refusing, and its message. */
function refusal(run: () => unknown): { reason: string; message: string } {
  try {
    run()
  } catch (error) {
    assert.ok(error instanceof WebhookVerificationError, String(error))
    return { reason: error.reason, message: error.message }
  }
  assert.fail('verified')
}

test("verifyWebhook gives the typed event of a delivery signed by the service's deliveryHeaders", () => {
  const secret = newSecret()
  const headers = deliveryHeaders(secret, '7', EVENT)
  const event = verifyWebhook(secret, headers, EVENT)
  assert.deepEqual(event, JSON.parse(EVENT))
  // Typed by `type`: a created task carries the task.
  assert.equal(event.type === 'tugas.created' ? event.data.title : undefined, 'Menulis laporan')
  // As bytes, and with headers as fetch gives them (Headers, any case).
  assert.deepEqual(verifyWebhook(secret, new Headers(headers), Buffer.from(EVENT)), event)
  const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]))
  assert.deepEqual(verifyWebhook(secret, upper, EVENT), event)
})

test('verifyWebhook and the standardwebhooks package accept what the other signs', () => {
  const secret = newSecret()
  const now = new Date()
  const signed = new Webhook(secret).sign('7', now, EVENT)
  const headers = {
    'webhook-id': '7',
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': signed,
  }
  assert.deepEqual(verifyWebhook(secret, headers, EVENT), JSON.parse(EVENT))
  assert.deepEqual(
    new Webhook(secret).verify(EVENT, deliveryHeaders(secret, '7', EVENT)),
    JSON.parse(EVENT),
  )
  // Several signatures (a secret being rotated): one that matches is enough.
  const rotated = { ...headers, 'webhook-signature': `v1,${'A'.repeat(44)} ${signed}` }
  assert.deepEqual(verifyWebhook(secret, rotated, EVENT), JSON.parse(EVENT))
})

test('verifyWebhook refuses a tampered body, another secret, a stale or future timestamp, missing headers', () => {
  const secret = newSecret()
  const headers = deliveryHeaders(secret, '7', EVENT)
  const badSignature = { reason: 'bad-signature', message: 'no webhook-signature matches the body' }
  assert.deepEqual(
    refusal(() => verifyWebhook(secret, headers, EVENT.replace('6', '5'))),
    badSignature,
  )
  assert.deepEqual(
    refusal(() => verifyWebhook(newSecret(), headers, EVENT)),
    badSignature,
  )
  assert.deepEqual(
    refusal(() => verifyWebhook(secret, { ...headers, 'webhook-id': '8' }, EVENT)),
    badSignature,
  )
  assert.deepEqual(
    refusal(() => verifyWebhook(secret, { ...headers, 'webhook-signature': 'v2,abc' }, EVENT)),
    badSignature,
  )
  const stale = {
    reason: 'stale-timestamp',
    message: 'webhook-timestamp is not within five minutes of now',
  }
  const at = (seconds: number) => deliveryHeaders(secret, '7', EVENT, seconds)
  const now = Math.floor(Date.now() / 1000)
  const clock = new Date(now * 1000)
  assert.deepEqual(
    refusal(() => verifyWebhook(secret, at(now - 301), EVENT, clock)),
    stale,
  )
  assert.deepEqual(
    refusal(() => verifyWebhook(secret, at(now + 301), EVENT, clock)),
    stale,
  )
  assert.deepEqual(
    refusal(() => verifyWebhook(secret, { ...headers, 'webhook-timestamp': 'soon' }, EVENT)),
    stale,
  )
  // Five minutes either way is still accepted, as by the standardwebhooks package.
  assert.deepEqual(verifyWebhook(secret, at(now - 300), EVENT, clock), JSON.parse(EVENT))
  assert.deepEqual(verifyWebhook(secret, at(now + 300), EVENT, clock), JSON.parse(EVENT))
  assert.deepEqual(new Webhook(secret).verify(EVENT, at(now - 299)), JSON.parse(EVENT))
  const { 'webhook-signature': _, ...unsigned } = headers
  assert.deepEqual(
    refusal(() => verifyWebhook(secret, unsigned, EVENT)),
    {
      reason: 'missing-headers',
      message: 'missing header: webhook-signature',
    },
  )
  assert.deepEqual(
    refusal(() => verifyWebhook(secret, {}, EVENT)),
    {
      reason: 'missing-headers',
      message: 'missing header: webhook-id, webhook-timestamp, webhook-signature',
    },
  )
})
