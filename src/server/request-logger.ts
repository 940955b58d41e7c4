import type { FastifyBaseLogger } from 'fastify'
import type { Bindings, ChildLoggerOptions, LevelWithSilent, Logger } from 'pino'

type Level = Exclude<LevelWithSilent, 'silent'>
type LogMethod = (...args: unknown[]) => void
type MakeChild = (
  this: Logger,
  bindings: Bindings,
  options?: ChildLoggerOptions,
) => FastifyBaseLogger

const LEVELS: readonly Level[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace']

/**
 * A request's logger that becomes a pino child (with the request id bound) only when it first
 * writes a line. Fastify makes one child per request, and making it (copying the bindings into
 * JSON) is a measurable part of a request that writes nothing, which at `LOG_LEVEL=warn` is
 * nearly every request. A call below the logger's level returns at once, as pino's would.
 */
class RequestLogger implements FastifyBaseLogger {
  #child: FastifyBaseLogger | undefined

  constructor(
    private readonly parent: Logger,
    private readonly makeChild: MakeChild,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  get level(): string {
    return this.#child?.level ?? this.options.level ?? this.parent.level
  }

  set level(level: string) {
    this.#written().level = level
  }

  // One method a level, made once on the prototype (not arrow properties): nothing is allocated
  // per request but this.
  declare fatal: LogMethod
  declare error: LogMethod
  declare warn: LogMethod
  declare info: LogMethod
  declare debug: LogMethod
  declare trace: LogMethod
  static {
    for (const level of LEVELS) {
      RequestLogger.prototype[level] = function (this: RequestLogger, ...args: unknown[]) {
        this.#write(level, args)
      }
    }
  }
  silent(): void {}

  /** Whether a line at `level` is written (pino's own test, for the request log). */
  isLevelEnabled(level: string): boolean {
    if (this.#child !== undefined) return (this.#child as Logger).isLevelEnabled(level)
    if (this.options.level === undefined) return this.parent.isLevelEnabled(level)
    const { values } = this.parent.levels
    return (values[level] ?? 0) >= (values[this.options.level] ?? 0)
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#written().child(bindings, options)
  }

  #write(level: Level, args: unknown[]): void {
    const { values } = this.parent.levels
    if ((values[level] ?? 0) < (values[this.level] ?? 0)) return
    const write = this.#written()[level] as (...line: unknown[]) => void
    write.apply(this.#child, args)
  }

  #written(): FastifyBaseLogger {
    this.#child ??= this.makeChild.call(this.parent, this.bindings, this.options)
    return this.#child
  }
}

/**
 * Makes every child of `logger` (a pino logger, as Fastify's `app.log` is) a request logger that
 * is made when it first writes; pino makes a child with `Object.create`, so the children of
 * those inherit it too. It is the logger's own `child`, not Fastify's `childLoggerFactory`:
 * Fastify makes each request's logger with `child`, and checks every logger a factory of ours
 * returns (seven lookups and an array, per request). A logger without levels (Fastify's null
 * logger when logging is off, whose requests make no child) is left as it is.
 */
export function lazyChildren(logger: FastifyBaseLogger): void {
  const pinoLogger = logger as Logger & { [LAZY]?: true }
  // Once is enough: its children, and a second call, find it done.
  if (pinoLogger.levels === undefined || pinoLogger[LAZY]) return
  const makeChild = pinoLogger.child as unknown as MakeChild
  function lazyChild(this: Logger, bindings: Bindings, options?: ChildLoggerOptions) {
    return new RequestLogger(this, makeChild, bindings, options ?? {})
  }
  pinoLogger.child = lazyChild as unknown as Logger['child']
  pinoLogger[LAZY] = true
}

const LAZY = Symbol('lazy children')
