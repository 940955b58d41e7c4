/**
 * A backing service the configuration names cannot be used, or TLS files that cannot serve:
 * start-up is refused with the message (main.ts).
 */
export class StartUpError extends Error {
  override name = 'StartUpError'
}
