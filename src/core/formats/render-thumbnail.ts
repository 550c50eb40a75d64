import { encode } from 'fast-png'
import type { Thumbnail, TriangleSink, TriangleSource, Vec3 } from './types.js'

export interface RenderThumbnailOptions {
  /** Width and height of the square image, in pixels: an integer from 1 to 2048. Default 256. */
  size?: number
  /** RGBA, each 0 to 255, behind the model. Default transparent. */
  background?: [r: number, g: number, b: number, a: number]
}

const MAX_SIZE = 2048
/** Samples per output pixel along each axis, lowered for large sizes to bound memory. */
const SUPERSAMPLE = 3
const MAX_RENDER_SIZE = 2048
/** Room left around the bbox while rasterising, so the filter never clips an edge. */
const RENDER_MARGIN = 0.02
/** Room left around the model in the finished image, as a fraction of its side. */
const OUTPUT_MARGIN = 0.06
/** Vertices snap to 1/256 pixel; edge functions are then exact integers, so shared edges never crack. */
const SUBPIXEL = 256
const PIXEL_CENTRE = SUBPIXEL / 2
/**
 * Pixel tests allowed beyond a small allowance per triangle, in whole frames. Real meshes
 * stay far below it; a mesh of huge overlapping triangles would otherwise take minutes.
 */
const OVERDRAW_FRAMES = 128
const TRIANGLE_ALLOWANCE = 32

/** Slicer-style orange, sRGB. */
const MODEL_COLOUR: Vec3 = [242, 128, 38]

function normalize(v: Vec3): Vec3 {
  const length = Math.hypot(v[0], v[1], v[2])
  return [v[0] / length, v[1] / length, v[2] / length]
}

function dot(a: Vec3, b: Vec3): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

function combine(...terms: [weight: number, v: Vec3][]): Vec3 {
  return normalize(
    terms.reduce<Vec3>((sum, [w, v]) => [sum[0] + w * v[0], sum[1] + w * v[1], sum[2] + w * v[2]], [0, 0, 0]),
  )
}

// The camera looks from front-right-above (azimuth 45°, elevation 30°), Z up, front = -Y, as slicers show a plate.
const AZIMUTH = Math.PI / 4
const ELEVATION = Math.PI / 6
/** Towards the camera. */
const VIEW: Vec3 = [
  Math.sin(AZIMUTH) * Math.cos(ELEVATION),
  -Math.cos(AZIMUTH) * Math.cos(ELEVATION),
  Math.sin(ELEVATION),
]
const RIGHT = normalize([-VIEW[1], VIEW[0], 0])
const UP: Vec3 = [
  VIEW[1] * RIGHT[2] - VIEW[2] * RIGHT[1],
  VIEW[2] * RIGHT[0] - VIEW[0] * RIGHT[2],
  VIEW[0] * RIGHT[1] - VIEW[1] * RIGHT[0],
]
// A key light above and left of the camera, so top, front and right faces of a box read as three tones.
const KEY_LIGHT = combine([1, VIEW], [0.9, UP], [-0.6, RIGHT])
const FILL_LIGHT = combine([1, VIEW], [-0.3, UP], [1, RIGHT])
const HIGHLIGHT = combine([1, KEY_LIGHT], [1, VIEW])

/** Colour of a face with unit normal n (already turned towards the camera), packed 0xBBGGRR. */
function shade(nx: number, ny: number, nz: number): number {
  const key = Math.max(0, nx * KEY_LIGHT[0] + ny * KEY_LIGHT[1] + nz * KEY_LIGHT[2])
  const fill = Math.max(0, nx * FILL_LIGHT[0] + ny * FILL_LIGHT[1] + nz * FILL_LIGHT[2])
  const sky = 0.5 + 0.5 * nz
  const intensity = 0.2 + 0.12 * sky + 0.68 * key + 0.22 * fill
  const highlight = 60 * Math.max(0, nx * HIGHLIGHT[0] + ny * HIGHLIGHT[1] + nz * HIGHLIGHT[2]) ** 24
  const r = Math.min(255, Math.round(MODEL_COLOUR[0] * intensity + highlight))
  const g = Math.min(255, Math.round(MODEL_COLOUR[1] * intensity + highlight))
  const b = Math.min(255, Math.round(MODEL_COLOUR[2] * intensity + highlight))
  return r | (g << 8) | (b << 16)
}

/** The supersampled image: a colour and a depth (towards the camera, -Infinity where empty) per pixel. */
interface Layer {
  side: number
  colour: Uint32Array
  depth: Float32Array
}

/**
 * A sink that rasterises each triangle into the layer as it arrives. The orthographic
 * projection fits the bbox into the layer, whatever the mesh's position or units.
 */
function createRasterizer(layer: Layer, bbox: { min: Vec3; max: Vec3 }): TriangleSink {
  const { side, colour, depth } = layer
  const centre = bbox.min.map((min, i) => (min + bbox.max[i]!) / 2) as Vec3
  const extent = bbox.min.map((min, i) => (bbox.max[i]! - min) / 2) as Vec3
  const projectedHalf = Math.max(dot(extent, RIGHT.map(Math.abs) as Vec3), dot(extent, UP.map(Math.abs) as Vec3))
  const framed = centre.every(Number.isFinite) && projectedHalf > 0 && Number.isFinite(projectedHalf)
  const [cx, cy, cz] = framed ? centre : [0, 0, 0]
  const pixelsPerUnit = (side * (1 - 2 * RENDER_MARGIN)) / (2 * (framed ? projectedHalf : 1))
  const k = pixelsPerUnit * SUBPIXEL
  const origin = (side * SUBPIXEL) / 2
  // Screen x runs along RIGHT, screen y down, against UP.
  const rx = RIGHT[0] * k,
    ry = RIGHT[1] * k,
    rz = RIGHT[2] * k
  const ux = -UP[0] * k,
    uy = -UP[1] * k,
    uz = -UP[2] * k
  const [vx, vy, vz] = VIEW
  let budget = OVERDRAW_FRAMES * side * side

  return {
    triangle(ax, ay, az, bx, by, bz, qx, qy, qz) {
      // Normal in model space, turned towards the camera: STL winding is often wrong.
      const e1x = bx - ax,
        e1y = by - ay,
        e1z = bz - az
      const e2x = qx - ax,
        e2y = qy - ay,
        e2z = qz - az
      let nx = e1y * e2z - e1z * e2y,
        ny = e1z * e2x - e1x * e2z,
        nz = e1x * e2y - e1y * e2x
      const length = Math.sqrt(nx * nx + ny * ny + nz * nz)
      if (!(length > 0 && length < Infinity)) return // degenerate, NaN or infinite
      if (nx * vx + ny * vy + nz * vz < 0) {
        nx = -nx
        ny = -ny
        nz = -nz
      }
      const rgb = shade(nx / length, ny / length, nz / length)

      ax -= cx
      ay -= cy
      az -= cz
      bx -= cx
      by -= cy
      bz -= cz
      qx -= cx
      qy -= cy
      qz -= cz
      let x0 = Math.round(origin + ax * rx + ay * ry + az * rz),
        y0 = Math.round(origin + ax * ux + ay * uy + az * uz)
      let x1 = Math.round(origin + bx * rx + by * ry + bz * rz),
        y1 = Math.round(origin + bx * ux + by * uy + bz * uz)
      const x2 = Math.round(origin + qx * rx + qy * ry + qz * rz),
        y2 = Math.round(origin + qx * ux + qy * uy + qz * uz)
      let z0 = ax * vx + ay * vy + az * vz,
        z1 = bx * vx + by * vy + bz * vz
      const z2 = qx * vx + qy * vy + qz * vz
      let area = (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0)
      if (area === 0 || !Number.isFinite(area)) return // edge-on (its neighbours cover the pixels) or out of range
      if (area < 0) {
        const x = x0,
          y = y0,
          z = z0
        x0 = x1
        y0 = y1
        z0 = z1
        x1 = x
        y1 = y
        z1 = z
        area = -area
      }

      // Pixels whose centres lie in the triangle's bounds, clipped to the layer.
      const left = Math.max(0, Math.ceil((Math.min(x0, x1, x2) - PIXEL_CENTRE) / SUBPIXEL))
      const right = Math.min(side - 1, Math.floor((Math.max(x0, x1, x2) - PIXEL_CENTRE) / SUBPIXEL))
      const top = Math.max(0, Math.ceil((Math.min(y0, y1, y2) - PIXEL_CENTRE) / SUBPIXEL))
      const bottom = Math.min(side - 1, Math.floor((Math.max(y0, y1, y2) - PIXEL_CENTRE) / SUBPIXEL))
      if (left > right || top > bottom) return
      budget += TRIANGLE_ALLOWANCE - (right - left + 1) * (bottom - top + 1)
      if (budget < 0) return

      // Edge functions, each positive inside and zero on its edge, at the first pixel centre;
      // w0 weighs vertex 0 (the edge 1→2), and so on. Every term is an exact integer.
      const px = left * SUBPIXEL + PIXEL_CENTRE,
        py = top * SUBPIXEL + PIXEL_CENTRE
      let w0Row = (x2 - x1) * (py - y1) - (y2 - y1) * (px - x1)
      let w1Row = (x0 - x2) * (py - y2) - (y0 - y2) * (px - x2)
      let w2Row = (x1 - x0) * (py - y0) - (y1 - y0) * (px - x0)
      const w0dx = -(y2 - y1) * SUBPIXEL,
        w1dx = -(y0 - y2) * SUBPIXEL,
        w2dx = -(y1 - y0) * SUBPIXEL
      const w0dy = (x2 - x1) * SUBPIXEL,
        w1dy = (x0 - x2) * SUBPIXEL,
        w2dy = (x1 - x0) * SUBPIXEL
      const zScale = 1 / area
      for (let y = top; y <= bottom; y++) {
        let w0 = w0Row,
          w1 = w1Row,
          w2 = w2Row
        for (let i = y * side + left, end = y * side + right; i <= end; i++) {
          if (w0 >= 0 && w1 >= 0 && w2 >= 0) {
            const z = (w0 * z0 + w1 * z1 + w2 * z2) * zScale
            if (z > depth[i]!) {
              depth[i] = z
              colour[i] = rgb
            }
          }
          w0 += w0dx
          w1 += w1dx
          w2 += w2dx
        }
        w0Row += w0dy
        w1Row += w1dy
        w2Row += w2dy
      }
    },
  }
}

/** For each output pixel along one axis, the source pixels it covers and their weights (summing to 1). */
function boxFilter(outputs: number, start: number, step: number, sources: number) {
  const taps = Math.ceil(step) + 1
  const first = new Int32Array(outputs)
  const weights = new Float64Array(outputs * taps)
  for (let o = 0; o < outputs; o++) {
    const from = start + o * step,
      to = from + step
    first[o] = Math.floor(from)
    for (let t = 0; t < taps; t++) {
      const s = first[o]! + t
      if (s < 0 || s >= sources) continue
      weights[o * taps + t] = Math.max(0, Math.min(to, s + 1) - Math.max(from, s)) / step
    }
  }
  return { taps, first, weights }
}

/**
 * Crops the layer to a square around what was drawn (with a margin), box-filters it down to
 * `size` and lays it over the background, as RGBA bytes.
 */
function compose(layer: Layer, size: number, background: [number, number, number, number]): Uint8ClampedArray {
  const { side, colour, depth } = layer
  let minX = side,
    minY = side,
    maxX = -1,
    maxY = -1
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      if (depth[y * side + x] === -Infinity) continue
      if (x < minX) minX = x
      if (x > maxX) maxX = x
      if (y < minY) minY = y
      if (y > maxY) maxY = y
    }
  }
  const out = new Uint8ClampedArray(size * size * 4)
  const [bgR, bgG, bgB] = background
  const bgA = background[3] / 255
  for (let channel = 0; channel < 4; channel++) {
    for (let i = channel; i < out.length; i += 4) out[i] = background[channel]!
  }
  if (maxX < 0) return out

  // Never magnify past one layer pixel per output pixel.
  const crop = Math.max(size, Math.max(maxX - minX + 1, maxY - minY + 1) / (1 - 2 * OUTPUT_MARGIN))
  const step = crop / size
  const columns = boxFilter(size, (minX + maxX + 1 - crop) / 2, step, side)
  const rows = boxFilter(size, (minY + maxY + 1 - crop) / 2, step, side)
  const sum = new Float64Array(size * 4)
  for (let oy = 0; oy < size; oy++) {
    sum.fill(0)
    for (let ty = 0; ty < rows.taps; ty++) {
      const wy = rows.weights[oy * rows.taps + ty]!
      if (wy === 0) continue
      const row = (rows.first[oy]! + ty) * side
      for (let ox = 0; ox < size; ox++) {
        let r = 0,
          g = 0,
          b = 0,
          a = 0
        for (let tx = 0; tx < columns.taps; tx++) {
          const w = columns.weights[ox * columns.taps + tx]!
          const i = row + columns.first[ox]! + tx
          if (w === 0 || depth[i] === -Infinity) continue
          const rgb = colour[i]!
          r += w * (rgb & 0xff)
          g += w * ((rgb >> 8) & 0xff)
          b += w * ((rgb >> 16) & 0xff)
          a += w
        }
        sum[ox * 4] = sum[ox * 4]! + wy * r
        sum[ox * 4 + 1] = sum[ox * 4 + 1]! + wy * g
        sum[ox * 4 + 2] = sum[ox * 4 + 2]! + wy * b
        sum[ox * 4 + 3] = sum[ox * 4 + 3]! + wy * a
      }
    }
    for (let ox = 0; ox < size; ox++) {
      const coverage = Math.min(1, sum[ox * 4 + 3]!)
      if (coverage === 0) continue
      const behind = bgA * (1 - coverage)
      const alpha = coverage + behind
      const o = (oy * size + ox) * 4
      out[o] = (sum[ox * 4]! + bgR * behind) / alpha
      out[o + 1] = (sum[ox * 4 + 1]! + bgG * behind) / alpha
      out[o + 2] = (sum[ox * 4 + 2]! + bgB * behind) / alpha
      out[o + 3] = Math.round(alpha * 255)
    }
  }
  return out
}

/**
 * Renders a shaded PNG of a mesh on the CPU, the way a slicer shows a part: orthographic,
 * from front-right-above with Z up, in one colour under a key and a fill light, supersampled
 * for smooth edges and framed on what was drawn. The mesh is read once and each triangle is
 * drawn as it arrives, so memory is the image buffers whatever the triangle count; `bbox`
 * sets the projection up front. Degenerate and non-finite triangles are skipped; a mesh
 * with nothing to draw gives an image of the background. Throws RangeError for a bad size.
 */
export async function renderThumbnail(
  mesh: TriangleSource,
  bbox: { min: Vec3; max: Vec3 },
  options: RenderThumbnailOptions = {},
): Promise<Thumbnail> {
  const { size = 256, background = [0, 0, 0, 0] } = options
  if (!Number.isInteger(size) || size < 1 || size > MAX_SIZE) {
    throw new RangeError(`Thumbnail size must be an integer from 1 to ${MAX_SIZE}, not ${size}`)
  }
  const side = size * Math.max(1, Math.min(SUPERSAMPLE, Math.floor(MAX_RENDER_SIZE / size)))
  const layer: Layer = {
    side,
    colour: new Uint32Array(side * side),
    depth: new Float32Array(side * side).fill(-Infinity),
  }
  await mesh(createRasterizer(layer, bbox))
  const data = compose(layer, size, background)
  return {
    width: size,
    height: size,
    contentType: 'image/png',
    bytes: encode({ width: size, height: size, data, channels: 4, depth: 8 }),
  }
}
