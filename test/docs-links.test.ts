// Comments in src/ cite what the repository holds: a page of docs/ (or README.md) and, after `#`,
// one of its headings, as GitHub anchors it (`docs/decisions.md#body-size-1-mib`). This test
// fails when a file in src/ cites a page or heading that does not exist, or cites the
// specification's own documents, which a clone does not have (`decisions.md` outside docs/, its
// numbered sections, Part 1 or Part 2, "the README" without saying where in it).
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { test } from 'node:test'

const root = new URL('..', import.meta.url).pathname

/** Every .ts file under src/, as a path from the repository's root. */
function sourceFiles(): string[] {
  return readdirSync(`${root}src`, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => `src/${name}`)
    .sort()
}

/** GitHub's anchor of a heading: its text lower-cased, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

/** The anchors of a Markdown page's headings (code blocks skipped; repeats get -1, -2...). */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  let fenced = false
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced
    const heading = fenced ? null : /^#{1,6} (.*?)\s*$/.exec(line)
    if (heading === null) continue
    const anchor = anchorOf(heading[1] ?? '')
    const count = seen.get(anchor) ?? 0
    seen.set(anchor, count + 1)
    anchors.add(count === 0 ? anchor : `${anchor}-${count}`)
  }
  return anchors
}

const CITATION = /(?<![\w/.-])((?:docs\/[\w-]+|README)\.md)(?:#([\w-]+))?/g

/** Citations of what a clone does not have, with what each one looks like. */
const FOREIGN = [
  { pattern: /(?<!docs\/)\bdecisions\.md/, what: 'decisions.md outside docs/' },
  { pattern: /\bdecisions \d/, what: 'a numbered section of the decisions' },
  { pattern: /\bPart [12]\b/, what: 'Part 1 or Part 2 of the specification' },
  { pattern: /\bthe README\b/, what: '"the README" (name README.md and its heading)' },
]

test('every docs page and heading a file in src/ cites exists', () => {
  const anchors = new Map<string, Set<string>>()
  const broken: string[] = []
  let citations = 0
  for (const file of sourceFiles()) {
    readFileSync(`${root}${file}`, 'utf8')
      .split('\n')
      .forEach((line, index) => {
        for (const [citation, page = '', anchor] of line.matchAll(CITATION)) {
          citations += 1
          const where = `${file}:${index + 1}: ${citation}`
          if (!existsSync(`${root}${page}`)) {
            broken.push(`${where}: no page ${page}`)
            continue
          }
          if (anchor === undefined) continue
          if (!anchors.has(page))
            anchors.set(page, anchorsOf(readFileSync(`${root}${page}`, 'utf8')))
          if (!anchors.get(page)?.has(anchor)) broken.push(`${where}: no heading #${anchor}`)
        }
      })
  }
  assert.deepEqual(broken, [])
  assert.ok(citations > 0, 'src/ cites no docs page: is the pattern still right?')
})

test('no file in src/ cites a document the repository does not hold', () => {
  const foreign: string[] = []
  for (const file of sourceFiles()) {
    readFileSync(`${root}${file}`, 'utf8')
      .split('\n')
      .forEach((line, index) => {
        for (const { pattern, what } of FOREIGN) {
          if (pattern.test(line)) foreign.push(`${file}:${index + 1}: ${what}: ${line.trim()}`)
        }
      })
  }
  assert.deepEqual(foreign, [])
})

test('anchors are made as GitHub makes them', () => {
  assert.equal(anchorOf('Body size 1 MiB'), 'body-size-1-mib')
  assert.equal(
    anchorOf('Products: `/v1/produk`, `/v2/produk`, `PRODUK_VERSIONING`'),
    'products-v1produk-v2produk-produk_versioning',
  )
  assert.equal(anchorOf('`TODOS_VARIANT=basic` (default)'), 'todos_variantbasic-default')
  assert.equal(anchorOf('Surface E: `GET /openapi.json`'), 'surface-e-get-openapijson')
  assert.deepEqual(
    [...anchorsOf('# A\n\n```sh\n# not a heading\n```\n\n## A\n### B c\n')],
    ['a', 'a-1', 'b-c'],
  )
})
