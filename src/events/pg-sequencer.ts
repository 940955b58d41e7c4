import type { Queryable } from '../store/postgres/database.js'

/** The lock the sequencer holds for its transaction: one numbering at a time, every process. */
export const SEQUENCER_LOCK = 7_265_738_403

/** Events numbered per numbering at most. */
export const NUMBERING_BATCH = 1000

/** What one numbering did: the newest id it gave and the webhook deliveries it queued. */
export interface Numbering {
  newest: number
  queued: number
}

/**
 * One numbering, in the transaction `client` is in, which must not have written anything yet
 * (`events_number` notes its own transaction id, drawn after it found the events, with the
 * holes it leaves: docs/events.md#nothing-lost-nothing-renamed). The sequencer's lock is taken
 * first, so that it sees every earlier numbering. Undefined when nothing was new.
 *
 * Never committed asynchronously, whatever the server's default (`off` becomes `local`; a
 * stronger setting, waiting for standbys, is kept): once any reader can see an id it is on
 * disk, so a crash of the database can never number the same events differently.
 */
export async function numberEvents(
  client: Queryable,
  channel: string,
  size = NUMBERING_BATCH,
): Promise<Numbering | undefined> {
  await client.query(
    `SELECT set_config('synchronous_commit', CASE current_setting('synchronous_commit')
       WHEN 'off' THEN 'local' ELSE current_setting('synchronous_commit') END, true),
     pg_advisory_xact_lock(${SEQUENCER_LOCK})`,
  )
  const { rows } = await client.query<{ newest: number | null; queued: number }>(
    'SELECT newest, queued FROM events_number($1, $2)',
    [size, channel],
  )
  const row = rows[0]
  if (row?.newest == null) return undefined
  return { newest: Number(row.newest), queued: Number(row.queued) }
}
