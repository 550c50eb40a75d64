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
import type { TriangleSource, Vec3 } from '../../src/core/formats/types.js'

/**
 * A UV sphere of radius 1 at the origin with `rings * segments * 2` triangles (the pole rows
 * include degenerate ones), produced on the fly so the mesh itself takes no memory.
 */
export function sphere(rings: number, segments: number): TriangleSource {
  const ring = (i: number) => [Math.sin((Math.PI * i) / rings), Math.cos((Math.PI * i) / rings)] as const
  const cos = Float64Array.from({ length: segments + 1 }, (_, j) => Math.cos((2 * Math.PI * j) / segments))
  const sin = Float64Array.from({ length: segments + 1 }, (_, j) => Math.sin((2 * Math.PI * j) / segments))
  return async (sink) => {
    for (let i = 0; i < rings; i++) {
      const [s0, z0] = ring(i)
      const [s1, z1] = ring(i + 1)
      for (let j = 0; j < segments; j++) {
        const c0 = cos[j]!,
          n0 = sin[j]!,
          c1 = cos[j + 1]!,
          n1 = sin[j + 1]!
        sink.triangle(s0 * c0, s0 * n0, z0, s1 * c0, s1 * n0, z1, s1 * c1, s1 * n1, z1)
        sink.triangle(s0 * c0, s0 * n0, z0, s1 * c1, s1 * n1, z1, s0 * c1, s0 * n1, z0)
      }
    }
  }
}

export const unitSphereBox: { min: Vec3; max: Vec3 } = { min: [-1, -1, -1], max: [1, 1, 1] }

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
