/**
 * Builds the Cloudflare Workers entry: `src/adapters/workers/worker.ts` bundled by esbuild into
 * one ES module (`<out>/worker.js`, what esbuild read in `<out>/meta.json`), and the static assets
 * directory the Worker serves the web UI and the API reference viewers from (`<out>/assets`: the
 * UI build, `dist/web` from `npm run build`, when there is one, plus the viewers' files under
 * `_vault-docs/`). wrangler.example.toml points at both.
 *
 *   npm run build:workers [-- out]      (default out: dist/workers)
 */
import { cp, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'
import { compressDocsAsset, readDocsAsset } from '../src/adapters/node/docs-assets.js'
import type { DocsAssetName } from '../src/core/ui-files.js'
import { uiEncodingSuffixes } from '../src/core/ui-files.js'

const root = fileURLToPath(new URL('..', import.meta.url))

export interface WorkersBuild {
  bundle: string
  assetsDir: string
  /** Bytes of the bundle, and gzip-compressed (what Cloudflare's size limit counts). */
  bytes: number
  gzipBytes: number
}

const docsAssetNames: DocsAssetName[] = ['swagger-ui.css', 'swagger-ui-bundle.js', 'redoc.standalone.js']

export async function buildWorkers(
  outDir = join(root, 'dist/workers'),
  webDir = join(root, 'dist/web'),
): Promise<WorkersBuild> {
  await rm(outDir, { recursive: true, force: true })
  const bundle = join(outDir, 'worker.js')
  const result = await build({
    entryPoints: [join(root, 'src/adapters/workers/worker.ts')],
    outfile: bundle,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    // workerd's own condition first, as wrangler resolves packages.
    conditions: ['workerd', 'worker', 'browser'],
    target: 'es2022',
    minify: true,
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  })
  const assetsDir = join(outDir, 'assets')
  await mkdir(join(assetsDir, '_vault-docs'), { recursive: true })
  if (await stat(webDir).catch(() => null)) await cp(webDir, assetsDir, { recursive: true })
  for (const name of docsAssetNames) {
    const bytes = await readDocsAsset(name)
    await writeFile(join(assetsDir, '_vault-docs', name), bytes)
    // Beside each file its Brotli and gzip copies, as the UI build has them.
    for (const encoding of ['br', 'gzip'] as const) {
      const copy = join(assetsDir, '_vault-docs', `${name}${uiEncodingSuffixes[encoding]}`)
      await writeFile(copy, await compressDocsAsset(bytes, encoding))
    }
  }
  await writeFile(join(outDir, 'meta.json'), JSON.stringify(result.metafile))
  return measureWorkersBuild(outDir)
}

/** The sizes of a finished build in `outDir`. */
export async function measureWorkersBuild(outDir: string): Promise<WorkersBuild> {
  const bundle = join(outDir, 'worker.js')
  const code = await readFile(bundle)
  return {
    bundle,
    assetsDir: join(outDir, 'assets'),
    bytes: code.byteLength,
    gzipBytes: gzipSync(code, { level: 9 }).byteLength,
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const built = await buildWorkers(process.argv[2] ? resolve(process.argv[2]) : undefined)
  console.log(
    `${built.bundle}: ${(built.bytes / 1024).toFixed(0)} KiB, ${(built.gzipBytes / 1024).toFixed(0)} KiB gzip; assets in ${built.assetsDir}`,
  )
}
