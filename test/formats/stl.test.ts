import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { byteSourceFromBytes } from '../../src/core/formats/byte-source.js'
import { createMeshStats } from '../../src/core/formats/mesh-stats.js'
import { readStl } from '../../src/core/formats/stl.js'
import { type ByteSource, FormatError, type MeshStats } from '../../src/core/formats/types.js'
import { SHAPES } from '../support/prusa-slicer.js'

const STL_MODELS = join(import.meta.dirname, '../../node_modules/stl-models')
const text = (value: string) => new TextEncoder().encode(value)

async function read(bytes: Uint8Array, chunkSize?: number) {
  const stats = createMeshStats()
  const info = await readStl(byteSourceFromBytes(bytes, { chunkSize }), stats)
  return { info, stats: stats.finish() }
}

async function failure(bytes: Uint8Array): Promise<FormatError> {
  const error = await readStl(byteSourceFromBytes(bytes), createMeshStats()).then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  expect(error).toBeInstanceOf(FormatError)
  return error as FormatError
}

/** The triangles of a binary STL as an ASCII STL, written with the quirks real exporters have. */
function asAscii(binary: Uint8Array, quirks: number): string {
  const data = new DataView(binary.buffer, binary.byteOffset, binary.byteLength)
  const eol = quirks % 2 === 0 ? '\r\n' : '\n'
  const number = (value: number, index: number) =>
    index % 2 === 0 ? value.toExponential(8).toUpperCase() : value.toPrecision(9)
  const lines = [`SOLID  converted${eol}`]
  for (let facet = 0; facet < data.getUint32(80, true); facet++) {
    const at = 84 + facet * 50
    lines.push(
      quirks % 3 === 0 ? `\tFACET NORMAL 0 0 0${eol}\t\tOUTER LOOP${eol}` : `facet normal 0 0 0${eol}outer loop${eol}`,
    )
    for (let corner = 0; corner < 3; corner++) {
      const [x, y, z] = [0, 1, 2].map((axis) => data.getFloat32(at + 12 + corner * 12 + axis * 4, true))
      lines.push(`\t  vertex  ${number(x!, facet)}\t${number(y!, facet + 1)} ${number(z!, facet)}   ${eol}`)
    }
    lines.push(`endloop${eol}endfacet${eol}`)
  }
  lines.push(`endsolid converted${eol}`)
  return lines.join('')
}

function binaryStl(header: string, triangles: number[][]): Uint8Array {
  const bytes = new Uint8Array(84 + 50 * triangles.length)
  bytes.set(text(header).subarray(0, 80))
  const data = new DataView(bytes.buffer)
  data.setUint32(80, triangles.length, true)
  for (const [facet, corners] of triangles.entries()) {
    for (const [index, value] of corners.entries()) data.setFloat32(84 + facet * 50 + 12 + index * 4, value, true)
  }
  return bytes
}

const ASCII_TETRAHEDRON = readFileSync(join(STL_MODELS, 'polytopes/tetrahedron.ascii.stl'), 'utf8')

describe('STL reading', () => {
  it('gives identical figures for the ASCII and binary encodings of every gallery shape', async () => {
    const shapes = readdirSync(SHAPES).filter((name) => name.endsWith('.stl'))
    expect(shapes.length).toBeGreaterThanOrEqual(13)
    for (const [index, shape] of shapes.entries()) {
      const binary = readFileSync(join(SHAPES, shape))
      const fromBinary = await read(binary)
      const fromAscii = await read(text(asAscii(binary, index)))
      expect(fromBinary.info).toEqual({ encoding: 'binary' })
      expect(fromAscii.info).toEqual({ encoding: 'ascii', solidName: 'converted' })
      expect(fromAscii.stats, shape).toEqual(fromBinary.stats)
    }
  })

  it('gives identical figures for the ASCII and binary files stl-models ships of one mesh', async () => {
    const pairs = [
      ['polytopes/cube.ascii.stl', 'polytopes/cube.bin.stl'],
      ['polytopes/tetrahedron.ascii.stl', 'polytopes/tetrahedron.bin.stl'],
      ['polytopes/tetrahedron.min.ascii.stl', 'polytopes/tetrahedron.bin.stl'],
      ['polytopes/unitCube.ascii.stl', 'polytopes/unitCube.binary.stl'],
      ['polytopes/triangle.ascii.stl', 'polytopes/triangle.bin.stl'],
      ['objects/bunny.ascii.stl', 'objects/bunny.bin.stl'],
    ]
    for (const [ascii, binary] of pairs) {
      const fromAscii = (await read(readFileSync(join(STL_MODELS, ascii!)))).stats
      expect(fromAscii, ascii).toEqual((await read(readFileSync(join(STL_MODELS, binary!)))).stats)
    }
  })

  it('reads a binary file whose header starts with "solid" as binary', async () => {
    const { info, stats } = await read(readFileSync(join(STL_MODELS, 'broken/wrongHeader.bin.stl')))
    expect(info.encoding).toBe('binary')
    expect(stats).toMatchObject({ triangles: 12, size: [100, 100, 100], manifold: true })
    const solidHeader = binaryStl('solid exported by a CAD tool\n', [[0, 0, 0, 1, 0, 0, 0, 1, 0]])
    expect((await read(solidHeader)).info.encoding).toBe('binary')
  })

  it('gives the same figures whatever the chunks the store streams in', async () => {
    const binary = readFileSync(join(SHAPES, 'M3_hex_nut.stl'))
    const ascii = text(asAscii(binary, 1))
    const expected = (await read(binary)).stats
    for (const chunkSize of [1, 7, 49, 50, 51, 4096]) {
      expect((await read(binary, chunkSize)).stats, `binary, ${chunkSize}-byte chunks`).toEqual(expected)
      expect((await read(ascii, chunkSize)).stats, `ascii, ${chunkSize}-byte chunks`).toEqual(expected)
    }
  })

  it('streams a binary file instead of reading it whole', async () => {
    const binary = readFileSync(join(SHAPES, 'M3x10_screw.stl'))
    const inner = byteSourceFromBytes(binary, { chunkSize: 4096 })
    const largestRead: number[] = []
    const watched: ByteSource = {
      size: inner.size,
      read: async (start, end) => {
        largestRead.push(end - start + 1)
        return inner.read(start, end)
      },
      stream: (start, end) => inner.stream(start, end),
    }
    await readStl(watched, createMeshStats())
    expect(Math.max(...largestRead)).toBeLessThanOrEqual(512)
  })

  it('names the solid of an ASCII file, with all the words of its name', async () => {
    expect((await read(readFileSync(join(STL_MODELS, 'misc/multiWordName.ascii.stl')))).info).toEqual({
      encoding: 'ascii',
      solidName: 'Model with a multi word name',
    })
    expect((await read(readFileSync(join(STL_MODELS, 'misc/namelessSolid.ascii.stl')))).info).toEqual({
      encoding: 'ascii',
    })
  })

  it('accepts an ASCII file without endsolid, with a UTF-8 byte order mark, or without a final newline', async () => {
    const tetrahedron: MeshStats = (await read(text(ASCII_TETRAHEDRON))).stats
    expect((await read(readFileSync(join(STL_MODELS, 'broken/missingEndsolid.ascii.stl')))).stats).toEqual(tetrahedron)
    expect((await read(text(`\uFEFF${ASCII_TETRAHEDRON}`))).stats).toEqual(tetrahedron)
    expect((await read(text(ASCII_TETRAHEDRON.trimEnd()))).stats).toEqual(tetrahedron)
  })

  it("either reads or rejects as malformed every file in stl-models' broken folder, never failing otherwise", async () => {
    const broken = readdirSync(join(STL_MODELS, 'broken'))
    expect(broken.length).toBeGreaterThanOrEqual(14)
    const outcomes: Record<string, string> = {}
    for (const name of broken) {
      outcomes[name] = await read(readFileSync(join(STL_MODELS, 'broken', name))).then(
        ({ stats }) => `${stats.triangles} triangles`,
        (error: unknown) =>
          error instanceof FormatError && error.kind === 'malformed' ? 'malformed' : `unexpected ${String(error)}`,
      )
    }
    expect(outcomes).toEqual({
      'empty.stl': 'malformed',
      'fourVertices.ascii.stl': 'malformed',
      'incorrectFaceCounter.bin.stl': 'malformed',
      'missingEndsolid.ascii.stl': '4 triangles',
      'missingFace.ascii.stl': '3 triangles',
      'missingNormal.ascii.stl': '4 triangles',
      'notANumberNormal.ascii.stl': '4 triangles',
      'quad.ascii.stl': 'malformed',
      'singleFace.ascii.stl': '1 triangles',
      'solidNameMismatch.ascii.stl': '4 triangles',
      'twoVertices.ascii.stl': 'malformed',
      'wrongHeader.bin.stl': '12 triangles',
      'wrongNormal.ascii.stl': '4 triangles',
      'wrongNormals.ascii.stl': '4 triangles',
    })
  })

  it('explains why a malformed file cannot be read', async () => {
    const binary = readFileSync(join(SHAPES, 'pyramid.stl'))
    const cases: [string, Uint8Array, RegExp][] = [
      ['empty', new Uint8Array(0), /empty/],
      [
        'truncated binary',
        binary.subarray(0, binary.length - 10),
        /declares 6 triangles, which take 384 bytes, but it has 374 bytes/,
      ],
      ['too short for binary', new Uint8Array(40).fill(7), /too short/],
      ['binary without triangles', binaryStl('', []), /no triangles/],
      [
        'binary NaN',
        binaryStl('', [[0, 0, 0, NaN, 0, 0, 0, 1, 0]]),
        /Triangle 1 has a coordinate that is not a finite number/,
      ],
      ['ASCII NaN', text(ASCII_TETRAHEDRON.replace('vertex 1 0 0', 'vertex NaN 0 0')), /"NaN" is not a finite number/],
      [
        'ASCII word for a number',
        text(ASCII_TETRAHEDRON.replace('vertex 1 0 0', 'vertex one 0 0')),
        /"one" is not a finite number/,
      ],
      [
        'ASCII vertex with two coordinates',
        text(ASCII_TETRAHEDRON.replace('vertex 1 0 0', 'vertex 1 0')),
        /exactly three coordinates/,
      ],
      [
        'ends inside a facet',
        text(ASCII_TETRAHEDRON.slice(0, ASCII_TETRAHEDRON.lastIndexOf('endloop'))),
        /ends inside the facet starting on line 23/,
      ],
      ['no triangles', readFileSync(join(STL_MODELS, 'misc/faceless.ascii.stl')), /contains no triangles/],
      [
        'stray keyword',
        text(ASCII_TETRAHEDRON.replace('outer loop', 'inner loop')),
        /Line 3: "inner" is not expected inside the facet starting on line 2/,
      ],
      [
        'vertex outside a facet',
        text('solid x\nvertex 0 0 0\nendsolid x\n'),
        /Line 2: "vertex" is not expected between facets/,
      ],
      [
        'corrupted binary',
        readFileSync(join(STL_MODELS, 'misc/multiWordName.bin.stl')),
        /declares 4 triangles, which take 284 bytes, but it has 333 bytes/,
      ],
      [
        'binary cut-off ASCII look-alike',
        new Uint8Array([...text('solid x'), 0, ...new Uint8Array(100)]),
        /not a binary STL/,
      ],
      ['a very long line', text(`solid x\n${'9'.repeat(200_000)}\n`), /longer than 65536 characters/],
    ]
    for (const [what, bytes, message] of cases) {
      const error = await failure(bytes)
      expect(error.kind, what).toBe('malformed')
      expect(error.message, what).toMatch(message)
    }
  })
})
