/**
 * Times the thumbnail renderer on a procedurally tessellated sphere and prints triangles/s
 * and peak RSS. With STL paths after `--out DIR`, also writes each one's thumbnail there.
 *
 *   npx tsx scripts/bench/render-thumbnail.ts [triangles] [--out DIR file.stl ...]
 */
import { readFile, writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { byteSourceFromBytes } from '../../src/core/formats/byte-source.js'
import { createMeshStats } from '../../src/core/formats/mesh-stats.js'
import { renderThumbnail } from '../../src/core/formats/render-thumbnail.js'
import { readStl } from '../../src/core/formats/stl.js'
import type { TriangleSource } from '../../src/core/formats/types.js'
import { sphere, unitSphereBox } from '../../test/support/sphere-mesh.js'

async function main(args: string[]) {
  const outAt = args.indexOf('--out')
  const triangles = Number(args[0] && outAt !== 0 ? args[0] : 1_000_000)
  const rings = Math.round(Math.sqrt(triangles / 4))
  const segments = Math.round(triangles / (2 * rings))
  const started = performance.now()
  const png = await renderThumbnail(sphere(rings, segments), unitSphereBox)
  const ms = performance.now() - started
  const count = rings * segments * 2
  console.log(
    `sphere: ${count} triangles in ${ms.toFixed(0)} ms = ${(((count / ms) * 1000) / 1e6).toFixed(2)} M triangles/s, PNG ${png.bytes.length} bytes`,
  )
  console.log(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`)
  if (outAt < 0) return
  const dir = args[outAt + 1]!
  await writeFile(join(dir, 'sphere.png'), png.bytes)
  for (const path of args.slice(outAt + 2)) {
    const stl = byteSourceFromBytes(await readFile(path))
    const source: TriangleSource = async (sink) => void (await readStl(stl, sink))
    // The renderer needs the bbox up front; the manifold check is not wanted here.
    const stats = createMeshStats({ maxManifoldEdges: 0 })
    await source(stats)
    const { triangles: count, bbox } = stats.finish()
    const file = join(dir, basename(path).replace(/\.stl$/i, '.png'))
    await writeFile(file, (await renderThumbnail(source, bbox)).bytes)
    console.log(`${file}: ${count} triangles`)
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main(process.argv.slice(2))
