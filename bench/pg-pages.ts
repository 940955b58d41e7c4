// What each page statement of the task list costs PostgreSQL at 1,000 and at 1,000,000 tasks
// (docs/performance.md#how-it-was-measured): two databases, migrated as the service migrates
// them and filled with random tasks, then each page statement under EXPLAIN (ANALYZE, BUFFERS),
// five times warm; prints the median Execution Time of each and the ratio of the two sizes.
// Usage: `npx tsx bench/pg-pages.ts` (ADMIN_URL: a server's admin database, by default
// postgres://postgres@127.0.0.1:5432/postgres). The databases are kept for psql and reused.
import pg from 'pg'
import { Database } from '../src/store/postgres/database.js'
import { migrate } from '../src/store/postgres/migrate.js'
import { SORT_FIELDS } from '../src/surfaces/tugas/list-query.js'
import { Folder } from '../src/surfaces/tugas/pg-buckets.js'
import { pageQuery } from '../src/surfaces/tugas/pg-store.js'
import type { TugasQuery } from '../src/surfaces/tugas/store.js'

const ADMIN_URL = process.env.ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const SIZES = { pages_1k: 1000, pages_1m: 1_000_000 }
const RUNS = 5

/**
 * Random tasks as a user writes them: a verb, an object and, seven times in ten, a number, so
 * titles repeat often; 60% unfinished. The sort key is the title's UTF-16 code units (ASCII).
 */
const LOAD = `
  INSERT INTO tugas (title, title_key, status)
  SELECT t, decode(regexp_replace(encode(convert_to(t, 'UTF8'), 'hex'), '(..)', '00\\1', 'g'), 'hex'),
    CASE WHEN random() < 0.6 THEN 'belum' ELSE 'selesai' END
  FROM (SELECT (ARRAY['Belajar', 'Review', 'Perbaiki', 'Tulis', 'Uji', 'Rapikan', 'Siapkan',
        'Kirim', 'Baca', 'Rancang', 'Deploy', 'Diskusikan'])[1 + floor(random() * 12)::int]
      || ' ' || (ARRAY['REST', 'kode', 'laporan', 'dokumen', 'API', 'basis data', 'tes', 'slide',
        'email', 'anggaran', 'desain', 'server', 'fitur login', 'catatan rapat'])[1 + floor(random() * 14)::int]
      || CASE WHEN random() < 0.3 THEN '' ELSE ' ' || (1 + floor(random() * 5000))::int END AS t
    FROM generate_series(1, $1::int)) g`

interface Page extends TugasQuery {
  name: string
}

/** The largest offset a client can ask for: the largest halaman at batas 100. */
const PAST_ANY_END = (Number.MAX_SAFE_INTEGER - 1) * 100

/**
 * Every order, unfiltered and with each status, at batas 10 and 100: the second page, the page
 * at offset 499,990 (halaman=50000 at batas 10: the middle of a million), the last pages of a
 * million, and the largest page a client can ask for.
 */
function pages(): Page[] {
  const list: Page[] = []
  for (const sort of SORT_FIELDS) {
    for (const descending of [false, true]) {
      for (const status of [undefined, 'belum', 'selesai'] as const) {
        for (const limit of [10, 100]) {
          for (const [where, offset] of [
            ['2nd page', limit],
            ['offset 499990', 499_990],
            ['offset 999900', 999_900],
            ['past any end', PAST_ANY_END],
          ] as const) {
            const name = `${descending ? '-' : ''}${sort}${status ? ` ${status}` : ''} batas=${limit} ${where}`
            list.push({ name, sort, descending, status, limit, offset })
          }
        }
      }
    }
  }
  return list
}

/** The database `name` holding `size` tasks, made and filled if it is not there yet. */
async function ready(name: string, size: number): Promise<string> {
  const admin = new pg.Client({ connectionString: ADMIN_URL })
  await admin.connect()
  const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])
  if (rowCount === 0) await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(ADMIN_URL)
  url.pathname = `/${name}`
  const database = new Database({ url: url.toString(), poolSize: 1, statementTimeoutMs: 600_000 })
  await migrate(database)
  await database.close()
  const client = new pg.Client({ connectionString: url.toString() })
  await client.connect()
  const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM tugas')
  if (Number(rows[0]?.n) === 0) {
    await client.query(LOAD, [size])
    await client.query('VACUUM ANALYZE tugas')
  }
  await client.end()
  // The counted buckets of whatever is pending (all of it after the fill), as the service does.
  const folding = new Database({ url: url.toString(), poolSize: 1, statementTimeoutMs: 600_000 })
  const began = performance.now()
  const folded = await new Folder(folding).fold()
  if (folded?.rebuilt) {
    console.log(
      `${name}: buckets of ${folded.folded} rows made in ${Math.round(performance.now() - began)} ms`,
    )
  }
  await folding.close()
  return url.toString()
}

/** The median Execution Time, in ms, of each page's statement. */
async function measure(url: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const medians: number[] = []
  for (const page of pages()) {
    const { text, values } = pageQuery(page)
    const times: number[] = []
    for (let run = 0; run < RUNS; run++) {
      const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, values)
      times.push(rows[0]['QUERY PLAN'][0]['Execution Time'])
    }
    medians.push(times.sort((a, b) => a - b)[Math.floor(RUNS / 2)] as number)
  }
  await client.end()
  return medians
}

const [small, large] = await Promise.all(
  Object.entries(SIZES).map(([name, size]) => ready(name, size)),
)
const atSmall = await measure(small as string)
const atLarge = await measure(large as string)
console.log(`${'page'.padEnd(44)} ${'1k ms'.padStart(8)} ${'1M ms'.padStart(8)}  ratio`)
pages().forEach(({ name }, at) => {
  const [a, b] = [atSmall[at] as number, atLarge[at] as number]
  console.log(
    `${name.padEnd(44)} ${a.toFixed(3).padStart(8)} ${b.toFixed(3).padStart(8)}  ${(b / a).toFixed(1)}`,
  )
})
const slowest = Math.max(...atLarge)
const at = atLarge.indexOf(slowest)
console.log(
  `slowest at 1M: ${slowest.toFixed(3)} ms (${pages()[at]?.name}); median ${[...atLarge]
    .sort((a, b) => a - b)
    [Math.floor(atLarge.length / 2)]?.toFixed(3)} ms`,
)
