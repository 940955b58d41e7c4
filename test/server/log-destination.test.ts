import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { describe, test } from 'node:test'
import { linesByTurn, WRITE_AT_MOST } from '../../src/server/log-destination.js'

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

  test(`a write carries at most ${WRITE_AT_MOST} bytes of whole lines, a longer line alone`, async () => {
    const { writes, lines } = recorded()
    // 300 bytes a line, two of its characters two bytes each: 13 lines fit in a write, not 14.
    const line = (n: number) => `${String(n).padStart(3, '0')} ${'é'.repeat(2)}${'x'.repeat(291)}\n`
    const sent = Array.from({ length: 30 }, (_, n) => line(n))
    for (const text of sent) lines.write(text)
    const long = `${'y'.repeat(WRITE_AT_MOST + 10)}\n`
    lines.write(long)
    lines.write(line(30))
    await turn()
    assert.equal(writes.join(''), [...sent, long, line(30)].join(''))
    assert.deepEqual(
      writes.map((text) => Buffer.byteLength(text)),
      [13 * 300, 13 * 300, 4 * 300, WRITE_AT_MOST + 11, 300],
    )
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
