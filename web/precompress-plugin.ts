import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { brotliCompress, constants, gzip } from 'node:zlib'
import type { Plugin } from 'vite'

const brotliAsync = promisify(brotliCompress)
const gzipAsync = promisify(gzip)

/** Text assets worth compressing; images and fonts are compressed already. */
const compressible = /\.(js|css|svg|json|txt)$/

/**
 * Writes a Brotli (`.br`) and a gzip (`.gz`) copy beside each text asset of the build, at the
 * highest levels (made once, served many times), so the vault serves the UI compressed without
 * compressing on every request; `index.html` is left out, as the server rewrites it. It reads
 * the files as written, after every other plugin has had its say about their contents.
 */
export function precompress(): Plugin {
  return {
    name: 'model-vault-precompress',
    apply: 'build',
    async writeBundle(options, bundle) {
      const outDir = options.dir ?? ''
      const files = Object.keys(bundle).filter((fileName) => compressible.test(fileName))
      await Promise.all(
        files.map(async (fileName) => {
          const path = join(outDir, fileName)
          const bytes = await readFile(path)
          const quality = { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }
          await writeFile(`${path}.br`, await brotliAsync(bytes, quality))
          await writeFile(`${path}.gz`, await gzipAsync(bytes, { level: 9 }))
        }),
      )
    },
  }
}
