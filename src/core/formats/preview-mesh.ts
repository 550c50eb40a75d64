import type { MeshStats, TriangleSink, TriangleSource } from './types.js'

/** A mesh small enough for a browser to fetch and draw at once, standing in for a large one. */
export interface PreviewMesh {
  /** Binary STL, in a buffer of its own (so it can be transferred between threads). */
  bytes: Uint8Array<ArrayBuffer>
  triangles: number
}

/** Cells per axis are never fewer: below this a part is a blob, not a preview. */
const MIN_CELLS = 24
/** Nor more: cell numbers stay exact integers below 2⁵³. */
const MAX_CELLS = 100_000
/** Each retry makes the cells this much larger (or smaller). */
const COARSER = 0.7
/** Each pass reads the whole source mesh again. */
const MAX_PASSES = 8

/**
 * A simplified copy of a mesh by vertex clustering (Rossignac and Borrel): every vertex moves to
 * the mean of the vertices in its cell of a grid over the bounding box, triangles whose corners
 * share a cell vanish, and triangles made twice are kept once. One pass over the triangles per
 * try, with memory in proportion to the cells the surface touches, never to the source's size.
 * The grid starts at the size the surface area predicts for `maxTriangles` (one pass, most
 * often) and coarsens until the result fits, or refines while it comes out far below or smaller
 * than the mesh. Undefined when no grid gives one: a plate of many tiny parts is all or nothing.
 */
export async function previewMesh(
  replay: TriangleSource,
  mesh: Pick<MeshStats, 'bbox' | 'area'>,
  maxTriangles: number,
): Promise<PreviewMesh | undefined> {
  const longest = Math.max(...mesh.bbox.max.map((max, axis) => max - (mesh.bbox.min[axis] ?? 0)), Number.EPSILON)
  // A surface of area A meets about A / s² cells of side s, each giving about two triangles.
  let cells = Math.min(
    MAX_CELLS,
    Math.max(MIN_CELLS, Math.floor(longest / Math.sqrt((2 * Math.max(mesh.area, 0)) / maxTriangles))),
  )
  let fitting: Clustered | undefined
  /** The coarsest grid known to give too many triangles. */
  let tooFine = Number.POSITIVE_INFINITY
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const clustered = await cluster(replay, mesh.bbox.min, longest, cells, maxTriangles)
    if (clustered) {
      const faithful = keepsItsSize(clustered, mesh.bbox)
      if (faithful) fitting = clustered
      // Small bodies apart (a plate of tiny parts) vanish or flatten in cells the estimate made too large: refine.
      const refined = Math.min(MAX_CELLS, Math.ceil(cells / COARSER))
      if ((faithful && clustered.triangles >= maxTriangles / 4) || refined === cells || refined >= tooFine) break
      cells = refined
    } else {
      tooFine = cells
      if (fitting || cells === MIN_CELLS) break
      cells = Math.max(MIN_CELLS, Math.floor(cells * COARSER))
    }
  }
  // Nothing fits and keeps the mesh's size (many tiny bodies apart): no preview beats a misleading one.
  return fitting && fitting.triangles > 0 ? toStl(fitting) : undefined
}

interface Clustered {
  /** Per cell: the sum of its vertices' coordinates and their count. */
  sums: Float64Array
  /** Corners of each kept triangle, as cell numbers into `sums`. */
  corners: Uint32Array
  triangles: number
}

/** One clustering pass, `cells` to the longest side; undefined once more than `maxTriangles` come out. */
async function cluster(
  replay: TriangleSource,
  origin: readonly number[],
  longest: number,
  cells: number,
  maxTriangles: number,
): Promise<Clustered | undefined> {
  const [ox = 0, oy = 0, oz = 0] = origin
  const cellSize = longest / cells
  // A coordinate on the box's far side falls in cell `cells`: one more than the grid.
  const span = cells + 1
  const cellOf = new Map<number, number>()
  let sums = new Float64Array(4 * 1024)
  let corners = new Uint32Array(3 * 1024)
  let triangles = 0
  const seen = new Set<string>()
  let overflow = false
  const vertex = (x: number, y: number, z: number) => {
    const key =
      Math.floor((x - ox) / cellSize) +
      span * (Math.floor((y - oy) / cellSize) + span * Math.floor((z - oz) / cellSize))
    let cell = cellOf.get(key)
    if (cell === undefined) {
      cell = cellOf.size
      cellOf.set(key, cell)
      if (4 * (cell + 1) > sums.length) sums = grow(sums)
    }
    sums[4 * cell] = (sums[4 * cell] ?? 0) + x
    sums[4 * cell + 1] = (sums[4 * cell + 1] ?? 0) + y
    sums[4 * cell + 2] = (sums[4 * cell + 2] ?? 0) + z
    sums[4 * cell + 3] = (sums[4 * cell + 3] ?? 0) + 1
    return cell
  }
  const sink: TriangleSink = {
    triangle(ax, ay, az, bx, by, bz, cx, cy, cz) {
      if (overflow) return
      const a = vertex(ax, ay, az)
      const b = vertex(bx, by, bz)
      const c = vertex(cx, cy, cz)
      if (a === b || b === c || a === c) return
      // The same three cells in the same turning order are the same triangle.
      const first = Math.min(a, b, c)
      const key = first === a ? `${a},${b},${c}` : first === b ? `${b},${c},${a}` : `${c},${a},${b}`
      if (seen.has(key)) return
      seen.add(key)
      if (triangles === maxTriangles) {
        overflow = true
        return
      }
      if (3 * (triangles + 1) > corners.length) corners = grow(corners)
      corners.set([a, b, c], 3 * triangles)
      triangles++
    },
  }
  await replay(sink)
  return overflow ? undefined : { sums, corners, triangles }
}

/** Each side of the box the kept triangles span, within this share of the mesh's own. */
const SIZE_KEPT = 0.9

/** Whether the kept triangles still span the mesh's bounding box: a preview must not shrink or flatten it. */
function keepsItsSize({ sums, corners, triangles }: Clustered, bbox: MeshStats['bbox']): boolean {
  if (triangles === 0) return false
  const min = [Infinity, Infinity, Infinity]
  const max = [-Infinity, -Infinity, -Infinity]
  for (let i = 0; i < 3 * triangles; i++) {
    const cell = corners[i] ?? 0
    const count = sums[4 * cell + 3] ?? 1
    for (let axis = 0; axis < 3; axis++) {
      const value = (sums[4 * cell + axis] ?? 0) / count
      if (value < (min[axis] ?? 0)) min[axis] = value
      if (value > (max[axis] ?? 0)) max[axis] = value
    }
  }
  return [0, 1, 2].every(
    (axis) => (max[axis] ?? 0) - (min[axis] ?? 0) >= SIZE_KEPT * ((bbox.max[axis] ?? 0) - (bbox.min[axis] ?? 0)) - 1e-9,
  )
}

function grow<T extends Float64Array | Uint32Array>(array: T): T {
  const grown = new (array.constructor as new (length: number) => T)(array.length * 2)
  grown.set(array)
  return grown
}

/** Binary STL: an 80-byte header, the count, then per triangle its normal, three corners and two spare bytes. */
function toStl({ sums, corners, triangles }: Clustered): PreviewMesh {
  const bytes = new Uint8Array(84 + 50 * triangles)
  bytes.set(new TextEncoder().encode('model-vault preview mesh (vertex clustering)'))
  const view = new DataView(bytes.buffer)
  view.setUint32(80, triangles, true)
  const point = (cell: number) => {
    const count = sums[4 * cell + 3] ?? 1
    return [(sums[4 * cell] ?? 0) / count, (sums[4 * cell + 1] ?? 0) / count, (sums[4 * cell + 2] ?? 0) / count]
  }
  for (let t = 0; t < triangles; t++) {
    const [a = [0, 0, 0], b = [0, 0, 0], c = [0, 0, 0]] = [0, 1, 2].map((k) => point(corners[3 * t + k] ?? 0))
    const at = 84 + 50 * t
    const normal = unitNormal(a, b, c)
    for (const [i, value] of [...normal, ...a, ...b, ...c].entries()) view.setFloat32(at + 4 * i, value, true)
  }
  return { bytes, triangles }
}

function unitNormal(a: number[], b: number[], c: number[]): [number, number, number] {
  const [ux = 0, uy = 0, uz = 0] = b.map((value, i) => value - (a[i] ?? 0))
  const [vx = 0, vy = 0, vz = 0] = c.map((value, i) => value - (a[i] ?? 0))
  const n: [number, number, number] = [uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx]
  const length = Math.hypot(...n) || 1
  return [n[0] / length, n[1] / length, n[2] / length]
}
