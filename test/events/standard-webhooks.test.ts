// Standard Webhooks signing: the published test vector, and a secret's form.
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { test } from 'node:test'
import { newSecret, signature } from '../../src/events/standard-webhooks.js'

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
