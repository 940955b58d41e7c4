import assert from 'node:assert/strict'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { demoSeed, parseSeed, readSeedFile, SeedError } from '../src/seed.js'
import { testApp } from './support/helpers.js'

const dir = await mkdtemp(join(tmpdir(), 'tugas-seed-'))
let files = 0
async function seedFile(content: string): Promise<string> {
  const path = join(dir, `seed-${files++}.json`)
  await writeFile(path, content)
  return path
}

async function refusal(content: string): Promise<string> {
  const path = await seedFile(content)
  try {
    await readSeedFile(path)
  } catch (error) {
    assert.ok(error instanceof SeedError, String(error))
    assert.ok(error.message.startsWith(`SEED_FILE ${path}: `), error.message)
    assert.doesNotMatch(error.message, /\n/)
    return error.message.slice(`SEED_FILE ${path}: `.length)
  }
  assert.fail('the seed file was accepted')
}

describe('seed file', () => {
  test('the format of decisions.md section 4 is read; a missing key is an empty collection', async () => {
    const seed = await readSeedFile(
      await seedFile(
        JSON.stringify({
          credentials: { s3cret: { nama: 'budi', peran: 'user' } },
          tugas: [{ title: ' Belajar REST ', status: 'selesai' }, { title: 'Kedua' }],
          komentar: [{ tugasId: 2, isi: 'Mulai dari bab 1' }],
        }),
      ),
    )
    assert.deepEqual(seed, {
      credentials: { s3cret: { nama: 'budi', peran: 'user' } },
      tugas: [
        { title: 'Belajar REST', status: 'selesai' },
        { title: 'Kedua', status: 'belum' },
      ],
      komentar: [{ tugasId: 2, isi: 'Mulai dari bab 1' }],
      produk: [],
      dokumen: [],
    })
    assert.deepEqual(await readSeedFile(await seedFile('{}')), {
      credentials: {},
      tugas: [],
      komentar: [],
      produk: [],
      dokumen: [],
    })
  })

  test('ids are assigned from 1 in array order', async () => {
    const app = await testApp({
      seed: {
        tugas: [{ title: 'Pertama' }, { title: 'Kedua' }],
        komentar: [{ tugasId: 2, isi: 'satu' }],
      },
    })
    assert.deepEqual((await app.inject({ url: '/tugas' })).json(), [
      { id: 1, title: 'Pertama', status: 'belum' },
      { id: 2, title: 'Kedua', status: 'belum' },
    ])
    assert.deepEqual((await app.inject({ url: '/tugas/2/komentar' })).json(), [
      { id: 1, tugasId: 2, isi: 'satu' },
    ])
  })

  test('a missing file is refused', async () => {
    await assert.rejects(readSeedFile(join(dir, 'missing.json')), (error: Error) => {
      assert.ok(error instanceof SeedError)
      assert.match(error.message, /missing\.json: cannot be read \(ENOENT\)$/)
      return true
    })
  })

  test('a file that is not JSON is refused', async () => {
    assert.match(await refusal('{"tugas": ['), /^is not valid JSON/)
  })

  test('an unknown key is refused, at the top and inside an entry', async () => {
    assert.match(await refusal('{"tasks": []}'), /^\(top level\) has unknown key "tasks"/)
    assert.match(
      await refusal('{"tugas": [{"title": "abc", "prioritas": 1}]}'),
      /^tugas\[0\] has unknown key "prioritas"/,
    )
  })

  test('a wrong type names the path inside the file', async () => {
    assert.equal(await refusal('[]'), '(top level) must be an object')
    assert.equal(await refusal('{"tugas": {}}'), 'tugas must be an array')
    assert.equal(await refusal('{"tugas": [{"title": 5}]}'), 'tugas[0] title is not text')
    assert.equal(
      await refusal('{"tugas": [{"title": "ab"}]}'),
      'tugas[0] title is under 3 characters',
    )
    assert.equal(
      await refusal('{"tugas": [{"title": "abc", "status": "done"}]}'),
      'tugas[0] status is not one of belum, selesai',
    )
    assert.equal(
      await refusal('{"komentar": [{"tugasId": 1, "isi": "x"}]}'),
      'komentar[0].tugasId must be the id of a seeded task (1 to 0)',
    )
    assert.equal(
      await refusal('{"credentials": {"k": {"nama": "budi", "peran": "root"}}}'),
      'credentials["k"].peran must be "user" or "admin"',
    )
    assert.equal(
      await refusal('{"produk": [{"nama": "Buku", "harga": "50000", "stok": 1}]}'),
      'produk[0].harga must be a whole number of at least 0',
    )
    assert.equal(
      await refusal('{"dokumen": [{"judul": "Rencana"}]}'),
      'dokumen[0].pemilik must be non-empty text',
    )
  })

  test('the demo data is itself a valid seed', () => {
    assert.deepEqual(parseSeed(JSON.parse(JSON.stringify(demoSeed))), demoSeed)
    const peran = Object.values(demoSeed.credentials).map((identity) => identity.peran)
    assert.deepEqual(peran.sort(), ['admin', 'user', 'user'])
  })
})
