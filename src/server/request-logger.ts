import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify'
import type { Bindings, ChildLoggerOptions, LevelWithSilent, Logger } from 'pino'

type Level = Exclude<LevelWithSilent, 'silent'>
type LogMethod = (...args: unknown[]) => void

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
    this.#child ??= this.parent.child(this.bindings, this.options)
    return this.#child
  }
}

/** Fastify's `childLoggerFactory`: each request's logger is made when it first writes. */
export const lazyRequestLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = (
  logger,
  bindings,
  options,
) => new RequestLogger(logger as Logger, bindings, options)
