import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { byteSourceFromBytes } from '../../src/core/formats/byte-source.js'
import { createMeshStats } from '../../src/core/formats/mesh-stats.js'
import { readObj } from '../../src/core/formats/obj.js'
import { readStl } from '../../src/core/formats/stl.js'
import { FormatError } from '../../src/core/formats/types.js'
import { prusaSlicer, SHAPES } from '../support/prusa-slicer.js'

async function read(obj: string | Uint8Array, chunkSize?: number) {
  const stats = createMeshStats()
  const bytes = typeof obj === 'string' ? new TextEncoder().encode(obj) : obj
  const info = await readObj(byteSourceFromBytes(bytes, { chunkSize }), stats)
  return { info, stats: stats.finish() }
}

const CUBE_VERTICES = ['v 0 0 0', 'v 1 0 0', 'v 1 1 0', 'v 0 1 0', 'v 0 0 1', 'v 1 0 1', 'v 1 1 1', 'v 0 1 1']
const CUBE_QUADS = ['1 4 3 2', '5 6 7 8', '1 2 6 5', '4 8 7 3', '1 5 8 4', '2 3 7 6']
const cube = (corner: (index: string, position: number) => string) =>
  [...CUBE_VERTICES, ...CUBE_QUADS.map((quad) => `f ${quad.split(' ').map(corner).join(' ')}`)].join('\n')

describe('OBJ reading', () => {
  it('gives the figures of the STL for a mesh prusa-slicer exported as OBJ', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'obj-'))
    for (const shape of ['torus', 'M3_hex_nut', 'bunny']) {
      const stl = join(SHAPES, `${shape}.stl`)
      prusaSlicer('--export-obj', '-o', join(directory, `${shape}.obj`), stl)
      const fromObj = (await read(readFileSync(join(directory, `${shape}.obj`)))).stats
      const fromStl = createMeshStats()
      await readStl(byteSourceFromBytes(readFileSync(stl)), fromStl)
      const expected = fromStl.finish()
      expect(fromObj.triangles, shape).toBe(expected.triangles)
      expect(fromObj.manifold, shape).toBe(expected.manifold)
      fromObj.size.forEach((size, axis) => {
        expect(Math.abs(size - expected.size[axis]!), shape).toBeLessThan(0.01)
      })
      expect(Math.abs(fromObj.volume - expected.volume), shape).toBeLessThan(expected.volume * 0.001)
    }
  })

  it('fans polygons into triangles: a cube of six quads is 12 triangles, 1 mm³, closed', async () => {
    const { stats, info } = await read(cube((index) => index))
    expect(stats).toEqual({
      triangles: 12,
      bbox: { min: [0, 0, 0], max: [1, 1, 1] },
      size: [1, 1, 1],
      volume: 1,
      area: 6,
      manifold: true,
    })
    expect(info.objects).toEqual([])
  })

  it('reads v/vt/vn and v//vn corners and negative indices as the same vertices', async () => {
    const expected = (await read(cube((index) => index))).stats
    expect((await read(cube((index) => `${index}/${index}/1`))).stats).toEqual(expected)
    expect((await read(cube((index) => `${index}//3`))).stats).toEqual(expected)
    expect((await read(cube((index) => `${Number(index) - 9}/1`))).stats).toEqual(expected)
  })

  it('lists the names of its objects and groups once each, in order', async () => {
    const obj = [
      'o Gear wheel',
      'g body',
      ...CUBE_VERTICES,
      'f 1 2 3',
      'g lid',
      'f 1 3 4',
      'g body',
      'o Gear wheel',
      'g',
      'f 5 6 7',
    ].join('\n')
    expect((await read(obj)).info).toEqual({ objects: ['Gear wheel', 'body', 'lid'], more_objects: 0 })
  })

  it('keeps at most 1,000 object names of 200 characters, however many a hostile file declares', async () => {
    const names = Array.from({ length: 5000 }, (_, n) => `g ${'x'.repeat(300)}${n}`)
    const info = (await read([...names, ...CUBE_VERTICES, 'f 1 2 3'].join('\n'))).info
    // 300 x's cut to 200 leave every name the same: one listed.
    expect(info).toEqual({ objects: ['x'.repeat(200)], more_objects: 0 })
    const distinct = Array.from({ length: 5000 }, (_, n) => `o part ${n}`)
    const many = (await read([...distinct, ...CUBE_VERTICES, 'f 1 2 3'].join('\n'))).info
    expect(many.objects).toHaveLength(1000)
    expect(many.objects.at(-1)).toBe('part 999')
    expect(many.more_objects).toBe(4000)
  })

  it('ignores comments, blank lines, tabs, CRLF, other statements and joins continued lines', async () => {
    const expected = (await read(cube((index) => index))).stats
    const noisy = [
      '# exported by a CAD tool',
      'mtllib cube.mtl',
      '',
      ...CUBE_VERTICES.map((line) => `${line.replace(/ /g, '\t ')} 1.0 # with w`),
      'vt 0 0',
      'vn 0 0 1',
      'usemtl red',
      's off',
      ...CUBE_QUADS.map((quad) => `f ${quad.replace(' ', ' \\\n ')}`),
      'l 1 2',
    ].join('\r\n')
    for (const chunkSize of [3, 4096]) expect((await read(noisy, chunkSize)).stats).toEqual(expected)
  })

  it('explains why a malformed file cannot be read', async () => {
    const cases: [string, string, RegExp][] = [
      [
        'index past the vertices',
        `${CUBE_VERTICES.join('\n')}\nf 1 2 9`,
        /Line 9: face refers to vertex 9, but 8 vertices are defined before it/,
      ],
      ['index zero', `${CUBE_VERTICES.join('\n')}\nf 0 1 2`, /refers to vertex 0/],
      ['negative index too far back', `${CUBE_VERTICES.join('\n')}\nf -1 -2 -9`, /refers to vertex -9/],
      [
        'face before its vertices',
        `f 1 2 3\n${CUBE_VERTICES.join('\n')}`,
        /Line 1: face refers to vertex 1, but 0 vertices/,
      ],
      ['word for an index', `${CUBE_VERTICES.join('\n')}\nf 1 2 three`, /"three" does not start with a vertex number/],
      ['missing index', `${CUBE_VERTICES.join('\n')}\nf 1 2 /3`, /"\/3" does not start with a vertex number/],
      ['word for a coordinate', 'v 1 zero 0', /Line 1: "zero" is not a finite number/],
      ['two coordinates', 'v 1 0', /a vertex needs three coordinates/],
      ['two corners', `${CUBE_VERTICES.join('\n')}\nf 1 2`, /a face needs at least three corners/],
      ['no faces', CUBE_VERTICES.join('\n'), /contains no faces/],
      ['not an OBJ at all', '\u0000\u0001binary junk', /contains no faces/],
    ]
    for (const [what, obj, message] of cases) {
      const error = await read(obj).then(
        () => undefined,
        (thrown: unknown) => thrown,
      )
      expect(error, what).toBeInstanceOf(FormatError)
      expect((error as FormatError).kind, what).toBe('malformed')
      expect((error as FormatError).message, what).toMatch(message)
    }
  })
})
