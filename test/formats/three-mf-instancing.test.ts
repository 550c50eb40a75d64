import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { zipSync } from 'fflate'
import { afterAll, describe, expect, it } from 'vitest'
import { byteSourceFromBytes } from '../../src/core/formats/byte-source.js'
import { createMeshStats } from '../../src/core/formats/mesh-stats.js'
import { readThreeMf, type ThreeMfLimits } from '../../src/core/formats/three-mf.js'
import { FormatError, type MeshStats, type TriangleSink } from '../../src/core/formats/types.js'
import { extractFile } from '../../src/core/ingest/extract.js'
import { prusaSlicer } from '../support/prusa-slicer.js'

const scratch = mkdtempSync(join(tmpdir(), 'three-mf-instancing-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/** A closed torus (radii 4 and 1.5, centred at 3 2 1) of 2 × 15 × 33 = 990 triangles over 495 shared vertices. */
function torusMesh(): string {
  const [around, tube] = [33, 15]
  const vertices: string[] = []
  const triangles: string[] = []
  for (let i = 0; i < around; i++) {
    for (let j = 0; j < tube; j++) {
      const u = (2 * Math.PI * i) / around
      const v = (2 * Math.PI * j) / tube
      const r = 4 + 1.5 * Math.cos(v)
      const [x, y, z] = [3 + r * Math.cos(u), 2 + r * Math.sin(u), 1 + 1.5 * Math.sin(v)]
      vertices.push(`<vertex x="${x.toFixed(5)}" y="${y.toFixed(5)}" z="${z.toFixed(5)}"/>`)
      const at = (a: number, b: number) => ((a % around) * tube + (b % tube)).toString()
      const [p, q, r2, s] = [at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)]
      triangles.push(`<triangle v1="${p}" v2="${q}" v3="${r2}"/>`, `<triangle v1="${p}" v2="${r2}" v3="${s}"/>`)
    }
  }
  // An unused vertex far away: it must count for no bbox.
  vertices.push('<vertex x="1000" y="1000" z="1000"/>')
  return `<mesh><vertices>${vertices.join('')}</vertices><triangles>${triangles.join('')}</triangles></mesh>`
}

const translate = (x: number, y: number, z: number) => `1 0 0 0 1 0 0 0 1 ${x} ${y} ${z}`

/**
 * The hostile package of issue 12: the torus instanced through three levels of components,
 * `counts[0]` along x inside `counts[1]` along y inside `counts[2]` along z, each component
 * placed by `place(level, index)`.
 */
function instancedPackage(
  counts: [number, number, number],
  place: (level: number, index: number) => string = (level, index) =>
    translate(level === 0 ? 12 * index : 0, level === 1 ? 12 * index : 0, level === 2 ? 4 * index : 0),
  options: { unit?: string; item?: string } = {},
): Uint8Array {
  let resources = `<object id="1" type="model">${torusMesh()}</object>`
  for (let level = 0; level < 3; level++) {
    const components = Array.from(
      { length: counts[level]! },
      (_, index) => `<component objectid="${level + 1}" transform="${place(level, index)}"/>`,
    )
    resources += `<object id="${level + 2}" type="model"><components>${components.join('')}</components></object>`
  }
  const item = options.item === undefined ? '<item objectid="4"/>' : `<item objectid="4" transform="${options.item}"/>`
  const model = `<?xml version="1.0" encoding="UTF-8"?>
<model unit="${options.unit ?? 'millimeter'}" xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02">
<resources>${resources}</resources><build>${item}</build></model>`
  const encode = (text: string) => new TextEncoder().encode(text)
  return zipSync({
    '[Content_Types].xml': encode('<Types/>'),
    '_rels/.rels': encode(
      '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Target="/3D/3dmodel.model" Id="r1" Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/></Relationships>',
    ),
    '3D/3dmodel.model': encode(model),
  })
}

/** The build's figures by brute force: every triangle expanded into createMeshStats. */
async function expandedFigures(zip: Uint8Array): Promise<MeshStats> {
  const stats = createMeshStats()
  await (await readThreeMf(byteSourceFromBytes(zip))).forEachTriangle(stats)
  return stats.finish()
}

function expectClose(actual: MeshStats, expected: MeshStats) {
  expect(actual.triangles).toBe(expected.triangles)
  const scale = Math.max(...expected.size)
  for (const corner of ['min', 'max'] as const)
    actual.bbox[corner].forEach((value, axis) => {
      expect(Math.abs(value - expected.bbox[corner][axis]!)).toBeLessThan(scale * 1e-9)
    })
  expect(Math.abs(actual.volume - expected.volume)).toBeLessThan(expected.volume * 1e-9)
  expect(Math.abs(actual.area - expected.area)).toBeLessThan(expected.area * 1e-9)
}

const counting = (inner?: TriangleSink) => {
  const sink = {
    calls: 0,
    triangle(...corners: Parameters<TriangleSink['triangle']>) {
      sink.calls++
      inner?.triangle(...corners)
    },
  }
  return sink
}

describe('3MF instancing', () => {
  it('measures a build from its instances as the expanded mesh measures, under rotations, mirrors, scales and units', async () => {
    const angle = (index: number) => (index + 1) * 0.7
    const placements: ((level: number, index: number) => string)[] = [
      (level, index) => translate(12 * index * (level === 0 ? 1 : 0), level === 1 ? 12 * index : 0, 5 * index),
      (level, index) => {
        const [c, s] = [Math.cos(angle(index + level)), Math.sin(angle(index + level))]
        return level === 1
          ? `${c} ${s} 0 ${-s} ${c} 0 0 0 1 ${20 * index} -3 ${index}`
          : `1 0 0 0 ${c} ${s} 0 ${-s} ${c} ${7 * index} ${2 * level} 1`
      },
      (level, index) =>
        level === 2 && index === 1
          ? `-1 0 0 0 1 0 0 0 1 -30 0 0`
          : `${1 + index} 0.2 0 0 ${2 - 0.5 * level} 0 0.3 0 0.5 ${9 * index} ${level} 0`,
    ]
    for (const [which, place] of placements.entries()) {
      const zip = instancedPackage([2, 3, 2], place, { unit: 'centimeter', item: '0 1 0 -1 0 0 0 0 1 100 50 3' })
      const expanded = await expandedFigures(zip)
      const contents = await readThreeMf(byteSourceFromBytes(zip))
      expect(expanded.triangles, `placement ${which}`).toBe(990 * 12)
      expectClose(await contents.measure({ expandUpTo: 0 }), expanded)
      expect(await contents.measure({ expandUpTo: 0 })).toMatchObject({ manifold: null })
      // Small builds are still expanded, so they keep the manifold check.
      expect(await contents.measure()).toEqual(expanded)
    }
  })

  it('reads the 12.5 KB package that instances 990 triangles 100,000 times with bounded work, and renders it within its budget', async () => {
    const zip = instancedPackage([100, 100, 10])
    expect(zip.length).toBeLessThan(40_000)
    const one = await expandedFigures(instancedPackage([1, 1, 1]))
    // Visiting each object once (4 objects, 496 vertices, 990 triangles, 210 components) is all measuring takes.
    const contents = await readThreeMf(byteSourceFromBytes(zip), { maxMeasureWork: 2_000 })
    expect(contents.objects).toEqual([{ id: '4', triangles: 99_000_000 }])
    const mesh = await contents.measure()
    expect(mesh.triangles).toBe(99_000_000)
    expect(mesh.manifold).toBeNull()
    expect(mesh.bbox.min).toEqual(one.bbox.min)
    mesh.bbox.max.forEach((value, axis) => {
      expect(value).toBeCloseTo(one.bbox.max[axis]! + [12 * 99, 12 * 99, 4 * 9][axis]!, 9)
    })
    expect(Math.abs(mesh.volume - 100_000 * one.volume)).toBeLessThan(one.volume * 100_000 * 1e-9)
    expect(Math.abs(mesh.area - 100_000 * one.area)).toBeLessThan(one.area * 100_000 * 1e-9)

    const drawn = counting()
    await contents.forEachTriangle(drawn, { maxTriangles: 50_000 })
    expect(drawn.calls).toBeGreaterThan(40_000)
    expect(drawn.calls).toBeLessThanOrEqual(50_000 + 990 + 12 * 210)

    // What ingest does: the same figures, and a thumbnail drawn from at most 2 million triangles, boxes beyond.
    const extracted = await extractFile('3mf', byteSourceFromBytes(zip), { render: true })
    expect(extracted.mesh).toEqual(mesh)
    expect(extracted.thumbnail).toMatchObject({ contentType: 'image/png', width: 256 })
  })

  it('refuses a build whose instances take more orientations than the measuring budget allows', async () => {
    const spin = (_level: number, index: number) => {
      const [c, s] = [Math.cos(index * 0.01 + 0.1), Math.sin(index * 0.01 + 0.1)]
      return `${c} ${s} 0 ${-s} ${c} 0 0 0 1 ${index} 0 0`
    }
    const zip = instancedPackage([100, 100, 10], spin)
    const limits: ThreeMfLimits = { maxMeasureWork: 1_000_000 }
    const error = await (await readThreeMf(byteSourceFromBytes(zip), limits)).measure().catch((thrown) => thrown)
    expect(error).toBeInstanceOf(FormatError)
    expect(error).toMatchObject({ kind: 'unsafe', message: expect.stringMatching(/more than 1000000 vertices/) })
  })

  it('walks past empty components nested 2^60 times deep without visiting them', async () => {
    let resources = '<object id="1" type="model"><mesh><vertices/><triangles/></mesh></object>'
    for (let level = 2; level <= 61; level++)
      resources += `<object id="${level}" type="model"><components>${`<component objectid="${level - 1}"/>`.repeat(2)}</components></object>`
    resources += `<object id="99" type="model"><components><component objectid="61"/><component objectid="100"/></components></object>`
    resources += `<object id="100" type="model">${torusMesh()}</object>`
    const model = `<?xml version="1.0" encoding="UTF-8"?><model unit="millimeter" xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02"><resources>${resources}</resources><build><item objectid="99"/></build></model>`
    const encode = (text: string) => new TextEncoder().encode(text)
    const zip = zipSync({ '3D/3dmodel.model': encode(model) })
    const contents = await readThreeMf(byteSourceFromBytes(zip))
    const sink = counting()
    await contents.forEachTriangle(sink)
    expect(sink.calls).toBe(990)
    expect(await contents.measure({ expandUpTo: 0 })).toMatchObject({ triangles: 990 })
  })

  it('agrees with prusa-slicer --info, which lists each instance as an object of its own', async () => {
    const path = join(scratch, 'instanced.3mf')
    const zip = instancedPackage([3, 2, 2], (level, index) =>
      level === 1 ? `0 1 0 -1 0 0 0 0 1 ${30 * index} 0 0` : translate(12 * index, 0, level === 2 ? 5 * index : 0),
    )
    writeFileSync(path, zip)
    const blocks = prusaSlicer('--info', path)
      .split(/^\[instanced\.3mf\]$/m)
      .slice(1)
    const number = (block: string, label: string) => Number(new RegExp(`^${label} = (\\S+)$`, 'm').exec(block)?.[1])
    const sum = (label: string) => blocks.reduce((total, block) => total + number(block, label), 0)
    const extreme = (pick: typeof Math.min, label: string) => pick(...blocks.map((block) => number(block, label)))
    const mesh = await (await readThreeMf(byteSourceFromBytes(zip))).measure({ expandUpTo: 0 })
    expect(blocks).toHaveLength(12)
    expect(sum('number_of_facets')).toBe(mesh.triangles)
    expect(Math.abs(sum('volume') - mesh.volume)).toBeLessThan(mesh.volume * 1e-5)
    ;['x', 'y', 'z'].forEach((axis, index) => {
      expect(extreme(Math.min, `min_${axis}`)).toBeCloseTo(mesh.bbox.min[index]!, 4)
      expect(extreme(Math.max, `max_${axis}`)).toBeCloseTo(mesh.bbox.max[index]!, 4)
    })
  })
})
