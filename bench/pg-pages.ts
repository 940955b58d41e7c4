// What each page statement of the task list costs PostgreSQL at 1,000 and at 1,000,000 tasks
// (docs/performance.md#how-it-was-measured): two databases, migrated as the service migrates
// them and filled with random tasks, then each page statement under EXPLAIN (ANALYZE, BUFFERS),
// five times warm; prints the median Execution Time of each and the ratio of the two sizes.
// Usage: `npx tsx bench/pg-pages.ts` (ADMIN_URL: a server's admin database, by default
// postgres://postgres@127.0.0.1:5432/postgres). The databases are kept for psql and reused.
import pg from 'pg'
import { Database } from '../src/store/postgres/database.js'
import { migrate } from '../src/store/postgres/migrate.js'
import { SORT_FIELDS, type SortField } from '../src/surfaces/tugas/list-query.js'
import { pageStatement } from '../src/surfaces/tugas/pg-store.js'

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

interface Page {
  name: string
  sort: SortField
  descending: boolean
  status: string | undefined
  limit: number
  offset: number
}

/** The deep page of every order, with and without a filter; the second page; past the end. */
function pages(): Page[] {
  const deep = { limit: 10, offset: 499_990 }
  const list: Page[] = [
    {
      name: '-title halaman=2',
      sort: 'title',
      descending: true,
      status: undefined,
      limit: 10,
      offset: 10,
    },
  ]
  for (const sort of SORT_FIELDS) {
    for (const descending of [false, true]) {
      for (const status of [undefined, 'belum']) {
        const name = `${descending ? '-' : ''}${sort}${status ? ` ${status}` : ''} halaman=50000`
        list.push({ name, sort, descending, status, ...deep })
      }
    }
  }
  const last = (Number.MAX_SAFE_INTEGER - 1) * 100
  list.push({
    name: '-title past the end',
    sort: 'title',
    descending: true,
    status: undefined,
    limit: 100,
    offset: last,
  })
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
  return url.toString()
}

/** The median Execution Time, in ms, of each page's statement. */
async function measure(url: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const medians: number[] = []
  for (const page of pages()) {
    const text = pageStatement(page.sort, page.descending, page.status !== undefined)
    const values = [page.limit, page.offset, ...(page.status ? [page.status] : [])]
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
console.log(`${'page'.padEnd(28)} ${'1k ms'.padStart(8)} ${'1M ms'.padStart(8)}  ratio`)
pages().forEach(({ name }, at) => {
  const [a, b] = [atSmall[at] as number, atLarge[at] as number]
  console.log(
    `${name.padEnd(28)} ${a.toFixed(3).padStart(8)} ${b.toFixed(3).padStart(8)}  ${(b / a).toFixed(1)}`,
  )
})
