/**
 * Runs `work` once at a time: asked while it runs, it runs once more after, however many times
 * it was asked meanwhile, and no sooner than `gapMs` after the start of the run before, so
 * that under a stream of asks each run gathers more (a statement per gap rather than one per
 * round trip). `work` handles its own failures.
 */
export class OnceAtATime {
  #running: Promise<void> | undefined
  #again = false

  constructor(
    private readonly work: () => Promise<void>,
    private readonly gapMs = 0,
  ) {}

  ask(): void {
    if (this.#running !== undefined) {
      this.#again = true
      return
    }
    this.#running = this.#loop().finally(() => {
      this.#running = undefined
    })
  }

  async #loop(): Promise<void> {
    do {
      this.#again = false
      const started = performance.now()
      await this.work()
      const rest = this.gapMs - (performance.now() - started)
      if (this.#again && rest > 0) await new Promise((done) => setTimeout(done, rest))
    } while (this.#again)
  }

  /** Resolves when it is not running. */
  async idle(): Promise<void> {
    await this.#running
  }
}
