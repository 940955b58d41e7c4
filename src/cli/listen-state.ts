// What `tugas listen` keeps across restarts, in the user's config directory
// (docs/events.md#for-client-developers): the signing secret, made once, and per service URL
// the id of the last event forwarded.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { newSecret } from '../events/standard-webhooks.js'

/**
 * `$TUGAS_CONFIG_DIR` when set (tests), else `$XDG_CONFIG_HOME/tugas`, else
 * `~/.config/tugas`.
 */
export function configDirectory(
  // biome-ignore lint/style/noProcessEnv: the command is a program of its own, not the service whose settings config.ts reads
  env: NodeJS.ProcessEnv = process.env,
): string {
  if (env.TUGAS_CONFIG_DIR) return env.TUGAS_CONFIG_DIR
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'tugas')
}

export class ListenState {
  readonly #secretFile: string
  readonly #positionsFile: string

  constructor(readonly directory: string) {
    mkdirSync(directory, { recursive: true, mode: 0o700 })
    this.#secretFile = join(directory, 'listen-secret')
    this.#positionsFile = join(directory, 'listen-positions.json')
  }

  /** The signing secret: made the first time (readable by the user only), then the same. */
  secret(): string {
    try {
      writeFileSync(this.#secretFile, `${newSecret()}\n`, { flag: 'wx', mode: 0o600 })
    } catch (error) {
      // Made before (by this command's first run, or one started beside it): kept.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    return readFileSync(this.#secretFile, 'utf8').trim()
  }

  /** The id of the last event forwarded from `service`: undefined when none was. */
  lastForwarded(service: string): string | undefined {
    return this.#positions()[service]
  }

  /** Notes that `id` was forwarded from `service`: replaced whole, never left half written. */
  forwarded(service: string, id: string): void {
    const positions = { ...this.#positions(), [service]: id }
    const temporary = `${this.#positionsFile}.${process.pid}.tmp`
    writeFileSync(temporary, `${JSON.stringify(positions, null, 2)}\n`, { mode: 0o600 })
    renameSync(temporary, this.#positionsFile)
  }

  #positions(): Record<string, string> {
    try {
      return JSON.parse(readFileSync(this.#positionsFile, 'utf8')) as Record<string, string>
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {}
      throw error
    }
  }
}
