import { createMeshFigures, createMeshStats, type MeshFigures, statsOf } from './mesh-stats.js'
import { redactSettings } from './redact.js'
import { readSlicedPlates, type SlicedPlate } from './sliced-plates.js'
import { type ByteSource, FormatError, type MeshStats, type Thumbnail, type TriangleSink, type Vec3 } from './types.js'
import {
  attribute,
  createXmlTokenizer,
  decodeEntities,
  openOnly,
  parseXml,
  prefixedAttribute,
  type XmlAttributes,
  type XmlHandler,
} from './xml-tokens.js'
import { openZip, type ZipEntry, type ZipReader } from './zip-reader.js'

/** How much of an untrusted 3MF package the reader is willing to take on. */
export interface ThreeMfLimits {
  /** Zip entries in the package. Default 10,000. */
  maxEntries?: number
  /** Inflated bytes of the model XML parts, together; also the most any entry may declare. Default 512 MiB. */
  maxModelBytes?: number
  /** Inflated bytes of each other part read (relationships, thumbnail, slicer settings). Default 16 MiB. */
  maxPartBytes?: number
  /** Uncompressed to compressed size, for entries above 1 MiB. Default 200. */
  maxCompressionRatio?: number
  /** Triangles the build expands to once components are instanced. Default 100 million. */
  maxTriangles?: number
  /**
   * Vertices, triangles and components `measure` may visit to measure a build from its
   * instances without expanding it. Instances placed by translation (and uniform scale) are
   * measured once per object, so only a build whose instances take many different
   * orientations comes near it. Default 50 million.
   */
  maxMeasureWork?: number
}

export interface ThreeMfObject {
  /** The object's id: its `id` attribute, or `part#id` for an object in another model part. */
  id: string
  name?: string
  /** Triangles of the object with its components expanded. */
  triangles: number
}

/** The package's well-known `<metadata>` values, by lower-cased name; empty values are left out. */
export interface ThreeMfMetadata {
  title?: string
  designer?: string
  description?: string
  copyright?: string
  licenseterms?: string
  rating?: string
  creationdate?: string
  modificationdate?: string
  /** Not in the core specification's list, but written by every slicer. */
  application?: string
}

export interface ThreeMfContents {
  /** The objects the build places, in build order, each once. */
  objects: ThreeMfObject[]
  metadata: ThreeMfMetadata
  thumbnail?: Thumbnail
  /** The slicer settings saved in the project, flattened to strings, secrets redacted. */
  slicerConfig?: Record<string, string>
  /** A sliced export's (`.gcode.3mf`) plates that carry G-code, with time and filament per plate. */
  plates?: SlicedPlate[]
  /**
   * Emits every build item's triangles in millimetres, with item and component transforms
   * applied. With `maxTriangles`, emits at most about that many: instances that no longer fit
   * are drawn as their bounding boxes (12 triangles each, a whole component at a time once
   * even those run out), so a renderer stays bounded whatever the instancing.
   */
  forEachTriangle: (sink: TriangleSink, options?: { maxTriangles?: number }) => Promise<void>
  /**
   * The build's figures. A build of at most `expandUpTo` triangles (default: 1 million, or
   * every triangle the file spells out, whichever is more) is expanded through
   * `createMeshStats`. A larger one, which only instancing makes, is measured from its
   * instances without expanding them: each object is measured once per orientation (its
   * used vertices transformed for the bbox, its triangles for area, signed volume and the
   * sum of their normals), and an instance's figures follow from those and its translation.
   * The figures are those of the expanded mesh (up to rounding), but `manifold` is null: edges
   * shared between instances are not tracked. Throws FormatError('unsafe') past `maxMeasureWork`.
   */
  measure(options?: { expandUpTo?: number }): Promise<MeshStats>
}

const MiB = 1024 * 1024
const DEFAULT_LIMITS: Required<ThreeMfLimits> = {
  maxEntries: 10_000,
  maxModelBytes: 512 * MiB,
  maxPartBytes: 16 * MiB,
  maxCompressionRatio: 200,
  maxTriangles: 100_000_000,
  maxMeasureWork: 50_000_000,
}
/** Builds up to this many triangles are measured by expanding them (see `measure`). */
const EXPAND_UP_TO = 1_000_000

const unsafe = (message: string) => new FormatError('unsafe', message)
const malformed = (message: string) => new FormatError('malformed', message)
const MODEL_RELATIONSHIP = 'http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel'
const THUMBNAIL_RELATIONSHIP = 'http://schemas.openxmlformats.org/package/2006/relationships/metadata/thumbnail'
const METADATA_NAMES = new Set([
  'title',
  'designer',
  'description',
  'copyright',
  'licenseterms',
  'rating',
  'creationdate',
  'modificationdate',
  'application',
])
const UNIT_MILLIMETRES: Record<string, number> = {
  micron: 0.001,
  millimeter: 1,
  centimeter: 10,
  inch: 25.4,
  foot: 304.8,
  meter: 1000,
}

/**
 * Reads a 3MF package: its objects, metadata, thumbnail and slicer settings now, and its
 * geometry on demand through `forEachTriangle`. The zip is read by `openZip` through its
 * central directory with range reads; only the parts needed are inflated, each streamed and
 * stopped as soon as it yields more than it declared. The model XML is tokenized as it
 * inflates, keeping each object's vertices and triangles in typed arrays.
 *
 * Follows the production extension's `p:path` references into other model parts (as
 * Bambu Studio and OrcaSlicer write them). Object names missing from the model are taken
 * from PrusaSlicer's or Bambu's per-object config.
 *
 * Throws FormatError('unsafe') for path tricks in entry names, too many entries, entries
 * declaring more than the limits or compressed beyond the ratio, overlapping entries, or a
 * build beyond the triangle limit; FormatError('malformed') for anything that is not a
 * readable 3MF (corrupt zip, no model part, bad XML, dangling references).
 */
export async function readThreeMf(source: ByteSource, limits: ThreeMfLimits = {}): Promise<ThreeMfContents> {
  const limit = { ...DEFAULT_LIMITS, ...limits }
  const zip = await openZip(source, {
    maxEntries: limit.maxEntries,
    maxEntryBytes: limit.maxModelBytes,
    maxCompressionRatio: limit.maxCompressionRatio,
  })
  const text = async (name: string) => {
    const entry = zip.get(name)
    return entry === undefined ? undefined : new TextDecoder().decode(await zip.readEntry(entry, limit.maxPartBytes))
  }

  const relationships = parseRelationships((await text('_rels/.rels')) ?? '')
  const rootPath = partName(relationships.find((r) => r.type === MODEL_RELATIONSHIP)?.target ?? '3D/3dmodel.model')
  const parts = await readModelParts(zip, rootPath, limit.maxModelBytes)
  const root = parts.get(rootPath)!
  const names = await objectNamesFromSlicerConfig(text)

  const expanded = countTriangles(parts)
  const objects = new Map<string, ThreeMfObject>()
  let buildTriangles = 0
  for (const item of root.build) {
    const triangles = expanded(item.path, item.objectId)
    buildTriangles += triangles
    const id = item.path === rootPath ? item.objectId : `${item.path}#${item.objectId}`
    if (objects.has(id)) continue
    const name =
      parts.get(item.path)!.objects.get(item.objectId)!.name ??
      (item.path === rootPath ? names.get(item.objectId) : undefined)
    objects.set(id, name === undefined ? { id, triangles } : { id, name, triangles })
  }
  if (buildTriangles > limit.maxTriangles) {
    throw unsafe(`The build expands to ${buildTriangles} triangles, more than the limit of ${limit.maxTriangles}.`)
  }

  let literalTriangles = 0
  for (const part of parts.values())
    for (const object of part.objects.values()) literalTriangles += object.triangles.length / 3
  const contents: ThreeMfContents = {
    objects: [...objects.values()],
    metadata: root.metadata,
    forEachTriangle: async (sink, options = {}) =>
      emitBuild(parts, root, expanded, sink, options.maxTriangles ?? Number.POSITIVE_INFINITY),
    measure: async ({ expandUpTo = Math.max(EXPAND_UP_TO, literalTriangles) } = {}) => {
      if (buildTriangles > expandUpTo) return measureInstances(parts, root, expanded, limit.maxMeasureWork)
      const stats = createMeshStats()
      emitBuild(parts, root, expanded, stats, Number.POSITIVE_INFINITY)
      return stats.finish()
    },
  }
  const plates = readSlicedPlates(await text('Metadata/slice_info.config'), (name) => zip.get(name) !== undefined)
  if (plates.length > 0) contents.plates = plates
  // A sliced export's package thumbnail is plate 1's picture whichever plate was sliced: the sliced one's comes first.
  const platePictures = plates.flatMap((plate) => (plate.thumbnail ? [plate.thumbnail] : []))
  const thumbnailPaths = relationships.filter((r) => r.type === THUMBNAIL_RELATIONSHIP).map((r) => partName(r.target))
  for (const path of [...platePictures, ...thumbnailPaths, 'metadata/thumbnail.png']) {
    const entry = zip.get(path)
    const thumbnail = entry === undefined ? undefined : imageThumbnail(await zip.readEntry(entry, limit.maxPartBytes))
    if (thumbnail !== undefined) {
      contents.thumbnail = thumbnail
      break
    }
  }
  const prusaConfig = await text('Metadata/Slic3r_PE.config')
  const slicerConfig =
    prusaConfig !== undefined
      ? parsePrusaConfig(prusaConfig)
      : parseProjectSettings(await text('Metadata/project_settings.config'))
  if (slicerConfig !== undefined) contents.slicerConfig = redactSettings(slicerConfig)
  return contents
}

// ---------------------------------------------------------------------------------------
// OPC parts: relationships, slicer settings, thumbnail

interface Relationship {
  type: string
  target: string
}

function parseRelationships(xml: string): Relationship[] {
  if (xml === '') return []
  const relationships: Relationship[] = []
  parseXml(
    xml,
    openOnly((name, attributes) => {
      const type = attribute(attributes, 'Type')
      const target = attribute(attributes, 'Target')
      if (name === 'Relationship' && type !== undefined && target !== undefined) relationships.push({ type, target })
    }),
  )
  return relationships
}

/** A relationship target or `p:path` as a lower-cased entry name ("/3D/x.model" → "3d/x.model"). */
function partName(target: string): string {
  let name = target
  try {
    name = decodeURIComponent(target)
  } catch {
    // an undecodable escape is looked up as written
  }
  return name.replace(/^\/+/, '').toLowerCase()
}

/** PrusaSlicer's `Metadata/Slic3r_PE.config`: `; key = value` lines. */
function parsePrusaConfig(config: string): Record<string, string> {
  const entries: [string, string][] = []
  for (const line of config.split(/\r?\n/)) {
    const match = /^;\s*([^=]+?)\s*=\s?(.*)$/.exec(line)
    if (match !== null) entries.push([match[1]!, match[2]!.trimEnd()])
  }
  return Object.fromEntries(entries)
}

/**
 * OrcaSlicer's and Bambu Studio's `Metadata/project_settings.config`: a JSON object whose
 * arrays are joined with commas, as PrusaSlicer writes per-extruder values. Unreadable JSON
 * is no settings, not a malformed package.
 */
function parseProjectSettings(json: string | undefined): Record<string, string> | undefined {
  if (json === undefined) return undefined
  let settings: unknown
  try {
    settings = JSON.parse(json)
  } catch {
    return undefined
  }
  if (typeof settings !== 'object' || settings === null || Array.isArray(settings)) return undefined
  const flat = (value: unknown): string =>
    typeof value === 'string'
      ? value
      : Array.isArray(value) && value.every((item) => typeof item !== 'object')
        ? value.join(',')
        : JSON.stringify(value)
  return Object.fromEntries(Object.entries(settings).map(([key, value]) => [key, flat(value)]))
}

/**
 * Object names from `Metadata/Slic3r_PE_model.config` (PrusaSlicer) or
 * `Metadata/model_settings.config` (Bambu Studio, OrcaSlicer): `<object id>` holding
 * `<metadata key="name" value>`.
 */
async function objectNamesFromSlicerConfig(
  text: (name: string) => Promise<string | undefined>,
): Promise<Map<string, string>> {
  const names = new Map<string, string>()
  const xml = (await text('Metadata/Slic3r_PE_model.config')) ?? (await text('Metadata/model_settings.config'))
  if (xml === undefined) return names
  let objectId: string | undefined
  parseXml(
    xml,
    openOnly((name, attributes, parent) => {
      if (name === 'object') objectId = attribute(attributes, 'id')
      else if (
        name === 'metadata' &&
        parent === 'object' &&
        objectId !== undefined &&
        attribute(attributes, 'key') === 'name'
      ) {
        const value = attribute(attributes, 'value')
        if (value) names.set(objectId, value)
      }
    }),
  )
  return names
}

/** A PNG or JPEG with its pixel size read from the image header; anything else is no thumbnail. */
function imageThumbnail(bytes: Uint8Array): Thumbnail | undefined {
  const data = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
  if (
    bytes.length >= 24 &&
    png.every((byte, index) => bytes[index] === byte) &&
    data.getUint32(12) === 0x49484452 /* IHDR */
  ) {
    return sized(data.getUint32(16), data.getUint32(20), 'image/png', bytes)
  }
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return undefined
  for (let at = 2; at + 9 <= bytes.length; ) {
    if (bytes[at] !== 0xff) return undefined
    const marker = bytes[at + 1]!
    if (marker === 0xff) {
      at++
      continue
    }
    // SOF0–SOF15 carry the frame size, except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return sized(data.getUint16(at + 7), data.getUint16(at + 5), 'image/jpeg', bytes)
    }
    at += 2 + data.getUint16(at + 2)
  }
  return undefined
}

function sized(
  width: number,
  height: number,
  contentType: Thumbnail['contentType'],
  bytes: Uint8Array,
): Thumbnail | undefined {
  return width > 0 && height > 0 ? { width, height, contentType, bytes } : undefined
}

// ---------------------------------------------------------------------------------------
// Model parts: objects, components, build

/** 3MF transform "m00 m01 m02 m10 m11 m12 m20 m21 m22 m30 m31 m32": rows of a 4x3 matrix applied to row vectors. */
type Transform = Float64Array

interface Reference {
  /** Entry name of the model part holding the object. */
  path: string
  objectId: string
  transform: Transform | undefined
}

interface ModelObject {
  name?: string
  vertices: Float32Array
  triangles: Uint32Array
  components: Reference[]
}

interface ModelPart {
  /** Millimetres per model unit. */
  scale: number
  objects: Map<string, ModelObject>
  build: Reference[]
  metadata: ThreeMfMetadata
}

/** The root model part and every part its components and build items reach through `p:path`. */
async function readModelParts(
  zip: ZipReader,
  rootPath: string,
  maxModelBytes: number,
): Promise<Map<string, ModelPart>> {
  const parts = new Map<string, ModelPart>()
  const referenced = new Set([rootPath]) // a Set's iteration also visits what is added during it
  let budget = maxModelBytes
  for (const path of referenced) {
    const entry = zip.get(path)
    if (entry === undefined) {
      throw malformed(
        path === rootPath
          ? `The package has no 3D model part (${path}).`
          : `A component refers to model part "${path}", which the package does not have.`,
      )
    }
    if (entry.size > budget)
      throw unsafe(`The model parts declare more than the limit of ${maxModelBytes} bytes together.`)
    budget -= entry.size
    const part = await readModelPart(zip, entry, path)
    parts.set(path, part)
    for (const object of part.objects.values())
      for (const component of object.components) referenced.add(component.path)
    for (const item of part.build) referenced.add(item.path)
  }
  return parts
}

async function readModelPart(zip: ZipReader, entry: ZipEntry, path: string): Promise<ModelPart> {
  const part: ModelPart = { scale: 1, objects: new Map(), build: [], metadata: {} }
  let object: ModelObject | undefined
  let vertexCount = 0
  let triangleCount = 0
  let metadataName: string | undefined
  let metadataText = ''
  const reference = (attributes: XmlAttributes, element: string): Reference => {
    const objectId = attribute(attributes, 'objectid')
    if (objectId === undefined) throw malformed(`A <${element}> in ${path} has no objectid.`)
    const referenced = prefixedAttribute(attributes, 'path')
    const transform = attribute(attributes, 'transform')
    return {
      path: referenced === undefined ? path : partName(referenced),
      objectId,
      transform: transform === undefined ? undefined : parseTransform(transform),
    }
  }
  const number = (attributes: XmlAttributes, name: string, element: string): number => {
    const text = attribute(attributes, name)
    const value = text === undefined || text === '' ? NaN : Number(text)
    if (!Number.isFinite(value))
      throw malformed(
        `A <${element}> in ${path} has ${text === undefined ? `no ${name}` : `${name}="${text.slice(0, 40)}"`}, not a finite number.`,
      )
    return value
  }
  const corner = (attributes: XmlAttributes, name: string): number => {
    const index = number(attributes, name, 'triangle')
    if (!Number.isInteger(index) || index < 0 || index >= vertexCount) {
      throw malformed(`A triangle in ${path} refers to vertex ${index}, but its object has ${vertexCount} vertices.`)
    }
    return index
  }

  const handler: XmlHandler = {
    capturingText: false,
    open(name, attributes, parent) {
      if (name === 'vertex' && parent === 'vertices' && object !== undefined) {
        if (vertexCount * 3 === object.vertices.length)
          object.vertices = grown(object.vertices, (length) => new Float32Array(length))
        object.vertices[vertexCount * 3] = number(attributes, 'x', name)
        object.vertices[vertexCount * 3 + 1] = number(attributes, 'y', name)
        object.vertices[vertexCount * 3 + 2] = number(attributes, 'z', name)
        vertexCount++
      } else if (name === 'triangle' && parent === 'triangles' && object !== undefined) {
        if (triangleCount * 3 === object.triangles.length)
          object.triangles = grown(object.triangles, (length) => new Uint32Array(length))
        object.triangles[triangleCount * 3] = corner(attributes, 'v1')
        object.triangles[triangleCount * 3 + 1] = corner(attributes, 'v2')
        object.triangles[triangleCount * 3 + 2] = corner(attributes, 'v3')
        triangleCount++
      } else if (name === 'object' && parent === 'resources') {
        const id = attribute(attributes, 'id')
        if (id === undefined || part.objects.has(id))
          throw malformed(`An object in ${path} has ${id === undefined ? 'no id' : `the duplicate id ${id}`}.`)
        const objectName = attribute(attributes, 'name')
        object = { vertices: new Float32Array(3 * 64), triangles: new Uint32Array(3 * 64), components: [] }
        if (objectName) object.name = objectName
        part.objects.set(id, object)
        vertexCount = 0
        triangleCount = 0
      } else if (name === 'component' && parent === 'components' && object !== undefined) {
        object.components.push(reference(attributes, name))
      } else if (name === 'item' && parent === 'build') {
        part.build.push(reference(attributes, name))
      } else if (name === 'metadata' && parent === 'model') {
        metadataName = attribute(attributes, 'name')?.toLowerCase()
        metadataText = ''
        handler.capturingText = metadataName !== undefined && METADATA_NAMES.has(metadataName)
      } else if (name === 'model' && parent === undefined) {
        const unit = attribute(attributes, 'unit') ?? 'millimeter'
        const scale = UNIT_MILLIMETRES[unit]
        if (scale === undefined) throw malformed(`The model in ${path} uses the unknown unit "${unit.slice(0, 40)}".`)
        part.scale = scale
      } else if (parent === undefined) {
        throw malformed(`The root element of ${path} is <${name}>, not <model>.`)
      }
    },
    close(name) {
      if (name === 'object' && object !== undefined) {
        object.vertices = object.vertices.slice(0, vertexCount * 3)
        object.triangles = object.triangles.slice(0, triangleCount * 3)
        object = undefined
      } else if (name === 'metadata' && handler.capturingText) {
        const value = decodeEntities(metadataText).trim()
        if (value !== '') part.metadata[metadataName as keyof ThreeMfMetadata] = value
        handler.capturingText = false
      }
    },
    text(raw) {
      if (metadataText.length < 64 * 1024) metadataText += raw.slice(0, 64 * 1024 - metadataText.length)
    },
  }

  const tokenizer = createXmlTokenizer(handler)
  const decoder = new TextDecoder()
  await zip.streamEntry(entry, (chunk) => tokenizer.push(decoder.decode(chunk, { stream: true })))
  tokenizer.push(decoder.decode())
  tokenizer.end()
  return part
}

function grown<A extends Float32Array | Uint32Array>(array: A, make: (length: number) => A): A {
  const larger = make(array.length * 2)
  larger.set(array)
  return larger
}

function parseTransform(text: string): Transform {
  const values = text.trim().split(/\s+/).map(Number)
  if (values.length !== 12 || !values.every(Number.isFinite))
    throw malformed(`The transform "${text.slice(0, 80)}" is not 12 numbers.`)
  return Float64Array.from(values)
}

/** `first` then `second`, for row vectors: the product first · second of the 4x4 affine matrices. */
function compose(first: Transform, second: Transform): Transform {
  const out = new Float64Array(12)
  for (let row = 0; row < 4; row++) {
    for (let column = 0; column < 3; column++) {
      out[row * 3 + column] =
        first[row * 3]! * second[column]! +
        first[row * 3 + 1]! * second[3 + column]! +
        first[row * 3 + 2]! * second[6 + column]! +
        (row === 3 ? second[9 + column]! : 0)
    }
  }
  return out
}

const MAX_NESTING = 64

/**
 * Counts each object's triangles with components expanded (memoized), rejecting dangling
 * references, cycles and nesting deeper than MAX_NESTING before anything walks the graph.
 */
function countTriangles(parts: Map<string, ModelPart>): (path: string, objectId: string) => number {
  const counted = new Map<string, number>()
  const visiting = new Set<string>()
  const count = (path: string, objectId: string, depth: number): number => {
    const key = `${path}#${objectId}`
    const known = counted.get(key)
    if (known !== undefined) return known
    const object = parts.get(path)?.objects.get(objectId)
    if (object === undefined)
      throw malformed(`A build item or component refers to object ${objectId} in ${path}, which does not exist.`)
    if (visiting.has(key)) throw malformed(`Object ${objectId} in ${path} contains itself through its components.`)
    if (depth > MAX_NESTING) throw malformed(`Components nest deeper than ${MAX_NESTING} levels.`)
    visiting.add(key)
    let total = object.triangles.length / 3
    for (const component of object.components) total += count(component.path, component.objectId, depth + 1)
    visiting.delete(key)
    counted.set(key, total)
    return total
  }
  return (path, objectId) => count(path, objectId, 0)
}

type Counted = (path: string, objectId: string) => number

/** The transform a build item places its object with, in millimetres. */
function itemTransform(root: ModelPart, item: Reference): Transform {
  const units = Float64Array.of(root.scale, 0, 0, 0, root.scale, 0, 0, 0, root.scale, 0, 0, 0)
  return item.transform === undefined ? units : compose(item.transform, units)
}

/**
 * Emits the build's triangles; objects without triangles are skipped, so empty components
 * nested deep cannot make the walk long. Past `budget` triangles, instances that do not fit
 * are drawn as boxes, but every object's own mesh is drawn in full at least once, so a large
 * mesh the file spells out is never replaced by a box (see `forEachTriangle`).
 */
function emitBuild(
  parts: Map<string, ModelPart>,
  root: ModelPart,
  counted: Counted,
  sink: TriangleSink,
  budget: number,
) {
  const boxOf = localBoxes(parts)
  const drawn = new Set<ModelObject>()
  let left = budget
  const emitOwn = (object: ModelObject, transform: Transform) => {
    const own = object.triangles.length / 3
    if (own === 0) return
    if (own <= left || !drawn.has(object)) {
      emitMesh(object, transform, sink)
      drawn.add(object)
      left -= own
    } else {
      emitBox(ownBox(object), transform, sink)
      left -= BOX_TRIANGLES
    }
  }
  const emitObject = (path: string, objectId: string, transform: Transform) => {
    const object = parts.get(path)!.objects.get(objectId)!
    const total = counted(path, objectId)
    if (total === 0) return
    if (total > left && object.components.length * BOX_TRIANGLES >= left) {
      if (object.components.length > 0 || drawn.has(object)) {
        emitBox(boxOf(path, objectId), transform, sink)
        left -= BOX_TRIANGLES
        return
      }
    }
    emitOwn(object, transform)
    for (const component of object.components)
      emitObject(
        component.path,
        component.objectId,
        component.transform === undefined ? transform : compose(component.transform, transform),
      )
  }
  for (const item of root.build) emitObject(item.path, item.objectId, itemTransform(root, item))
}

const BOX_TRIANGLES = 12

interface Box {
  min: Vec3
  max: Vec3
}

/** The bounding box of the vertices an object's own triangles use, in its own coordinates. */
function ownBox({ vertices, triangles }: ModelObject): Box {
  const min: Vec3 = [Infinity, Infinity, Infinity]
  const max: Vec3 = [-Infinity, -Infinity, -Infinity]
  for (const index of triangles) {
    for (let axis = 0; axis < 3; axis++) {
      const value = vertices[index * 3 + axis]!
      if (value < min[axis]!) min[axis] = value
      if (value > max[axis]!) max[axis] = value
    }
  }
  return { min, max }
}

/**
 * A box around each object with its components, in its own coordinates (memoized): its own
 * box joined with its components' boxes, whose corners are transformed. Larger than the
 * tight box for rotated components, which is fine for drawing stand-ins.
 */
function localBoxes(parts: Map<string, ModelPart>): (path: string, objectId: string) => Box {
  const boxes = new Map<string, Box>()
  const boxOf = (path: string, objectId: string): Box => {
    const key = `${path}#${objectId}`
    const known = boxes.get(key)
    if (known !== undefined) return known
    const object = parts.get(path)!.objects.get(objectId)!
    const box = ownBox(object)
    for (const component of object.components) {
      const inner = boxOf(component.path, component.objectId)
      if (!(inner.min[0] <= inner.max[0])) continue
      for (const corner of boxCorners(inner)) {
        const [x, y, z] = component.transform === undefined ? corner : apply(component.transform, corner)
        box.min = [Math.min(box.min[0], x), Math.min(box.min[1], y), Math.min(box.min[2], z)]
        box.max = [Math.max(box.max[0], x), Math.max(box.max[1], y), Math.max(box.max[2], z)]
      }
    }
    boxes.set(key, box)
    return box
  }
  return boxOf
}

function boxCorners({ min, max }: Box): Vec3[] {
  const corners: Vec3[] = []
  for (let corner = 0; corner < 8; corner++)
    corners.push([(corner & 1 ? max : min)[0], (corner & 2 ? max : min)[1], (corner & 4 ? max : min)[2]])
  return corners
}

function apply(m: Transform, [x, y, z]: Vec3): Vec3 {
  return [
    x * m[0]! + y * m[3]! + z * m[6]! + m[9]!,
    x * m[1]! + y * m[4]! + z * m[7]! + m[10]!,
    x * m[2]! + y * m[5]! + z * m[8]! + m[11]!,
  ]
}

/** The 12 triangles of a box, outward-facing, through `transform`. */
function emitBox(box: Box, transform: Transform, sink: TriangleSink): void {
  if (!(box.min[0] <= box.max[0])) return
  const vertices = Float32Array.from(boxCorners(box).flat())
  // Corner bits: 1 = max x, 2 = max y, 4 = max z.
  const triangles = Uint32Array.of(
    0,
    2,
    1,
    1,
    2,
    3,
    4,
    5,
    6,
    5,
    7,
    6,
    0,
    1,
    4,
    1,
    5,
    4,
    2,
    6,
    3,
    3,
    6,
    7,
    0,
    4,
    2,
    2,
    4,
    6,
    1,
    3,
    5,
    3,
    7,
    5,
  )
  emitMesh({ vertices, triangles, components: [] }, transform, sink)
}

/**
 * Measures the build without expanding it: figures of (object, linear part) are memoized,
 * so instances placed by translation cost nothing beyond the first. Work (vertices,
 * triangles and components visited on a miss) is bounded by `maxWork`.
 */
function measureInstances(
  parts: Map<string, ModelPart>,
  root: ModelPart,
  counted: Counted,
  maxWork: number,
): MeshStats {
  const memo = new Map<string, MeshFigures>()
  let work = 0
  const figures = (path: string, objectId: string, linear: Transform): MeshFigures => {
    const key = `${path}#${objectId}@${linear.subarray(0, 9).join(' ')}`
    const known = memo.get(key)
    if (known !== undefined) return known
    const object = parts.get(path)!.objects.get(objectId)!
    work += object.vertices.length / 3 + object.triangles.length / 3 + object.components.length
    if (work > maxWork)
      throw unsafe(
        `Measuring the build visits more than ${maxWork} vertices and triangles: its instances take too many orientations.`,
      )
    const result = meshFigures(object, linear)
    for (const component of object.components) {
      if (counted(component.path, component.objectId) === 0) continue
      const placed =
        component.transform === undefined ? Float64Array.from(linear) : compose(component.transform, linear)
      const translation: Vec3 = [placed[9]!, placed[10]!, placed[11]!]
      placed.fill(0, 9)
      add(result, figures(component.path, component.objectId, placed), translation)
    }
    memo.set(key, result)
    return result
  }

  const total = createMeshFigures().finish()
  for (const item of root.build) {
    if (counted(item.path, item.objectId) === 0) continue
    const placed = Float64Array.from(itemTransform(root, item))
    const translation: Vec3 = [placed[9]!, placed[10]!, placed[11]!]
    placed.fill(0, 9)
    add(total, figures(item.path, item.objectId, placed), translation)
  }
  return statsOf(total, null)
}

/** Adds `part` moved by `t` into `into`. */
function add(into: MeshFigures, part: MeshFigures, t: Vec3): void {
  if (part.triangles === 0) return
  into.triangles += part.triangles
  for (let axis = 0; axis < 3; axis++) {
    into.min[axis] = Math.min(into.min[axis]!, part.min[axis]! + t[axis]!)
    into.max[axis] = Math.max(into.max[axis]!, part.max[axis]! + t[axis]!)
    into.normals[axis] = into.normals[axis]! + part.normals[axis]!
  }
  into.volume6 += part.volume6 + t[0] * part.normals[0] + t[1] * part.normals[1] + t[2] * part.normals[2]
  into.area2 += part.area2
}

/** Figures of an object's own triangles under a linear map (no translation), measured as emitMesh emits them. */
function meshFigures(object: ModelObject, linear: Transform): MeshFigures {
  const figures = createMeshFigures()
  emitMesh(object, linear, figures)
  return figures.finish()
}

/** Emits a mesh's triangles transformed; a mirroring transform reverses the winding so volumes stay positive. */
function emitMesh({ vertices, triangles }: ModelObject, m: Transform, sink: TriangleSink): void {
  const m00 = m[0]!,
    m01 = m[1]!,
    m02 = m[2]!,
    m10 = m[3]!,
    m11 = m[4]!,
    m12 = m[5]!
  const m20 = m[6]!,
    m21 = m[7]!,
    m22 = m[8]!,
    m30 = m[9]!,
    m31 = m[10]!,
    m32 = m[11]!
  const mirrored = m00 * (m11 * m22 - m12 * m21) - m01 * (m10 * m22 - m12 * m20) + m02 * (m10 * m21 - m11 * m20) < 0
  for (let at = 0; at < triangles.length; at += 3) {
    const a = triangles[at]! * 3
    const b = triangles[mirrored ? at + 2 : at + 1]! * 3
    const c = triangles[mirrored ? at + 1 : at + 2]! * 3
    const ax = vertices[a]!,
      ay = vertices[a + 1]!,
      az = vertices[a + 2]!
    const bx = vertices[b]!,
      by = vertices[b + 1]!,
      bz = vertices[b + 2]!
    const cx = vertices[c]!,
      cy = vertices[c + 1]!,
      cz = vertices[c + 2]!
    sink.triangle(
      ax * m00 + ay * m10 + az * m20 + m30,
      ax * m01 + ay * m11 + az * m21 + m31,
      ax * m02 + ay * m12 + az * m22 + m32,
      bx * m00 + by * m10 + bz * m20 + m30,
      bx * m01 + by * m11 + bz * m21 + m31,
      bx * m02 + by * m12 + bz * m22 + m32,
      cx * m00 + cy * m10 + cz * m20 + m30,
      cx * m01 + cy * m11 + cz * m21 + m31,
      cx * m02 + cy * m12 + cz * m22 + m32,
    )
  }
}
