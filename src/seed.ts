// The data a process starts with: the built-in demo data, or a SEED_FILE in the format of
// docs/operating.md#seed-file (docs/decisions.md#seed-file). A bad file is refused whole, with the
// file and the place inside it.
import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import type { Identity } from './access/identity.js'
import { checkKomentar, checkTugas, type TugasInput } from './surfaces/tugas/rules.js'
import { field, isPlainObject } from './text.js'

export interface Seed {
  /** Secret to identity; a secret works as a Bearer token and as an X-API-Key. */
  credentials: Record<string, Identity>
  tugas: TugasInput[]
  komentar: { tugasId: number; isi: string }[]
  produk: { nama: string; harga: number; stok: number }[]
  dokumen: { judul: string; pemilik: string }[]
}

export class SeedError extends Error {
  override name = 'SeedError'
}

const SEED_KEYS = ['credentials', 'tugas', 'komentar', 'produk', 'dokumen'] as const

class Problem extends Error {
  constructor(
    readonly at: string,
    message: string,
  ) {
    super(message)
  }
}

function object(value: unknown, at: string, keys: readonly string[]): Record<string, unknown> {
  if (!isPlainObject(value)) throw new Problem(at, 'must be an object')
  const unknownKey = Object.keys(value).find((key) => !keys.includes(key))
  if (unknownKey !== undefined) {
    throw new Problem(
      at,
      `has unknown key ${JSON.stringify(unknownKey)} (allowed: ${keys.join(', ')})`,
    )
  }
  return value
}

function array(value: unknown, at: string): unknown[] {
  if (value === undefined) return []
  if (!Array.isArray(value)) throw new Problem(at, 'must be an array')
  return value
}

function text(value: unknown, at: string): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new Problem(at, 'must be non-empty text')
  return value
}

function count(value: unknown, at: string): number {
  if (!Number.isSafeInteger(value) || (value as number) < 0) {
    throw new Problem(at, 'must be a whole number of at least 0')
  }
  return value as number
}

function firstViolation(violations: string[], at: string): never {
  throw new Problem(at, violations[0] ?? 'is invalid')
}

/** Checks a parsed seed document; a Problem names the place inside it. */
export function parseSeed(value: unknown): Seed {
  const root = object(value, '(top level)', SEED_KEYS)

  const credentials: Record<string, Identity> = {}
  const rawCredentials = field(root, 'credentials') ?? {}
  if (!isPlainObject(rawCredentials)) throw new Problem('credentials', 'must be an object')
  for (const [secret, entry] of Object.entries(rawCredentials)) {
    const at = `credentials[${JSON.stringify(secret)}]`
    if (secret.trim() === '' || secret !== secret.trim()) {
      throw new Problem(at, 'secret must be non-empty, without leading or trailing whitespace')
    }
    const identity = object(entry, at, ['nama', 'peran'])
    const peran = field(identity, 'peran')
    if (peran !== 'user' && peran !== 'admin')
      throw new Problem(`${at}.peran`, 'must be "user" or "admin"')
    // defineProperty: a secret spelled `__proto__` is a key like any other, not a prototype.
    Object.defineProperty(credentials, secret, {
      value: { nama: text(field(identity, 'nama'), `${at}.nama`), peran },
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }

  const tugas = array(field(root, 'tugas'), 'tugas').map((entry, i) => {
    const checked = checkTugas(object(entry, `tugas[${i}]`, ['title', 'status']))
    return checked.ok ? checked.value : firstViolation(checked.violations, `tugas[${i}]`)
  })

  const komentar = array(field(root, 'komentar'), 'komentar').map((entry, i) => {
    const at = `komentar[${i}]`
    const fields = object(entry, at, ['tugasId', 'isi'])
    const tugasId = field(fields, 'tugasId')
    if (
      !Number.isSafeInteger(tugasId) ||
      (tugasId as number) < 1 ||
      (tugasId as number) > tugas.length
    ) {
      throw new Problem(`${at}.tugasId`, `must be the id of a seeded task (1 to ${tugas.length})`)
    }
    const checked = checkKomentar({ isi: field(fields, 'isi') })
    if (!checked.ok) firstViolation(checked.violations, at)
    return { tugasId: tugasId as number, isi: checked.value.isi }
  })

  const produk = array(field(root, 'produk'), 'produk').map((entry, i) => {
    const at = `produk[${i}]`
    const fields = object(entry, at, ['nama', 'harga', 'stok'])
    return {
      nama: text(field(fields, 'nama'), `${at}.nama`),
      harga: count(field(fields, 'harga'), `${at}.harga`),
      stok: count(field(fields, 'stok'), `${at}.stok`),
    }
  })

  const dokumen = array(field(root, 'dokumen'), 'dokumen').map((entry, i) => {
    const at = `dokumen[${i}]`
    const fields = object(entry, at, ['judul', 'pemilik'])
    return {
      judul: text(field(fields, 'judul'), `${at}.judul`),
      pemilik: text(field(fields, 'pemilik'), `${at}.pemilik`),
    }
  })

  return { credentials, tugas, komentar, produk, dokumen }
}

/** Reads and checks a seed file; every failure is a SeedError naming the file. */
export async function readSeedFile(path: string): Promise<Seed> {
  const where = `SEED_FILE ${path}`
  let content: string
  try {
    content = await readFile(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'read failed'
    throw new SeedError(`${where}: cannot be read (${code})`)
  }
  let value: unknown
  try {
    value = JSON.parse(content)
  } catch (error) {
    throw new SeedError(`${where}: is not valid JSON (${(error as Error).message})`)
  }
  try {
    return parseSeed(value)
  } catch (error) {
    if (error instanceof Problem) throw new SeedError(`${where}: ${error.at} ${error.message}`)
    throw error
  }
}

/**
 * The demo data served when no SEED_FILE is set: data/demo-seed.json, itself a seed file (shipped
 * beside src/ and dist/), listed in docs/operating.md#demo-data.
 */
export const demoSeed: Seed = parseSeed(
  JSON.parse(readFileSync(new URL('../data/demo-seed.json', import.meta.url), 'utf8')),
)
