import { describe, expect, it } from 'vitest'
import { sphere } from '../../../test/support/sphere-mesh.js'
import { byteSourceFromBytes } from './byte-source.js'
import { createMeshStats } from './mesh-stats.js'
import { previewMesh } from './preview-mesh.js'
import { readStl } from './stl.js'
import type { TriangleSource } from './types.js'

async function statsOf(source: TriangleSource) {
  const stats = createMeshStats()
  await source(stats)
  return stats.finish()
}

/** The preview read back as any STL upload is read. */
async function readBack(bytes: Uint8Array) {
  const stats = createMeshStats()
  await readStl(byteSourceFromBytes(bytes), stats)
  return stats.finish()
}

/** Many separate tiny tetrahedra along a line: clustering cannot merge bodies that lie apart. */
function scatteredBodies(count: number): TriangleSource {
  return async (sink) => {
    for (let i = 0; i < count; i++) {
      const x = i * 10
      sink.triangle(x, 0, 0, x + 1, 0, 0, x, 1, 0)
      sink.triangle(x, 0, 0, x, 0, 1, x + 1, 0, 0)
      sink.triangle(x, 0, 0, x, 1, 0, x, 0, 1)
      sink.triangle(x + 1, 0, 0, x, 0, 1, x, 1, 0)
    }
  }
}

describe('previewMesh', () => {
  it('brings a 720,000-triangle sphere under the bound, keeping its size, surface and volume', async () => {
    const source = sphere(600, 600)
    const full = await statsOf(source)
    const preview = await previewMesh(source, full, 50_000)
    if (!preview) throw new Error('no preview')
    expect(preview.triangles).toBeLessThanOrEqual(50_000)
    expect(preview.triangles).toBeGreaterThan(10_000)
    const read = await readBack(preview.bytes)
    expect(read.triangles).toBe(preview.triangles)
    expect(preview.bytes.byteLength).toBe(84 + 50 * preview.triangles)
    for (const axis of [0, 1, 2]) expect(read.size[axis]).toBeCloseTo(full.size[axis] ?? 0, 1)
    expect(read.area / full.area).toBeGreaterThan(0.97)
    expect(read.volume / full.volume).toBeGreaterThan(0.97)
    // Faces still point outwards: the signed volume kept its sign through the clustering.
    expect(read.volume).toBeGreaterThan(0)
  })

  it('keeps a small mesh as it is when the bound allows every triangle', async () => {
    const source = sphere(20, 20)
    const full = await statsOf(source)
    const preview = await previewMesh(source, full, 100_000)
    if (!preview) throw new Error('no preview')
    const read = await readBack(preview.bytes)
    expect(read.size).toEqual(full.size.map((value) => expect.closeTo(value, 5)))
    // The pole rows' degenerate triangles go; every other one stays.
    expect(preview.triangles).toBe(full.triangles - 2 * 20)
  })

  it('refines the grid for small bodies far apart rather than answer an empty preview', async () => {
    const source = scatteredBodies(200)
    const full = await statsOf(source)
    const preview = await previewMesh(source, full, 1_000)
    expect(preview?.triangles).toBe(800)
    expect(preview && (await readBack(preview.bytes)).size).toEqual(full.size.map((value) => expect.closeTo(value, 5)))
  })

  it('answers no preview where no grid gives one: too many tiny bodies, or no triangles', async () => {
    const scattered = scatteredBodies(2_000)
    expect(await previewMesh(scattered, await statsOf(scattered), 1_000)).toBeUndefined()
    const empty: TriangleSource = async () => {}
    expect(await previewMesh(empty, { bbox: { min: [0, 0, 0], max: [0, 0, 0] }, area: 0 }, 1_000)).toBeUndefined()
  })
})
