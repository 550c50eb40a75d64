import type { MeshStats, TriangleSink, Vec3 } from './types.js'

export interface MeshStatsOptions {
  /**
   * How many distinct edges the manifold check may track before it gives up and reports
   * `manifold: null`; it also gives up past half as many distinct vertices. The default
   * (6 million edges: a closed mesh of 4 million triangles) peaks at about 200 MB of tables,
   * 250 MB for a mesh of unshared vertices; other figures need no memory.
   */
  maxManifoldEdges?: number
}

/** Vertex ids are packed two to a float64 edge key, so they must stay below 2^26. */
const MAX_TRACKED = 2 ** 26
const EMPTY = -1

/**
 * A sink that measures the triangles sent to it: count, bounding box, size, enclosed volume
 * (sum of signed tetrahedra against the origin, made absolute at the end), surface area, and
 * whether every edge is shared by exactly two triangles.
 *
 * The manifold check keys vertices by their exact coordinates (-0 equals 0) and ignores
 * triangles with two identical corners (PrusaSlicer drops those on import too). Figures
 * agree with `prusa-slicer --info`, except that PrusaSlicer first repairs the mesh: it welds
 * vertices closer than the shortest edge, drops triangles with no connected edge (so it
 * counts fewer facets and calls a lone triangle an empty file) and counts an edge shared by
 * four triangles as closed. An empty mesh has zero figures and is not manifold.
 */
export function createMeshStats(options: MeshStatsOptions = {}): TriangleSink & { finish(): MeshStats } {
  const figures = createMeshFigures()
  let edges: EdgeCounter | null = createEdgeCounter(Math.min(options.maxManifoldEdges ?? 6_000_000, MAX_TRACKED - 4))

  return {
    triangle(ax, ay, az, bx, by, bz, cx, cy, cz) {
      figures.triangle(ax, ay, az, bx, by, bz, cx, cy, cz)
      if (edges !== null && !edges.addTriangle(ax, ay, az, bx, by, bz, cx, cy, cz)) edges = null
    },
    finish: () => statsOf(figures.finish(), edges === null ? null : edges.everyEdgeSharedByTwo()),
  }
}

/** MeshStats from summed figures; an empty mesh has zero figures and is not manifold. */
export function statsOf({ triangles, min, max, volume6, area2 }: MeshFigures, manifold: boolean | null): MeshStats {
  if (triangles === 0) {
    return { triangles, bbox: { min: [0, 0, 0], max: [0, 0, 0] }, size: [0, 0, 0], volume: 0, area: 0, manifold: false }
  }
  return {
    triangles,
    bbox: { min, max },
    size: [max[0] - min[0], max[1] - min[1], max[2] - min[2]],
    volume: Math.abs(volume6) / 6,
    area: area2 / 2,
    manifold,
  }
}

/** The additive figures of a set of triangles, from which MeshStats follow. */
export interface MeshFigures {
  triangles: number
  /** Infinity and -Infinity when there are no triangles. */
  min: Vec3
  max: Vec3
  /** Six times the signed volume (tetrahedra against the origin). */
  volume6: number
  /**
   * Sum of the triangles' (b - a) × (c - a), zero for a closed mesh: moving the triangles by t
   * adds t · normals to volume6, so figures of a translated copy need no second pass.
   */
  normals: Vec3
  /** Twice the surface area. */
  area2: number
}

/** A sink that sums MeshFigures: everything of createMeshStats but the manifold check, in no memory. */
export function createMeshFigures(): TriangleSink & { finish(): MeshFigures } {
  let triangles = 0
  let minX = Infinity,
    minY = Infinity,
    minZ = Infinity
  let maxX = -Infinity,
    maxY = -Infinity,
    maxZ = -Infinity
  let volume6 = 0
  let area2 = 0
  let sumX = 0,
    sumY = 0,
    sumZ = 0
  return {
    triangle(ax, ay, az, bx, by, bz, cx, cy, cz) {
      triangles++
      minX = Math.min(minX, ax, bx, cx)
      minY = Math.min(minY, ay, by, cy)
      minZ = Math.min(minZ, az, bz, cz)
      maxX = Math.max(maxX, ax, bx, cx)
      maxY = Math.max(maxY, ay, by, cy)
      maxZ = Math.max(maxZ, az, bz, cz)

      volume6 += ax * (by * cz - bz * cy) + ay * (bz * cx - bx * cz) + az * (bx * cy - by * cx)
      const ux = bx - ax,
        uy = by - ay,
        uz = bz - az
      const vx = cx - ax,
        vy = cy - ay,
        vz = cz - az
      const nx = uy * vz - uz * vy,
        ny = uz * vx - ux * vz,
        nz = ux * vy - uy * vx
      sumX += nx
      sumY += ny
      sumZ += nz
      area2 += Math.sqrt(nx * nx + ny * ny + nz * nz)
    },
    finish: () => ({
      triangles,
      min: [minX, minY, minZ],
      max: [maxX, maxY, maxZ],
      volume6,
      normals: [sumX, sumY, sumZ],
      area2,
    }),
  }
}

interface EdgeCounter {
  /** false once the edge budget is exceeded: the counter has then let go of its memory. */
  addTriangle(
    ax: number,
    ay: number,
    az: number,
    bx: number,
    by: number,
    bz: number,
    cx: number,
    cy: number,
    cz: number,
  ): boolean
  everyEdgeSharedByTwo(): boolean
}

/**
 * Open-addressing hash tables over typed arrays: vertices (exact coordinates to a dense
 * id) and undirected edges (id pair to a use count, saturating at 3). Counting the edges
 * used exactly twice as they change avoids a final scan.
 */
function createEdgeCounter(maxEdges: number): EdgeCounter {
  const bits = new Float64Array(1)
  const words = new Uint32Array(bits.buffer)
  const mixCoordinate = (hash: number, value: number) => {
    bits[0] = value + 0 // -0 + 0 is +0, so both zeros share a key
    hash = Math.imul(hash ^ words[0]!, 0x9e3779b1)
    hash = Math.imul((hash << 13) | (hash >>> 19), 0x85ebca77)
    hash = Math.imul(hash ^ words[1]!, 0x9e3779b1)
    return Math.imul((hash << 13) | (hash >>> 19), 0x85ebca77)
  }
  const finalize = (hash: number) => {
    hash ^= hash >>> 16
    hash = Math.imul(hash, 0x7feb352d)
    hash ^= hash >>> 15
    hash = Math.imul(hash, 0x846ca68b)
    return (hash ^ (hash >>> 16)) >>> 0
  }
  const hashVertex = (x: number, y: number, z: number) =>
    finalize(mixCoordinate(mixCoordinate(mixCoordinate(0x2545f491, x), y), z))
  const hashEdge = (low: number, high: number) =>
    finalize(Math.imul(low, 0x9e3779b1) ^ Math.imul(high ^ 0x2545f491, 0x85ebca77))

  let coords = new Float64Array(3 * 1024)
  let vertexCount = 0
  let vertexSlots = new Int32Array(2048).fill(EMPTY)

  let edgeKeys = new Float64Array(4096).fill(EMPTY)
  let edgeUses = new Uint8Array(4096)
  let edgeCount = 0
  let edgesUsedTwice = 0

  const vertexId = (x: number, y: number, z: number): number => {
    const mask = vertexSlots.length - 1
    for (let slot = hashVertex(x, y, z) & mask; ; slot = (slot + 1) & mask) {
      const id = vertexSlots[slot]!
      if (id === EMPTY) {
        if (vertexCount * 3 === coords.length) coords = grow(coords, coords.length * 2)
        coords[vertexCount * 3] = x
        coords[vertexCount * 3 + 1] = y
        coords[vertexCount * 3 + 2] = z
        vertexSlots[slot] = vertexCount
        if (++vertexCount * 2 > vertexSlots.length) rehashVertices()
        return vertexCount - 1
      }
      if (coords[id * 3] === x && coords[id * 3 + 1] === y && coords[id * 3 + 2] === z) return id
    }
  }
  const rehashVertices = () => {
    vertexSlots = new Int32Array(vertexSlots.length * 2).fill(EMPTY)
    const mask = vertexSlots.length - 1
    for (let id = 0; id < vertexCount; id++) {
      let slot = hashVertex(coords[id * 3]!, coords[id * 3 + 1]!, coords[id * 3 + 2]!) & mask
      while (vertexSlots[slot] !== EMPTY) slot = (slot + 1) & mask
      vertexSlots[slot] = id
    }
  }

  const addEdge = (a: number, b: number): void => {
    const low = Math.min(a, b)
    const high = Math.max(a, b)
    const key = low * MAX_TRACKED + high
    const mask = edgeKeys.length - 1
    let slot = hashEdge(low, high) & mask
    for (; edgeKeys[slot] !== key; slot = (slot + 1) & mask) {
      if (edgeKeys[slot] === EMPTY) {
        edgeKeys[slot] = key
        edgeCount++
        break
      }
    }
    const uses = edgeUses[slot]!
    if (uses < 3) edgeUses[slot] = uses + 1
    if (uses === 1) edgesUsedTwice++
    else if (uses === 2) edgesUsedTwice--
    if (edgeCount * 4 > edgeKeys.length * 3) rehashEdges()
  }
  const rehashEdges = () => {
    const oldKeys = edgeKeys
    const oldUses = edgeUses
    edgeKeys = new Float64Array(oldKeys.length * 2).fill(EMPTY)
    edgeUses = new Uint8Array(oldKeys.length * 2)
    const mask = edgeKeys.length - 1
    for (let old = 0; old < oldKeys.length; old++) {
      const key = oldKeys[old]!
      if (key === EMPTY) continue
      const low = Math.floor(key / MAX_TRACKED)
      let slot = hashEdge(low, key - low * MAX_TRACKED) & mask
      while (edgeKeys[slot] !== EMPTY) slot = (slot + 1) & mask
      edgeKeys[slot] = key
      edgeUses[slot] = oldUses[old]!
    }
  }

  return {
    addTriangle(ax, ay, az, bx, by, bz, cx, cy, cz) {
      const a = vertexId(ax, ay, az)
      const b = vertexId(bx, by, bz)
      const c = vertexId(cx, cy, cz)
      if (a !== b && b !== c && a !== c) {
        addEdge(a, b)
        addEdge(b, c)
        addEdge(c, a)
      }
      if (edgeCount <= maxEdges && vertexCount <= maxEdges / 2) return true
      coords = new Float64Array(0)
      vertexSlots = new Int32Array(0)
      edgeKeys = new Float64Array(0)
      edgeUses = new Uint8Array(0)
      return false
    },
    everyEdgeSharedByTwo: () => edgeCount > 0 && edgesUsedTwice === edgeCount,
  }
}

function grow(array: Float64Array, length: number): Float64Array<ArrayBuffer> {
  const larger = new Float64Array(length)
  larger.set(array)
  return larger
}
