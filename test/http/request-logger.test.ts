import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { describe, test } from 'node:test'
import Fastify from 'fastify'
import pino from 'pino'
import { lazyChildren } from '../../src/server/request-logger.js'

/** A pino logger at `level` whose lines land in `lines`, counting the children it makes. */
function recordingLogger(level: string) {
  const lines: Record<string, unknown>[] = []
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line))
      done()
    },
  })
  const logger = pino({ level }, destination)
  let children = 0
  // Children inherit this property (pino makes them with Object.create), and Fastify makes its
  // own child first: only the children that bind a request id count.
  const child = logger.child
  logger.child = function (this: pino.Logger, ...args: Parameters<typeof child>) {
    if ('reqId' in args[0]) children += 1
    return child.apply(this, args)
  } as typeof logger.child
  return { logger, lines, children: () => children }
}

/** A request's logger as Fastify makes it: a child of the app's logger, binding the id. */
function requestLogger(logger: pino.Logger, options = {}) {
  lazyChildren(logger)
  return logger.child({ reqId: 'r-1' }, options)
}

describe('the lazy request logger', () => {
  test('a call below the level writes nothing and makes no child', () => {
    const { logger, lines, children } = recordingLogger('warn')
    const log = requestLogger(logger)
    log.info({ a: 1 }, 'dropped')
    log.debug('dropped')
    log.trace('dropped')
    assert.equal(children(), 0)
    assert.deepEqual(lines, [])
    assert.equal(log.level, 'warn')
  })

  test('a call at or above the level writes one line with the bindings, through one child', () => {
    const { logger, lines, children } = recordingLogger('warn')
    const log = requestLogger(logger)
    log.warn({ a: 1 }, 'first')
    log.error('second %s', 'formatted')
    log.fatal(new Error('boom'))
    assert.equal(children(), 1)
    assert.deepEqual(
      lines.map(({ level, reqId, msg, a }) => ({ level, reqId, msg, a })),
      [
        { level: 40, reqId: 'r-1', msg: 'first', a: 1 },
        { level: 50, reqId: 'r-1', msg: 'second formatted', a: undefined },
        { level: 60, reqId: 'r-1', msg: 'boom', a: undefined },
      ],
    )
  })

  test("a route's own level (the child options) wins over the parent's", () => {
    const { logger, lines } = recordingLogger('warn')
    const log = requestLogger(logger, { level: 'debug' })
    assert.equal(log.level, 'debug')
    log.debug('kept')
    log.trace('dropped')
    assert.deepEqual(
      lines.map(({ msg }) => msg),
      ['kept'],
    )
  })

  test('setting the level, and a child of the request logger, keep the bindings', () => {
    const { logger, lines } = recordingLogger('warn')
    const log = requestLogger(logger)
    log.level = 'info'
    log.info('now kept')
    log.child({ step: 'inner' }).info('from a child')
    assert.deepEqual(
      lines.map(({ msg, reqId, step }) => ({ msg, reqId, step })),
      [
        { msg: 'now kept', reqId: 'r-1', step: undefined },
        { msg: 'from a child', reqId: 'r-1', step: 'inner' },
      ],
    )
  })

  test('isLevelEnabled answers as pino does: the parent, the route, then the written child', () => {
    const { logger } = recordingLogger('warn')
    const log = requestLogger(logger)
    assert.deepEqual(
      ['error', 'warn', 'info'].map((level) => log.isLevelEnabled(level)),
      [true, true, false],
    )
    logger.level = 'info'
    assert.equal(log.isLevelEnabled('info'), true)
    const routeLevel = requestLogger(logger, { level: 'error' })
    assert.deepEqual(
      ['error', 'warn'].map((level) => routeLevel.isLevelEnabled(level)),
      [true, false],
    )
    routeLevel.level = 'debug'
    assert.deepEqual(
      ['info', 'debug', 'trace'].map((level) => routeLevel.isLevelEnabled(level)),
      [true, true, false],
    )
  })

  test('made lazy twice, or through a child, a request logger still makes one pino child', () => {
    const { logger, lines, children } = recordingLogger('warn')
    lazyChildren(logger)
    const lazyChild = logger.child
    const log = requestLogger(logger)
    assert.equal(logger.child, lazyChild)
    log.warn('once')
    const inner = log.child({ step: 'inner' })
    lazyChildren(inner)
    inner.child({ deeper: true }).warn('twice')
    assert.equal(children(), 1)
    assert.deepEqual(
      lines.map(({ msg, reqId, step, deeper }) => ({ msg, reqId, step, deeper })),
      [
        { msg: 'once', reqId: 'r-1', step: undefined, deeper: undefined },
        { msg: 'twice', reqId: 'r-1', step: 'inner', deeper: true },
      ],
    )
  })

  test("Fastify's null logger (logging off) is left as it is", async () => {
    const app = Fastify({ logger: false })
    const child = app.log.child
    lazyChildren(app.log)
    assert.equal(app.log.child, child)
    app.get('/', async (request) => {
      request.log.info('nowhere')
      return { ok: true }
    })
    assert.equal((await app.inject({ url: '/' })).statusCode, 200)
    await app.close()
  })

  test('silent writes nothing at any level', () => {
    const { logger, lines, children } = recordingLogger('trace')
    requestLogger(logger).silent('never')
    assert.equal(children(), 0)
    assert.deepEqual(lines, [])
  })

  test("in Fastify: a request's lines carry its id, and a quiet request makes no child", async () => {
    const { logger, lines, children } = recordingLogger('warn')
    const app = Fastify({ loggerInstance: logger, requestIdHeader: 'x-request-id' })
    lazyChildren(app.log)
    app.get('/quiet', async (request) => {
      request.log.info('below warn')
      return {}
    })
    app.get('/loud', async (request) => {
      request.log.warn('said')
      return {}
    })
    const before = children()
    await app.inject({ url: '/quiet' })
    assert.equal(children(), before)
    await app.inject({ url: '/loud', headers: { 'x-request-id': 'loud-1' } })
    assert.equal(children(), before + 1)
    assert.deepEqual(
      lines.filter((line) => line.msg === 'said').map((line) => line.reqId),
      ['loud-1'],
    )
    await app.close()
  })
})
