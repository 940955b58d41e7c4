import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto'

// Node's default scrypt cost (N = 2^14, r = 8, p = 1: 16 MiB, tens of milliseconds), written
// into every hash so that a later change of cost still verifies old hashes.
const COST = { N: 16384, r: 8, p: 1 }
const KEY_LENGTH = 64

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  )
}

/** `scrypt$N$r$p$<salt>$<key>` (base64), with a fresh 16-byte salt per password. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await derive(password, salt, COST)
  const { N, r, p } = COST
  return ['scrypt', N, r, p, salt.toString('base64'), key.toString('base64')].join('$')
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, N, r, p, salt, key] = stored.split('$')
  if (scheme !== 'scrypt' || salt === undefined || key === undefined) return false
  const expected = Buffer.from(key, 'base64')
  const options = { N: Number(N), r: Number(r), p: Number(p) }
  const actual = await derive(password, Buffer.from(salt, 'base64'), options)
  return actual.length === expected.length && timingSafeEqual(actual, expected)
}
