import { readdirSync, readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { byteSourceFromBytes } from '../../src/core/formats/byte-source.js'
import { createMeshStats } from '../../src/core/formats/mesh-stats.js'
import { readStl } from '../../src/core/formats/stl.js'
import type { MeshStats } from '../../src/core/formats/types.js'
import { prusaSlicer, SHAPES } from '../support/prusa-slicer.js'

const STL_MODELS = join(import.meta.dirname, '../../node_modules/stl-models')

/** `prusa-slicer --info` figures by file name. */
function prusaInfo(files: string[]): Map<string, Record<string, string>> {
  const sections = new Map<string, Record<string, string>>()
  let current: Record<string, string> = {}
  for (const line of prusaSlicer('--info', ...files).split('\n')) {
    const header = /^\[(.+)\]$/.exec(line)
    const field = /^(\w+) = +(.+)$/.exec(line)
    if (header !== null) {
      current = {}
      sections.set(header[1]!, current)
    } else if (field !== null) current[field[1]!] = field[2]!
  }
  return sections
}

async function statsOf(path: string): Promise<MeshStats> {
  const stats = createMeshStats()
  await readStl(byteSourceFromBytes(readFileSync(path)), stats)
  return stats.finish()
}

/** Feeds triangles given as flat 9-number arrays. */
function statsOfTriangles(triangles: number[][], options?: { maxManifoldEdges?: number }): MeshStats {
  const stats = createMeshStats(options)
  for (const t of triangles) stats.triangle(t[0]!, t[1]!, t[2]!, t[3]!, t[4]!, t[5]!, t[6]!, t[7]!, t[8]!)
  return stats.finish()
}

async function unitCube(): Promise<number[][]> {
  const triangles: number[][] = []
  await readStl(byteSourceFromBytes(readFileSync(join(STL_MODELS, 'polytopes/unitCube.binary.stl'))), {
    triangle: (...corners) => triangles.push(corners),
  })
  return triangles
}

const moved = (triangles: number[][], dx: number, dy: number) =>
  triangles.map((t) => t.map((v, i) => v + (i % 3 === 0 ? dx : i % 3 === 1 ? dy : 0)))

describe('mesh figures', () => {
  it('agree with prusa-slicer --info on every shape in its gallery and on real files from stl-models', async () => {
    const files = [
      ...readdirSync(SHAPES)
        .filter((name) => name.endsWith('.stl'))
        .map((name) => join(SHAPES, name)),
      ...[
        'polytopes/cube.ascii.stl',
        'polytopes/tetrahedronMinusZero.bin.stl',
        'polytopes/tetrahedronIrregular.bin.stl',
        'objects/gearwheel.bin.stl',
        'objects/gearwheel.ascii.stl',
        'objects/bunny.bin.stl',
        'broken/missingFace.ascii.stl',
        'broken/wrongNormals.ascii.stl',
      ].map((name) => join(STL_MODELS, name)),
    ]
    expect(files.length).toBeGreaterThanOrEqual(21)
    const prusa = prusaInfo(files)
    for (const file of files) {
      const expected = prusa.get(basename(file))
      expect(expected, `prusa-slicer printed no figures for ${file}`).toBeDefined()
      const stats = await statsOf(file)
      const context = `${basename(file)}: ours ${JSON.stringify(stats)}, prusa-slicer ${JSON.stringify(expected)}`
      expect(stats.triangles, context).toBe(Number(expected!.number_of_facets))
      expect(Math.abs(stats.size[0] - Number(expected!.size_x)), context).toBeLessThan(0.01)
      expect(Math.abs(stats.size[1] - Number(expected!.size_y)), context).toBeLessThan(0.01)
      expect(Math.abs(stats.size[2] - Number(expected!.size_z)), context).toBeLessThan(0.01)
      expect(stats.manifold, context).toBe(expected!.manifold === 'yes')
      // An open mesh encloses no definite volume; PrusaSlicer repairs it before measuring.
      if (stats.manifold)
        expect(Math.abs(stats.volume - Number(expected!.volume)), context).toBeLessThanOrEqual(
          Number(expected!.volume) * 0.001,
        )
    }
  })

  it('measure a unit cube as 12 triangles, 1 mm³, 6 mm², closed', async () => {
    expect(statsOfTriangles(await unitCube())).toEqual({
      triangles: 12,
      bbox: { min: [0, 0, 0], max: [1, 1, 1] },
      size: [1, 1, 1],
      volume: 1,
      area: 6,
      manifold: true,
    })
  })

  it('give an inside-out mesh a positive volume', async () => {
    const inverted = (await unitCube()).map((t) => [...t.slice(0, 3), ...t.slice(6, 9), ...t.slice(3, 6)])
    expect(statsOfTriangles(inverted).volume).toBe(1)
  })

  it('call a mesh with a missing face open', async () => {
    const stats = statsOfTriangles((await unitCube()).slice(1))
    expect(stats.manifold).toBe(false)
    expect(stats.triangles).toBe(11)
  })

  it('call two cubes touching along an edge not manifold, where PrusaSlicer says it is', async () => {
    const cube = await unitCube()
    const stats = statsOfTriangles([...cube, ...moved(cube, 1, 1)])
    expect(stats).toMatchObject({ triangles: 24, volume: 2, manifold: false, size: [2, 2, 1] })
  })

  it('leave triangles with two identical corners out of the manifold check', async () => {
    const stats = statsOfTriangles([...(await unitCube()), [0, 0, 0, 0, 0, 0, 1, 1, 1]])
    expect(stats).toMatchObject({ triangles: 13, volume: 1, manifold: true })
  })

  it('report the manifold check as not done (null) when the mesh has more edges than the budget', async () => {
    expect(statsOfTriangles(await unitCube(), { maxManifoldEdges: 17 }).manifold).toBeNull()
    expect(statsOfTriangles(await unitCube(), { maxManifoldEdges: 18 }).manifold).toBe(true)
  })

  it('check a closed torus of 180,000 triangles exactly, however often the tables grow', () => {
    const around = 300,
      tube = 300
    const point = (i: number, j: number) => {
      const u = ((i % around) / around) * 2 * Math.PI,
        v = ((j % tube) / tube) * 2 * Math.PI
      return [(20 + 5 * Math.cos(v)) * Math.cos(u), (20 + 5 * Math.cos(v)) * Math.sin(u), 5 * Math.sin(v)]
    }
    const triangles: number[][] = []
    for (let i = 0; i < around; i++) {
      for (let j = 0; j < tube; j++) {
        triangles.push(
          [...point(i, j), ...point(i + 1, j), ...point(i + 1, j + 1)],
          [...point(i, j), ...point(i + 1, j + 1), ...point(i, j + 1)],
        )
      }
    }
    const stats = statsOfTriangles(triangles)
    expect(stats.triangles).toBe(180_000)
    expect(stats.manifold).toBe(true)
    expect(stats.volume).toBeCloseTo(2 * Math.PI ** 2 * 20 * 25, -1)
    expect(statsOfTriangles(triangles.slice(1)).manifold).toBe(false)
  })

  it('give an empty mesh zero figures and call it not manifold', () => {
    expect(createMeshStats().finish()).toEqual({
      triangles: 0,
      bbox: { min: [0, 0, 0], max: [0, 0, 0] },
      size: [0, 0, 0],
      volume: 0,
      area: 0,
      manifold: false,
    })
  })
})
