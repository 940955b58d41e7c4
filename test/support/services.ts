// What the tests of every backing service share: whether the service is required (CI), and the
// loud skip where it cannot be reached.

export const SERVICES_REQUIRED = process.env.TUGAS_REQUIRE_SERVICES === '1'

/**
 * The `skip` option for a suite that needs a backing service: false when it can run (`reason`
 * undefined); a reason, said loudly on stderr, when it cannot. Throws when services are
 * required (CI) and this one is unreachable.
 */
export function skipFor(reason: string | undefined, setting: string): false | string {
  if (reason === undefined) return false
  if (SERVICES_REQUIRED) throw new Error(`${reason}; TUGAS_REQUIRE_SERVICES=1 requires it`)
  process.stderr.write(`\n*** SKIPPED: ${reason}. Set ${setting} to run these tests. ***\n\n`)
  return `SKIPPED: ${reason}`
}
