// TypeScript for the test processes (`node --import ./test/ts-loader.js`): each .ts module is
// turned into JavaScript by esbuild, as tsx does, and kept in a cache under the system's
// temporary directory keyed by its text, so a test file's process transforms nothing it has
// seen before. It does only what this repository needs (ES modules, relative imports written
// `.js` for their `.ts` file), which costs a test process about 0.4 s of CPU less than tsx's
// general loader: `npm test` starts some 120 of them. `npm run dev` and the scripts keep tsx.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { register } from 'node:module'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { isMainThread } from 'node:worker_threads'

if (isMainThread) {
  // Stack traces name the .ts line (the code carries its source map).
  process.setSourceMapsEnabled(true)
  register(import.meta.url)
}

/** What esbuild is told: the compiler options of tsconfig.json that change the JavaScript. */
const OPTIONS = {
  loader: 'ts',
  format: 'esm',
  target: 'es2023',
  sourcemap: 'inline',
  tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true, useDefineForClassFields: true } },
}

const CACHE = join(tmpdir(), `tugas-ts-loader-${userInfo().uid}`)
let esbuild

/** A relative `./x.js` written in a .ts module names `./x.ts` when that is what exists. */
export async function resolve(specifier, context, nextResolve) {
  const parent = context.parentURL
  if (
    parent?.endsWith('.ts') &&
    (specifier.startsWith('./') || specifier.startsWith('../')) &&
    specifier.endsWith('.js')
  ) {
    const url = new URL(`${specifier.slice(0, -3)}.ts`, parent)
    if (existsSync(url)) return { url: url.href, format: 'module', shortCircuit: true }
  }
  return nextResolve(specifier, context)
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return nextLoad(url, context)
  const path = fileURLToPath(url)
  const source = readFileSync(path, 'utf8')
  esbuild ??= await import('esbuild')
  const key = createHash('sha256')
    .update(JSON.stringify([esbuild.version, OPTIONS, path]))
    .update(source)
    .digest('hex')
  const cached = join(CACHE, `${key}.js`)
  let code
  try {
    code = readFileSync(cached, 'utf8')
  } catch {
    code = esbuild.transformSync(source, { ...OPTIONS, sourcefile: path }).code
    // Written whole under another name first: a process reading it meanwhile sees none or all.
    mkdirSync(CACHE, { recursive: true })
    const partial = `${cached}.${process.pid}`
    writeFileSync(partial, code)
    renameSync(partial, cached)
  }
  return { format: 'module', source: code, shortCircuit: true }
}
