import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { call, type Reply } from './accounts.js'
import { prusaSlicer, SHAPES } from './prusa-slicer.js'

/** Uploads `bytes` as multipart field `file` (plus text fields), the way the web UI does. */
export async function upload(
  baseUrl: string,
  token: string,
  name: string,
  bytes: Uint8Array | string,
  fields: Record<string, string> = {},
): Promise<Reply> {
  const form = new FormData()
  for (const [key, value] of Object.entries(fields)) form.append(key, value)
  form.append('file', new Blob([typeof bytes === 'string' ? bytes : new Uint8Array(bytes)]), name)
  const res = await fetch(`${baseUrl}/api/v1/ingest`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}` },
    body: form,
  })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers }
}

/**
 * G-code of about `mib` MiB whose body is random text: it compresses poorly, so reading its
 * archive back takes a while. Its settings block is long (as a slicer's is), which makes the
 * database dump too big to pass through the pipes of a PostgreSQL swap in one go.
 */
export function bulkyGcode(mib: number): string {
  const body = randomBytes(mib * 786_432)
    .toString('base64')
    .replace(/.{76}/g, '; $&\n')
  const settings = Array.from({ length: 400 }, (_, i) => `; setting_${i} = ${randomBytes(48).toString('hex')}`).join(
    '\n',
  )
  return `; bulky test G-code\nG28\n${body}\nG1 X10 Y10\n${settings}\n`
}

/** Uploads `bytes` as a raw PUT body, the way `curl -T` does. */
export function putRaw(
  baseUrl: string,
  token: string,
  name: string,
  bytes: Uint8Array | string,
  query = '',
): Promise<Reply> {
  return call(baseUrl, 'PUT', `/api/v1/ingest/${encodeURIComponent(name)}${query}`, {
    token,
    body: typeof bytes === 'string' ? bytes : (new Uint8Array(bytes) as unknown as string),
    headers: { 'Content-Type': 'application/octet-stream' },
  })
}

/** A closed cube of edge `size` mm with its corner at `offset`, as binary STL (12 triangles). */
export function binaryCube(size = 20, offset = 0): Uint8Array {
  return binaryStl(cubeTriangles(size, offset))
}

/**
 * `count` 5 mm cubes, 6 mm apart in rows of 100, as one binary STL of 84 + 600 × `count` bytes: a
 * real mesh of whatever size a test about big files needs (built by copying, so 50 MB is quick).
 */
export function cubeField(count: number): Uint8Array {
  const cube = binaryCube(5).subarray(84)
  const bytes = new Uint8Array(84 + cube.length * count)
  const view = new DataView(bytes.buffer)
  view.setUint32(80, 12 * count, true)
  for (let n = 0; n < count; n++) {
    const at = 84 + n * cube.length
    bytes.set(cube, at)
    // Each triangle's three vertices (after its normal): move x along the row, y to the row.
    for (let vertex = 0; vertex < 36; vertex++) {
      const x = at + Math.floor(vertex / 3) * 50 + 12 + (vertex % 3) * 12
      view.setFloat32(x, view.getFloat32(x, true) + (n % 100) * 6, true)
      view.setFloat32(x + 4, view.getFloat32(x + 4, true) + Math.floor(n / 100) * 6, true)
    }
  }
  return bytes
}

function binaryStl(triangles: number[][][]): Uint8Array {
  const bytes = new Uint8Array(84 + 50 * triangles.length)
  const view = new DataView(bytes.buffer)
  view.setUint32(80, triangles.length, true)
  for (const [i, triangle] of triangles.entries()) {
    for (const [j, value] of triangle.flat().entries()) view.setFloat32(84 + i * 50 + 12 + j * 4, value, true)
  }
  return bytes
}

/** The same cube as ASCII STL. */
export function asciiCube(size = 20, offset = 0): string {
  const facets = cubeTriangles(size, offset).map(
    (triangle) =>
      `facet normal 0 0 0\n outer loop\n${triangle.map((v) => `  vertex ${v.join(' ')}`).join('\n')}\n endloop\nendfacet`,
  )
  return `solid cube\n${facets.join('\n')}\nendsolid cube\n`
}

/** The 12 triangles of a cube of side `s` from (o, o, o), wound outwards. */
export function cubeTriangles(s: number, o = 0): number[][][] {
  return boxTriangles([s, s, s], o)
}

/** The 12 triangles of an `x` × `y` × `z` box from (o, o, o), wound outwards: each axis can be told apart. */
export function boxTriangles([x, y, z]: [number, number, number], o = 0): number[][][] {
  const v = (i: number, j: number, k: number) => [o + i * x, o + j * y, o + k * z]
  const quads = [
    [v(0, 0, 0), v(0, 1, 0), v(1, 1, 0), v(1, 0, 0)],
    [v(0, 0, 1), v(1, 0, 1), v(1, 1, 1), v(0, 1, 1)],
    [v(0, 0, 0), v(1, 0, 0), v(1, 0, 1), v(0, 0, 1)],
    [v(0, 1, 0), v(0, 1, 1), v(1, 1, 1), v(1, 1, 0)],
    [v(0, 0, 0), v(0, 0, 1), v(0, 1, 1), v(0, 1, 0)],
    [v(1, 0, 0), v(1, 1, 0), v(1, 1, 1), v(1, 0, 1)],
  ]
  return quads.flatMap(([a, b, c, d]) => [
    [a!, b!, c!],
    [a!, c!, d!],
  ])
}

/** A closed box of `x` × `y` × `z` mm as binary STL (12 triangles). */
export function binaryBox(x: number, y: number, z: number): Uint8Array {
  return binaryStl(boxTriangles([x, y, z]))
}

/**
 * A shapes-gallery STL sliced to G-code (objects labelled, as OctoPrint's Cancel Object and
 * Klipper need) and exported to 3MF by the real slicer, in a temp dir.
 */
export function sliceShape(shape: string): { dir: string; stl: Buffer; gcode: Buffer; threeMf: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'vault-slice-'))
  const stlPath = join(SHAPES, `${shape}.stl`)
  prusaSlicer('--export-gcode', '--gcode-label-objects', stlPath, '--output', join(dir, `${shape}.gcode`))
  prusaSlicer('--export-3mf', stlPath, '--output', join(dir, `${shape}.3mf`))
  return {
    dir,
    stl: readFileSync(stlPath),
    gcode: readFileSync(join(dir, `${shape}.gcode`)),
    threeMf: readFileSync(join(dir, `${shape}.3mf`)),
  }
}
