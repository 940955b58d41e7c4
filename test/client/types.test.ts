// The committed types of the typed client (src/client/schema.ts) against the document the
// service serves: openapi-typescript is run in memory on GET /openapi.json of the default
// configuration, as `npm run client:types` does, and its text must equal the file byte for byte.
// The generator lives in its own package, tools/client-types (`npm ci --prefix
// tools/client-types`; .ci/run installs it). Where it is missing this is loudly skipped, unless
// TUGAS_REQUIRE_SERVICES=1 (CI), where that fails the run.

import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { test } from 'node:test'
import {
  clientTypes,
  generatorProblem,
  SCHEMA_FILE,
  SCHEMA_PATH,
} from '../../scripts/client-types.js'
import { servedDocument } from '../../scripts/served-document.js'
import type { webhooks } from '../../src/client/schema.js'
import { ALL_EVENT_TYPES } from '../../src/store/events.js'
import { SERVICES_REQUIRED } from '../support/services.js'

/** The `skip` option: false when the generator can run, a loud reason otherwise. */
function skipWithoutGenerator(): false | string {
  const problem = generatorProblem()
  if (problem === undefined) return false
  const reason = `the drift test of ${SCHEMA_PATH}: ${problem}`
  if (SERVICES_REQUIRED) throw new Error(`${reason}; TUGAS_REQUIRE_SERVICES=1 requires it`)
  process.stderr.write(`\n*** SKIPPED: ${reason}. ***\n\n`)
  return `SKIPPED: ${reason}`
}

/** Where two texts first differ, line by line, for a message that fits on a screen. */
function firstDifference(committed: string, generated: string): string {
  const a = committed.split('\n')
  const b = generated.split('\n')
  const line = a.findIndex((text, i) => text !== b[i])
  const at = line === -1 ? a.length : line
  const show = (text: string | undefined) => (text === undefined ? '(end of file)' : text)
  return (
    `first difference at line ${at + 1}:\n` +
    `  committed: ${show(a[at])}\n` +
    `  generated: ${show(b[at])}`
  )
}

test(`${SCHEMA_PATH} is what openapi-typescript makes of the served /openapi.json`, {
  skip: skipWithoutGenerator(),
}, async () => {
  const generated = await clientTypes(await servedDocument())
  const committed = await readFile(SCHEMA_FILE, 'utf8')
  if (committed !== generated) {
    assert.fail(
      `${SCHEMA_PATH} differs from the types of the document the service serves: run ` +
        `\`npm run client:types\` and commit the result.\n${firstDifference(committed, generated)}`,
    )
  }
})

/** What a receiver of `type` is sent, by the committed types: the body of its webhook. */
type Delivered<T extends keyof webhooks> = NonNullable<
  webhooks[T]['post']
>['requestBody']['content']['application/cloudevents+json']

// Checked by tsc (`npm test`): each type's body is that type's event, its `data` that type's.
const created: Delivered<'tugas.created'>['type'] = 'tugas.created'
// @ts-expect-error a tugas.created delivery carries no other type
const notCreated: Delivered<'tugas.created'>['type'] = 'tugas.deleted'
const deleted: Delivered<'dokumen.deleted'>['data'] = { id: 1 }
const paid: Delivered<'pesanan.paid'>['data']['status'] = 'LUNAS'

test(`${SCHEMA_PATH} types a receiver of each event type (the document's webhooks)`, async () => {
  const committed = await readFile(SCHEMA_FILE, 'utf8')
  const start = committed.indexOf('export interface webhooks {')
  assert.notEqual(start, -1, 'no webhooks interface')
  const block = committed.slice(start, committed.indexOf('\n}\n', start))
  const names = [...block.matchAll(/^ {4}"([^"]+)": \{$/gm)].map((match) => match[1])
  assert.deepEqual(names, [...ALL_EVENT_TYPES])
  assert.deepEqual(
    [created, notCreated, deleted, paid],
    ['tugas.created', 'tugas.deleted', { id: 1 }, 'LUNAS'],
  )
})
