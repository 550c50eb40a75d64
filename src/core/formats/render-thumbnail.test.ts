import { decode } from 'fast-png'
import { describe, expect, it } from 'vitest'
import { sphere, unitSphereBox } from '../../../test/support/sphere-mesh.js'
import { renderThumbnail } from './render-thumbnail.js'
import type { Thumbnail, TriangleSource, Vec3 } from './types.js'

/** An axis-aligned box as 12 triangles, wound outwards. */
function box(min: Vec3, max: Vec3): TriangleSource {
  const corner = (i: number): Vec3 => [i & 1 ? max[0] : min[0], i & 2 ? max[1] : min[1], i & 4 ? max[2] : min[2]]
  const quads = [
    [0, 2, 3, 1],
    [4, 5, 7, 6],
    [0, 1, 5, 4],
    [2, 6, 7, 3],
    [0, 4, 6, 2],
    [1, 3, 7, 5],
  ]
  return async (sink) => {
    for (const [a, b, c, d] of quads.map((quad) => quad.map(corner))) {
      sink.triangle(...a!, ...b!, ...c!)
      sink.triangle(...a!, ...c!, ...d!)
    }
  }
}

function triangles(list: number[][]): TriangleSource {
  return async (sink) => {
    for (const t of list)
      sink.triangle(...(t as [number, number, number, number, number, number, number, number, number]))
  }
}

function pixels(thumbnail: Thumbnail) {
  const png = decode(thumbnail.bytes)
  expect(png).toMatchObject({ width: thumbnail.width, height: thumbnail.height, channels: 4, depth: 8 })
  const at = (x: number, y: number) => [...png.data.slice((y * png.width + x) * 4, (y * png.width + x) * 4 + 4)]
  return { ...png, at }
}

/** The smallest rectangle holding every pixel that is not fully transparent, or null. */
function silhouette(image: ReturnType<typeof pixels>) {
  let left = Infinity,
    right = -Infinity,
    top = Infinity,
    bottom = -Infinity
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      if (image.at(x, y)[3] === 0) continue
      left = Math.min(left, x)
      right = Math.max(right, x)
      top = Math.min(top, y)
      bottom = Math.max(bottom, y)
    }
  }
  return left > right ? null : { left, right, top, bottom, width: right - left + 1, height: bottom - top + 1 }
}

const cube = box([0, 0, 0], [10, 10, 10])
const cubeBox = { min: [0, 0, 0] as Vec3, max: [10, 10, 10] as Vec3 }

describe('renderThumbnail', () => {
  it('returns a PNG of the requested size, 256 pixels square by default', async () => {
    const standard = await renderThumbnail(cube, cubeBox)
    expect(standard).toMatchObject({ width: 256, height: 256, contentType: 'image/png' })
    expect(pixels(standard).data).toHaveLength(256 * 256 * 4)
    expect(pixels(await renderThumbnail(cube, cubeBox, { size: 64 }))).toMatchObject({ width: 64, height: 64 })
  })

  it('draws a cube centred, with a margin all round, on a transparent background', async () => {
    const image = pixels(await renderThumbnail(cube, cubeBox))
    const s = silhouette(image)!
    for (const margin of [s.left, s.top, 255 - s.right, 255 - s.bottom]) {
      expect(margin).toBeGreaterThanOrEqual(8)
      expect(margin).toBeLessThanOrEqual(40)
    }
    expect(Math.abs(s.left + s.right - 255)).toBeLessThanOrEqual(2)
    expect(Math.abs(s.top + s.bottom - 255)).toBeLessThanOrEqual(2)
    expect(image.at(0, 0)[3]).toBe(0)
    expect(image.at(128, 128)[3]).toBe(255)
  })

  it('shades the three visible faces of a cube differently', async () => {
    const image = pixels(await renderThumbnail(cube, cubeBox))
    const s = silhouette(image)!
    const top = image.at(Math.round(s.left + s.width / 2), Math.round(s.top + s.height / 4))
    const front = image.at(Math.round(s.left + s.width / 4), Math.round(s.top + s.height * 0.65))
    const right = image.at(Math.round(s.right - s.width / 4), Math.round(s.top + s.height * 0.65))
    const difference = (a: number[], b: number[]) =>
      Math.abs(a[0]! - b[0]!) + Math.abs(a[1]! - b[1]!) + Math.abs(a[2]! - b[2]!)
    for (const colour of [top, front, right]) expect(colour[3]).toBe(255)
    expect(difference(top, front)).toBeGreaterThan(30)
    expect(difference(front, right)).toBeGreaterThan(30)
    expect(difference(top, right)).toBeGreaterThan(30)
  })

  it('frames on the bbox, so a model 1000 mm away renders the same', async () => {
    const far = await renderThumbnail(box([1000, 1000, 1000], [1010, 1010, 1010]), {
      min: [1000, 1000, 1000],
      max: [1010, 1010, 1010],
    })
    expect(far.bytes).toEqual((await renderThumbnail(cube, cubeBox)).bytes)
  })

  it('keeps the aspect: a tall thin box is taller than it is wide', async () => {
    const s = silhouette(
      pixels(await renderThumbnail(box([0, 0, 0], [5, 5, 60]), { min: [0, 0, 0], max: [5, 5, 60] })),
    )!
    expect(s.height).toBeGreaterThan(3 * s.width)
  })

  it('leaves no cracks between adjacent triangles of a finely, unevenly tessellated plate', async () => {
    const n = 200
    const vertex = (i: number, j: number) => {
      const inner = i > 0 && i < n && j > 0 && j < n
      return [
        i + (inner ? 0.4 * Math.sin(i * 12.9898 + j * 78.233) : 0),
        j + (inner ? 0.4 * Math.cos(i * 4.1 + j * 7.7) : 0),
        0,
      ]
    }
    const plate: TriangleSource = async (sink) => {
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          const [a, b, c, d] = [vertex(i, j), vertex(i + 1, j), vertex(i + 1, j + 1), vertex(i, j + 1)] as Vec3[]
          sink.triangle(...a!, ...b!, ...c!)
          sink.triangle(...a!, ...c!, ...d!)
        }
      }
    }
    const image = pixels(await renderThumbnail(plate, { min: [0, 0, 0], max: [n, n, 0] }))
    const s = silhouette(image)!
    const centre = image.at(128, 128)
    // Every pixel well inside the diamond the plate projects to has the plate's one colour.
    for (let y = s.top; y <= s.bottom; y++) {
      for (let x = s.left; x <= s.right; x++) {
        if (Math.abs(x - 128) / (s.width / 2) + Math.abs(y - 128) / (s.height / 2) < 0.95)
          expect(image.at(x, y)).toEqual(centre)
      }
    }
  })

  it('lays the model over an opaque background when asked', async () => {
    const image = pixels(await renderThumbnail(cube, cubeBox, { background: [255, 255, 255, 255] }))
    expect(image.at(0, 0)).toEqual([255, 255, 255, 255])
    expect(image.at(128, 128)[3]).toBe(255)
    expect(image.at(128, 128)).not.toEqual([255, 255, 255, 255])
  })

  it('reads the mesh once', async () => {
    let reads = 0
    await renderThumbnail(async (sink) => {
      reads++
      await cube(sink)
    }, cubeBox)
    expect(reads).toBe(1)
  })

  it.each([
    ['an empty mesh', triangles([]), cubeBox],
    [
      'degenerate triangles',
      triangles([
        [0, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 10, 10, 10, 20, 20, 20],
        [0, 0, 0, 10, 0, 0, 10, 0, 0],
      ]),
      cubeBox,
    ],
    [
      'NaN, infinite and overflowing coordinates',
      triangles([
        [NaN, 0, 0, 10, 0, 0, 0, 10, 0],
        [0, 0, 0, Infinity, 0, 0, 0, 10, 0],
        [1e300, 0, 0, 0, 1, 0, 0, 0, 1],
      ]),
      cubeBox,
    ],
    [
      'a point mesh with a zero-size bbox',
      triangles([[1, 1, 1, 1, 1, 1, 1, 1, 1]]),
      { min: [1, 1, 1] as Vec3, max: [1, 1, 1] as Vec3 },
    ],
  ])('gives a valid, empty image for %s', async (_, mesh, bbox) => {
    expect(silhouette(pixels(await renderThumbnail(mesh, bbox)))).toBeNull()
  })

  it('still draws what it can when the bbox is NaN', async () => {
    const image = pixels(await renderThumbnail(cube, { min: [NaN, 0, 0], max: [10, 10, 10] }))
    expect(silhouette(image)).not.toBeNull()
  })

  it('draws a flat mesh whose bbox has no height', async () => {
    const flat = triangles([
      [0, 0, 0, 10, 0, 0, 10, 10, 0],
      [0, 0, 0, 10, 10, 0, 0, 10, 0],
    ])
    expect(silhouette(pixels(await renderThumbnail(flat, { min: [0, 0, 0], max: [10, 10, 0] })))).not.toBeNull()
  })

  it('rejects a size that is not a whole number of pixels from 1 to 2048', async () => {
    for (const size of [0, 2.5, 4096, NaN])
      await expect(renderThumbnail(cube, cubeBox, { size })).rejects.toThrow(RangeError)
  })

  it('renders a sphere of 1,000,000 triangles as a round silhouette', async () => {
    const s = silhouette(pixels(await renderThumbnail(sphere(500, 1000), unitSphereBox)))!
    expect(Math.abs(s.width - s.height)).toBeLessThanOrEqual(2)
    expect(s.width).toBeGreaterThan(200)
  })

  it('finishes promptly on 100,000 overlapping triangles that each fill the frame', { timeout: 20_000 }, async () => {
    const huge = Array.from({ length: 100_000 }, (_, i) => [0, 0, i / 1e4, 10, 0, i / 1e4, 0, 10, 10 - i / 1e4])
    expect(silhouette(pixels(await renderThumbnail(triangles(huge), cubeBox)))).not.toBeNull()
  })
})
