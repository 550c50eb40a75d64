import { forEachChunk, forEachLine } from './byte-source.js'
import { type ByteSource, FormatError, type TriangleSink } from './types.js'

export interface StlInfo {
  encoding: 'ascii' | 'binary'
  /** The name after `solid` in an ASCII STL, when there is one. */
  solidName?: string
}

const HEADER_BYTES = 84
const FACET_BYTES = 50

/**
 * Streams the triangles of an STL file into `sink`, reading the file once from start to end
 * with memory independent of its size. A file is binary when its size is exactly what its
 * triangle count says (84 + 50 n bytes), whatever its header text; otherwise it must be ASCII
 * (`solid …`). ASCII coordinates are rounded to float32, as binary ones are, so both
 * encodings of one mesh give identical figures.
 *
 * Throws FormatError('malformed') for a file that is neither, that ends early, that has a
 * facet without exactly three vertices, a coordinate that is not a finite number, or no
 * triangles at all.
 */
export async function readStl(source: ByteSource, sink: TriangleSink): Promise<StlInfo> {
  if (source.size === 0) throw malformed('The file is empty.')
  const head = await source.read(0, Math.min(source.size, 512) - 1)
  const declared =
    source.size >= HEADER_BYTES ? new DataView(head.buffer, head.byteOffset, head.byteLength).getUint32(80, true) : -1
  if (declared >= 0 && HEADER_BYTES + FACET_BYTES * declared === source.size) {
    await readBinary(source, declared, sink)
    return { encoding: 'binary' }
  }
  if (looksLikeAsciiStl(head)) return readAscii(source, sink)
  throw malformed(
    declared < 0
      ? `At ${source.size} bytes the file is too short for a binary STL, and it does not start with "solid" as an ASCII STL does.`
      : `The file is not a binary STL: its header declares ${declared} triangles, which take ${HEADER_BYTES + FACET_BYTES * declared} bytes, but it has ${source.size} bytes. Nor is it an ASCII STL starting with "solid".`,
  )
}

function malformed(message: string) {
  return new FormatError('malformed', message)
}

/** Starts with `solid` (after optional whitespace) and has no NUL bytes, which text never has. */
function looksLikeAsciiStl(head: Uint8Array): boolean {
  if (head.includes(0)) return false
  return /^\uFEFF?\s*solid(\s|$)/i.test(new TextDecoder().decode(head))
}

async function readBinary(source: ByteSource, declared: number, sink: TriangleSink): Promise<void> {
  if (declared === 0) throw malformed('The binary STL contains no triangles.')
  const carry = new Uint8Array(FACET_BYTES)
  const carryView = new DataView(carry.buffer)
  let carried = 0
  let emitted = 0
  const emit = (view: DataView, offset: number) => {
    // Each facet: normal (3 float32, ignored), 3 vertices (9 float32), 2 attribute bytes.
    const ax = view.getFloat32(offset + 12, true),
      ay = view.getFloat32(offset + 16, true),
      az = view.getFloat32(offset + 20, true)
    const bx = view.getFloat32(offset + 24, true),
      by = view.getFloat32(offset + 28, true),
      bz = view.getFloat32(offset + 32, true)
    const cx = view.getFloat32(offset + 36, true),
      cy = view.getFloat32(offset + 40, true),
      cz = view.getFloat32(offset + 44, true)
    const sum = ax + ay + az + bx + by + bz + cx + cy + cz
    if (sum - sum !== 0) throw malformed(`Triangle ${emitted + 1} has a coordinate that is not a finite number.`)
    if (++emitted > declared) throw malformed(`The file holds more than the ${declared} triangles its header declares.`)
    sink.triangle(ax, ay, az, bx, by, bz, cx, cy, cz)
  }
  await forEachChunk(source.stream(HEADER_BYTES, source.size - 1), (chunk) => {
    let position = 0
    if (carried > 0) {
      position = Math.min(FACET_BYTES - carried, chunk.length)
      carry.set(chunk.subarray(0, position), carried)
      carried += position
      if (carried < FACET_BYTES) return
      emit(carryView, 0)
      carried = 0
    }
    const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    for (; position + FACET_BYTES <= chunk.length; position += FACET_BYTES) emit(view, position)
    carry.set(chunk.subarray(position), 0)
    carried = chunk.length - position
  })
  if (emitted !== declared || carried !== 0) {
    throw malformed(`The file ended after ${emitted} of the ${declared} triangles its header declares.`)
  }
}

async function readAscii(source: ByteSource, sink: TriangleSink): Promise<StlInfo> {
  let solidName: string | undefined
  let facetLine = 0 // line of the open `facet`, 0 outside one
  let vertices = 0
  let triangles = 0
  const corner = new Float64Array(9)
  await forEachLine(source.stream(), (line, lineNumber) => {
    const words = line.trim().split(/\s+/)
    const keyword = words[0]!.toLowerCase()
    if (keyword === '') return
    const inFacet = facetLine !== 0
    if (keyword === 'vertex' && inFacet) {
      if (vertices === 3) throw malformed(`The facet starting on line ${facetLine} has more than 3 vertices.`)
      if (words.length !== 4) throw malformed(`Line ${lineNumber}: a vertex needs exactly three coordinates.`)
      for (let axis = 0; axis < 3; axis++) {
        const value = Number(words[axis + 1])
        if (!Number.isFinite(value))
          throw malformed(`Line ${lineNumber}: "${words[axis + 1]!.slice(0, 40)}" is not a finite number.`)
        corner[vertices * 3 + axis] = Math.fround(value)
      }
      vertices++
    } else if ((keyword === 'outer' || keyword === 'endloop') && inFacet) {
      return
    } else if (keyword === 'facet' && !inFacet) {
      facetLine = lineNumber
      vertices = 0
    } else if (keyword === 'endfacet' && inFacet) {
      if (vertices !== 3)
        throw malformed(`The facet starting on line ${facetLine} has ${vertices} vertices; an STL facet has exactly 3.`)
      sink.triangle(
        corner[0]!,
        corner[1]!,
        corner[2]!,
        corner[3]!,
        corner[4]!,
        corner[5]!,
        corner[6]!,
        corner[7]!,
        corner[8]!,
      )
      triangles++
      facetLine = 0
    } else if (keyword === 'solid' && !inFacet) {
      solidName ??= line.trim().slice(5).trim() || undefined
    } else if (keyword === 'endsolid' && !inFacet) {
      return
    } else {
      throw malformed(
        `Line ${lineNumber}: "${words[0]!.slice(0, 40)}" is not expected ${inFacet ? `inside the facet starting on line ${facetLine}` : 'between facets'}.`,
      )
    }
  })
  if (facetLine !== 0) throw malformed(`The file ends inside the facet starting on line ${facetLine}.`)
  if (triangles === 0) throw malformed('The ASCII STL contains no triangles.')
  return solidName === undefined ? { encoding: 'ascii' } : { encoding: 'ascii', solidName }
}
