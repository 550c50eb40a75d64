import type { TriangleSource, Vec3 } from '../../src/core/formats/types.js'

/**
 * A UV sphere of radius 1 at the origin with `rings * segments * 2` triangles (the pole rows
 * include degenerate ones), produced on the fly so the mesh itself takes no memory. Shared by
 * the renderer's tests and its benchmark (`scripts/bench/render-thumbnail.ts`).
 */
export function sphere(rings: number, segments: number): TriangleSource {
  const ring = (i: number) => [Math.sin((Math.PI * i) / rings), Math.cos((Math.PI * i) / rings)] as const
  // The last column is the first again, exactly, so the seam's corners are shared.
  const angle = (j: number) => (2 * Math.PI * (j % segments)) / segments
  const cos = Float64Array.from({ length: segments + 1 }, (_, j) => Math.cos(angle(j)))
  const sin = Float64Array.from({ length: segments + 1 }, (_, j) => Math.sin(angle(j)))
  return async (sink) => {
    for (let i = 0; i < rings; i++) {
      const [s0, z0] = ring(i)
      const [s1, z1] = ring(i + 1)
      for (let j = 0; j < segments; j++) {
        const c0 = cos[j]!
        const n0 = sin[j]!
        const c1 = cos[j + 1]!
        const n1 = sin[j + 1]!
        sink.triangle(s0 * c0, s0 * n0, z0, s1 * c0, s1 * n0, z1, s1 * c1, s1 * n1, z1)
        sink.triangle(s0 * c0, s0 * n0, z0, s1 * c1, s1 * n1, z1, s0 * c1, s0 * n1, z0)
      }
    }
  }
}

/** The bounding box of `sphere`. */
export const unitSphereBox: { min: Vec3; max: Vec3 } = { min: [-1, -1, -1], max: [1, 1, 1] }

/** `sphere(rings, segments)` of `radius` mm as binary STL, for uploads of a large single-body mesh. */
export async function sphereStl(rings: number, segments: number, radius: number): Promise<Uint8Array<ArrayBuffer>> {
  const count = rings * segments * 2
  const bytes = new Uint8Array(84 + 50 * count)
  const view = new DataView(bytes.buffer)
  view.setUint32(80, count, true)
  let at = 84
  await sphere(
    rings,
    segments,
  )({
    triangle(...corners) {
      for (const [i, value] of corners.entries()) view.setFloat32(at + 12 + 4 * i, value * radius, true)
      at += 50
    },
  })
  return bytes
}
