/**
 * Runs `work` once at a time: asked while it runs, it runs once more after, however many times
 * it was asked meanwhile. `work` handles its own failures.
 */
export class OnceAtATime {
  #running: Promise<void> | undefined
  #again = false

  constructor(private readonly work: () => Promise<void>) {}

  /** Whether it was asked again while running (work may wait a little to gather more). */
  get asked(): boolean {
    return this.#again
  }

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
      await this.work()
    } while (this.#again)
  }

  /** Resolves when it is not running. */
  async idle(): Promise<void> {
    await this.#running
  }
}
