import { type BufferGeometry, Color, Group, type Material, Mesh, type MeshStandardMaterial, type Object3D } from 'three'
import { ThreeMFLoader } from 'three/addons/loaders/3MFLoader.js'
import { OBJLoader } from 'three/addons/loaders/OBJLoader.js'
import { STLLoader } from 'three/addons/loaders/STLLoader.js'
import { threeMfMillimetresPerUnit } from './three-mf-unit'
import type { ViewableFormat } from './types'

/** A file the 3D view could not read, with a sentence that says so. */
export class MeshParseError extends Error {
  override name = 'MeshParseError'
}

const hasTriangles = (object: Object3D) => {
  let found = false
  object.traverse((child) => {
    const geometry = (child as Partial<Mesh>).geometry as BufferGeometry | undefined
    if (geometry?.getAttribute('position')?.count) found = true
  })
  return found
}

const isPlainWhite = (material: Material | Material[]) =>
  !Array.isArray(material) &&
  !material.vertexColors &&
  'color' in material &&
  material.color instanceof Color &&
  material.color.getHex() === 0xffffff

/**
 * Reads STL, 3MF or OBJ bytes into a three.js object, in millimetres. STL and OBJ meshes get
 * `material` (OBJ's own materials are usually absent or meant for another renderer); a 3MF keeps
 * its colours if it has any, and is scaled from its own unit.
 */
export function parseMesh(
  format: ViewableFormat,
  bytes: Uint8Array<ArrayBuffer>,
  material: MeshStandardMaterial,
): Object3D {
  let object: Object3D
  try {
    if (format === 'stl') {
      object = new Group().add(new Mesh(new STLLoader().parse(bytes.buffer), material))
    } else if (format === 'obj') {
      object = new OBJLoader().parse(new TextDecoder().decode(bytes))
      object.traverse((child) => {
        if (child instanceof Mesh) child.material = material
      })
    } else {
      object = new ThreeMFLoader().parse(bytes.buffer)
      object.scale.multiplyScalar(threeMfMillimetresPerUnit(bytes))
      // A 3MF without colours gets the loader's plain white: ours reads better on the plate.
      object.traverse((child) => {
        if (child instanceof Mesh && isPlainWhite(child.material)) child.material = material
      })
    }
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error)
    throw new MeshParseError(
      `This ${format.toUpperCase()} file could not be read for the 3D view: it may be damaged, or not really ${format === '3mf' ? 'a' : 'an'} ${format.toUpperCase()} file. (${detail})`,
    )
  }
  if (!hasTriangles(object)) {
    throw new MeshParseError(`This ${format.toUpperCase()} file holds no triangles the 3D view can show.`)
  }
  return object
}
