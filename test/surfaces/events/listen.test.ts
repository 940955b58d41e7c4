// `tugas listen` (src/cli/), the built command (`npm run build` first: dist/cli/tugas.js), against
// the service listening on a port, on the test store: each event forwarded once to a receiver
// on loopback as a signed delivery, the same secret and the resume point kept across a
// restart in the config directory (TUGAS_CONFIG_DIR), bad arguments refused with the usage.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { verifyWebhook } from '../../../src/client/index.js'
import { DELIVERY_CONTENT_TYPE } from '../../../src/events/standard-webhooks.js'
import { createTaskAt, testApp } from '../../support/helpers.js'
import { TUGAS_COMMAND as command, forwardLines, secretOf, tugas } from '../../support/listen.js'
import { listenOnLoopback } from '../../support/raw-http.js'
import { Receiver } from '../../support/receiver.js'

test('forwards a burst once each, signed; restarted, the same secret and it resumes after the last', {
  timeout: 90_000,
}, async () => {
  const app = await testApp()
  const url = `http://127.0.0.1:${await listenOnLoopback(app)}`
  const receiver = await Receiver.start()
  const configDir = mkdtempSync(join(tmpdir(), 'tugas-listen-'))
  after(async () => {
    await receiver.close()
    rmSync(configDir, { recursive: true, force: true })
  })
  const args = ['listen', '--service', url, '--forward-to', receiver.url('/hook')]
  const first = tugas(args, configDir)
  await first.until((line) => line.startsWith('Ready: forwarding new events'))
  const secret = secretOf(first.lines)
  assert.match(secret, /^whsec_/)
  // The secret is kept in the config directory, readable by the user only.
  assert.equal(readFileSync(join(configDir, 'listen-secret'), 'utf8').trim(), secret)

  const burst = await Promise.all(
    Array.from({ length: 20 }, (_, n) => createTaskAt(url, `Serbu ${n}`)),
  )
  const received = await receiver.until('/hook', 20)
  await first.until(() => forwardLines(first.lines).length === 20)
  assert.equal(await first.stop(), 0)
  const ids = received.map((request) => request.headers['webhook-id'] as string)
  assert.deepEqual(
    ids,
    [...ids].sort((a, b) => Number(a) - Number(b)),
  )
  assert.equal(new Set(ids).size, 20)
  const subjects = received.map((request) => {
    assert.equal(request.headers['content-type'], DELIVERY_CONTENT_TYPE)
    const event = verifyWebhook(secret, request.headers, request.body)
    assert.equal(event.id, request.headers['webhook-id'])
    assert.equal(event.type, 'tugas.created')
    return Number(event.subject)
  })
  assert.deepEqual(
    subjects.sort((a, b) => a - b),
    [...burst].sort((a, b) => a - b),
  )
  assert.deepEqual(
    forwardLines(first.lines),
    ids.map((id) => `${id} tugas.created 204`),
  )

  // Written while it is stopped: forwarded once it is back, and nothing before them again.
  const missed = [
    await createTaskAt(url, 'Selagi mati 1'),
    await createTaskAt(url, 'Selagi mati 2'),
  ]
  const second = tugas(args, configDir)
  await second.until((line) => line.startsWith(`Ready: forwarding events after ${ids.at(-1)}`))
  assert.equal(secretOf(second.lines), secret)
  const all = await receiver.until('/hook', 22)
  await second.until(() => forwardLines(second.lines).length === 2)
  const resumed = all
    .slice(20)
    .map((request) => verifyWebhook(secret, request.headers, request.body))
  assert.deepEqual(
    resumed.map((event) => Number(event.subject)),
    missed,
  )
  assert.ok(Number(resumed[0]?.id) > Number(ids.at(-1)))
  // Nothing more came (a repeat of the first run's events would be here by now).
  await new Promise((resolve) => setTimeout(resolve, 300))
  assert.equal(receiver.at('/hook').length, 22)
  assert.equal(await second.stop(), 0)

  // Where it stopped is kept per service: another service's feed starts with its new events.
  const other = `http://127.0.0.1:${await listenOnLoopback(await testApp())}`
  const third = tugas(['listen', '--service', other, '--forward-to', receiver.url('/b')], configDir)
  await third.until((line) => line.startsWith('Ready: forwarding new events'))
  assert.equal(secretOf(third.lines), secret)
  assert.equal(await third.stop(), 0)
})

test('a feed the service refuses (a bad credential) ends it with the answer, exit 1', {
  timeout: 30_000,
}, async () => {
  const url = `http://127.0.0.1:${await listenOnLoopback(await testApp())}`
  const configDir = mkdtempSync(join(tmpdir(), 'tugas-listen-'))
  after(() => rmSync(configDir, { recursive: true, force: true }))
  const args = ['listen', '--service', url, '--forward-to', 'http://127.0.0.1:9/hook']
  const child = spawn(process.execPath, [command, ...args, '--credential', 'not-a-credential'], {
    env: { ...process.env, TUGAS_CONFIG_DIR: configDir },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk
  })
  const [code] = (await once(child, 'close')) as [number | null]
  assert.equal(code, 1, stderr)
  assert.match(stderr, /^tugas listen: GET \/events answered 401: .*"UNAUTHENTICATED"/)
})

test('bad arguments: the usage on stderr, exit 2', { timeout: 30_000 }, async () => {
  const configDir = mkdtempSync(join(tmpdir(), 'tugas-listen-'))
  after(() => rmSync(configDir, { recursive: true, force: true }))
  const cases = [
    [],
    ['serve'],
    ['listen', '--service', 'http://127.0.0.1:1'],
    ['listen', '--service', 'not a url', '--forward-to', 'http://127.0.0.1:2/hook'],
    ['listen', '--service', 'ftp://x', '--forward-to', 'http://127.0.0.1:2/hook'],
    ['listen', '--service', 'http://127.0.0.1:1', '--forward-to', 'http://127.0.0.1:2', '--port'],
    ['listen', '--service', 'http://127.0.0.1:1', '--forward-to', 'http://127.0.0.1:2', 'extra'],
    [
      'listen',
      '--service',
      'http://127.0.0.1:1',
      '--forward-to',
      'http://127.0.0.1:2',
      '--types',
      'a,,b',
    ],
  ]
  for (const args of cases) {
    const child = spawn(process.execPath, [command, ...args], {
      env: { ...process.env, TUGAS_CONFIG_DIR: configDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk
    })
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk
    })
    const [code] = (await once(child, 'close')) as [number | null]
    assert.equal(code, 2, JSON.stringify({ args, stderr }))
    assert.match(stderr, /usage: tugas listen --service <url> --forward-to <local url>/)
    assert.equal(stdout, '', JSON.stringify(args))
  }
})
