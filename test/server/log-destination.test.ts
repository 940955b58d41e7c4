import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { describe, test } from 'node:test'
import { HELD_AT_MOST, linesByTurn } from '../../src/server/log-destination.js'

const turn = () => new Promise((resolve) => setImmediate(resolve))

function recorded() {
  const writes: string[] = []
  return { writes, lines: linesByTurn({ write: (text: string) => writes.push(text) }) }
}

describe('log lines by turn of the event loop', () => {
  test('the lines of one turn leave in one write, in order, once the turn is over', async () => {
    const { writes, lines } = recorded()
    lines.write('a\n')
    lines.write('b\n')
    lines.write('c\n')
    assert.deepEqual(writes, [])
    await turn()
    assert.deepEqual(writes, ['a\nb\nc\n'])
    lines.write('d\n')
    await turn()
    assert.deepEqual(writes, ['a\nb\nc\n', 'd\n'])
    await turn()
    assert.equal(writes.length, 2, 'a turn without lines writes nothing')
  })

  test(`more than ${HELD_AT_MOST} characters in a turn are written at once`, async () => {
    const { writes, lines } = recorded()
    const line = `${'x'.repeat(999)}\n`
    const many = Math.ceil(HELD_AT_MOST / line.length)
    for (let n = 0; n < many; n++) lines.write(line)
    assert.deepEqual(writes, [line.repeat(many)])
    lines.write('after\n')
    await turn()
    assert.deepEqual(writes, [line.repeat(many), 'after\n'])
  })

  for (const [how, end] of [
    ['process.exit', 'process.exit(3)'],
    ['an uncaught exception', 'throw new Error("boom")'],
  ] as const) {
    test(`the last turn's lines are written when the process ends by ${how}`, () => {
      const script = `
        import { linesByTurn } from './src/server/log-destination.ts'
        const lines = linesByTurn()
        lines.write('first\\n')
        lines.write('last\\n')
        ${end}`
      const child = spawnSync(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script],
        {
          encoding: 'utf8',
        },
      )
      assert.notEqual(child.status, 0)
      assert.equal(child.stdout, 'first\nlast\n')
    })
  }
})
