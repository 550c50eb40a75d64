/**
 * Times the thumbnail renderer on a procedurally tessellated sphere and prints triangles/s
 * and peak RSS. With STL paths after `--out DIR`, also writes each one's thumbnail there.
 *
 *   npx tsx scripts/bench/render-thumbnail.ts [triangles] [--out DIR file.stl ...]
 */
import { readFile, writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { renderThumbnail } from '../../src/core/formats/render-thumbnail.js'
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
        const c0 = cos[j]!, n0 = sin[j]!, c1 = cos[j + 1]!, n1 = sin[j + 1]!
        sink.triangle(s0 * c0, s0 * n0, z0, s1 * c0, s1 * n0, z1, s1 * c1, s1 * n1, z1)
        sink.triangle(s0 * c0, s0 * n0, z0, s1 * c1, s1 * n1, z1, s0 * c1, s0 * n1, z0)
      }
    }
  }
}

export const unitSphereBox: { min: Vec3; max: Vec3 } = { min: [-1, -1, -1], max: [1, 1, 1] }

/** Binary or ASCII STL into a flat coordinate array, and its bbox; enough for looking at renders. */
function loadStl(bytes: Uint8Array): { coords: Float64Array; bbox: { min: Vec3; max: Vec3 } } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const count = bytes.length >= 84 ? view.getUint32(80, true) : -1
  const coords =
    84 + count * 50 === bytes.length
      ? Float64Array.from({ length: count * 9 }, (_, k) => view.getFloat32(84 + Math.floor(k / 9) * 50 + 12 + (k % 9) * 4, true))
      : Float64Array.from([...new TextDecoder().decode(bytes).matchAll(/vertex\s+(\S+)\s+(\S+)\s+(\S+)/g)].flatMap((m) => m.slice(1).map(Number)))
  const min: Vec3 = [Infinity, Infinity, Infinity]
  const max: Vec3 = [-Infinity, -Infinity, -Infinity]
  coords.forEach((c, k) => ((min[k % 3] = Math.min(min[k % 3]!, c)), (max[k % 3] = Math.max(max[k % 3]!, c))))
  return { coords, bbox: { min, max } }
}

async function main(args: string[]) {
  const outAt = args.indexOf('--out')
  const triangles = Number(args[0] && outAt !== 0 ? args[0] : 1_000_000)
  const rings = Math.round(Math.sqrt(triangles / 4))
  const segments = Math.round(triangles / (2 * rings))
  const started = performance.now()
  const png = await renderThumbnail(sphere(rings, segments), unitSphereBox)
  const ms = performance.now() - started
  const count = rings * segments * 2
  console.log(`sphere: ${count} triangles in ${ms.toFixed(0)} ms = ${((count / ms) * 1000 / 1e6).toFixed(2)} M triangles/s, PNG ${png.bytes.length} bytes`)
  console.log(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`)
  if (outAt < 0) return
  const dir = args[outAt + 1]!
  await writeFile(join(dir, 'sphere.png'), png.bytes)
  for (const path of args.slice(outAt + 2)) {
    const { coords, bbox } = loadStl(await readFile(path))
    const source: TriangleSource = async (sink) => {
      for (let k = 0; k < coords.length; k += 9) {
        sink.triangle(coords[k]!, coords[k + 1]!, coords[k + 2]!, coords[k + 3]!, coords[k + 4]!, coords[k + 5]!, coords[k + 6]!, coords[k + 7]!, coords[k + 8]!)
      }
    }
    const file = join(dir, basename(path).replace(/\.stl$/i, '.png'))
    await writeFile(file, (await renderThumbnail(source, bbox)).bytes)
    console.log(`${file}: ${coords.length / 9} triangles`)
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main(process.argv.slice(2))
