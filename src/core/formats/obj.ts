import { forEachLine } from './byte-source.js'
import { type ByteSource, FormatError, type TriangleSink } from './types.js'

export interface ObjInfo {
  /**
   * Names from `o` and `g` statements, in order of first appearance: the first 1,000, each cut
   * to 200 characters, so a hostile file cannot grow them without bound.
   */
  objects: string[]
  /** How many further `o` and `g` statements name an object not listed (a repeat counts again). */
  more_objects: number
}

const maxObjectNames = 1000
const maxObjectNameLength = 200

/**
 * Streams the faces of a Wavefront OBJ file into `sink` as triangles (polygons are fanned
 * from their first corner). Only the vertex positions are kept in memory, because faces
 * refer to them by index; `v/vt/vn` and `v//vn` references and negative (relative) indices
 * are accepted, and statements other than `v`, `f`, `o` and `g` are ignored.
 *
 * Throws FormatError('malformed') for a coordinate or index that is not a number, an index
 * outside the vertices defined so far, a face with fewer than three corners, or no faces.
 */
export async function readObj(source: ByteSource, sink: TriangleSink): Promise<ObjInfo> {
  let positions = new Float64Array(3 * 4096)
  let vertexCount = 0
  let triangles = 0
  const objects: string[] = []
  const seen = new Set<string>()
  let moreObjects = 0
  let continued = ''
  let lastLine = 0

  const cornerIndex = (reference: string, lineNumber: number): number => {
    const slash = reference.indexOf('/')
    const text = slash === -1 ? reference : reference.slice(0, slash)
    const index = Number(text)
    if (!Number.isInteger(index) || text === '')
      throw malformed(
        `Line ${lineNumber}: face corner "${reference.slice(0, 40)}" does not start with a vertex number.`,
      )
    const resolved = index < 0 ? vertexCount + index : index - 1
    if (index === 0 || resolved < 0 || resolved >= vertexCount) {
      throw malformed(
        `Line ${lineNumber}: face refers to vertex ${index}, but ${vertexCount} vertices are defined before it.`,
      )
    }
    return resolved * 3
  }

  const statement = (line: string, lineNumber: number) => {
    const words = line.trim().split(/\s+/)
    const keyword = words[0]
    if (keyword === 'v') {
      if (words.length < 4) throw malformed(`Line ${lineNumber}: a vertex needs three coordinates.`)
      if (vertexCount * 3 === positions.length) {
        const larger = new Float64Array(positions.length * 2)
        larger.set(positions)
        positions = larger
      }
      for (let axis = 0; axis < 3; axis++) {
        const value = Number(words[axis + 1])
        if (!Number.isFinite(value))
          throw malformed(`Line ${lineNumber}: "${words[axis + 1]!.slice(0, 40)}" is not a finite number.`)
        positions[vertexCount * 3 + axis] = value
      }
      vertexCount++
    } else if (keyword === 'f') {
      if (words.length < 4) throw malformed(`Line ${lineNumber}: a face needs at least three corners.`)
      const a = cornerIndex(words[1]!, lineNumber)
      let b = cornerIndex(words[2]!, lineNumber)
      for (let corner = 3; corner < words.length; corner++) {
        const c = cornerIndex(words[corner]!, lineNumber)
        sink.triangle(
          positions[a]!,
          positions[a + 1]!,
          positions[a + 2]!,
          positions[b]!,
          positions[b + 1]!,
          positions[b + 2]!,
          positions[c]!,
          positions[c + 1]!,
          positions[c + 2]!,
        )
        triangles++
        b = c
      }
    } else if (keyword === 'o' || keyword === 'g') {
      const name = line.trim().slice(1).trim().slice(0, maxObjectNameLength)
      if (name === '' || seen.has(name)) return
      if (objects.length === maxObjectNames) moreObjects++
      else {
        seen.add(name)
        objects.push(name)
      }
    }
  }

  await forEachLine(source.stream(), (line, lineNumber) => {
    lastLine = lineNumber
    // A backslash at the end of a line continues the statement on the next one.
    if (line.endsWith('\\')) {
      continued += `${line.slice(0, -1)} `
      if (continued.length > 64 * 1024)
        throw malformed(`Line ${lineNumber}: a continued statement is longer than 65536 characters.`)
      return
    }
    const whole = continued + line
    continued = ''
    const hash = whole.indexOf('#')
    statement(hash === -1 ? whole : whole.slice(0, hash), lineNumber)
  })
  if (continued !== '') statement(continued, lastLine)
  if (triangles === 0) throw malformed('The OBJ file contains no faces.')
  return { objects, more_objects: moreObjects }
}

function malformed(message: string) {
  return new FormatError('malformed', message)
}
