/** SQLSTATE codes the stores act on. */
export const UNIQUE_VIOLATION = '23505'
export const FOREIGN_KEY_VIOLATION = '23503'
export const SERIALIZATION_FAILURE = '40001'

/**
 * SQLSTATE classes meaning the database could not serve the statement now, not that the
 * statement was wrong: connection exceptions (08), insufficient resources (53, too many
 * connections), operator intervention (57: shut down, cannot connect now, statement timeout).
 */
const UNAVAILABLE_CLASSES = new Set(['08', '53', '57'])

/** Errors of the socket under the driver. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
])

/** Messages node-postgres gives to a connection that died or could not be made in time. */
const DRIVER_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection terminated due to connection timeout|Query read timeout)/

/** Whether `error` says the database is out of reach, rather than the statement being wrong. */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  const code = sqlState(error)
  if (code !== undefined && NETWORK_CODES.has(code)) return true
  if (code !== undefined && /^[0-9A-Z]{5}$/.test(code)) {
    return UNAVAILABLE_CLASSES.has(code.slice(0, 2))
  }
  return DRIVER_MESSAGES.test(error.message)
}

/** The code of an error: a statement's SQLSTATE, or a socket's errno name. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : undefined
}
