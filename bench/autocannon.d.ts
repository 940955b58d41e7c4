// Minimal types for the part of autocannon@9 that the bench uses; the package ships none and
// @types/autocannon is not a dependency of this project.
declare module 'autocannon' {
  namespace autocannon {
    interface Options {
      url: string
      connections?: number
      /** Seconds. */
      duration?: number
      method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
      headers?: Record<string, string>
      body?: string
      /** Sent in turn; each `setupRequest` may change the request about to be sent. */
      requests?: Request[]
      /** Stops after this many requests; `duration` is then ignored. */
      amount?: number
      /** Milliseconds between samples; a run ends at the first sample after its last answer. */
      sampleInt?: number
    }

    interface Request {
      method?: Options['method']
      path?: string
      headers?: Record<string, string>
      body?: string
      /** Called before every request it sends; what it returns is sent. */
      setupRequest?: (request: Request) => Request
    }

    interface Histogram {
      average: number
      p99: number
    }

    interface Result {
      /** Per-second samples of completed requests. */
      requests: Histogram & { total: number }
      /** Whole milliseconds: too coarse for sub-millisecond answers. */
      latency: Histogram
      errors: number
      timeouts: number
      non2xx: number
    }

    /** Without a callback, autocannon returns an event emitter that is also a thenable. */
    interface Instance extends PromiseLike<Result> {
      /** Ends the load before its duration (the instance then resolves). */
      stop(): void
      /** Every response; `responseTime` is in milliseconds, with sub-millisecond precision. */
      on(
        event: 'response',
        listener: (
          client: unknown,
          statusCode: number,
          bytes: number,
          responseTime: number,
        ) => void,
      ): this
    }
  }

  function autocannon(options: autocannon.Options): autocannon.Instance
  export = autocannon
}
