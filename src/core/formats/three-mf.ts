import { Inflate } from 'fflate'
import { forEachChunk } from './byte-source.js'
import { redactSettings } from './redact.js'
import { FormatError, type ByteSource, type Thumbnail, type TriangleSink, type TriangleSource } from './types.js'

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
  /** Emits every build item's triangles in millimetres, with item and component transforms applied. */
  forEachTriangle: TriangleSource
}

const MiB = 1024 * 1024
const DEFAULT_LIMITS: Required<ThreeMfLimits> = {
  maxEntries: 10_000,
  maxModelBytes: 512 * MiB,
  maxPartBytes: 16 * MiB,
  maxCompressionRatio: 200,
  maxTriangles: 100_000_000,
}

const MODEL_RELATIONSHIP = 'http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel'
const THUMBNAIL_RELATIONSHIP = 'http://schemas.openxmlformats.org/package/2006/relationships/metadata/thumbnail'
const METADATA_NAMES = new Set(['title', 'designer', 'description', 'copyright', 'licenseterms', 'rating', 'creationdate', 'modificationdate', 'application'])
const UNIT_MILLIMETRES: Record<string, number> = { micron: 0.001, millimeter: 1, centimeter: 10, inch: 25.4, foot: 304.8, meter: 1000 }

/**
 * Reads a 3MF package: its objects, metadata, thumbnail and slicer settings now, and its
 * geometry on demand through `forEachTriangle`. The zip is read through its central
 * directory with range reads; only the parts needed are inflated, each streamed and stopped
 * as soon as it yields more than it declared. The model XML is tokenized as it inflates,
 * keeping each object's vertices and triangles in typed arrays.
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
  const zip = await openZip(source, limit)
  const text = async (name: string) => {
    const entry = zip.get(name.toLowerCase())
    return entry === undefined ? undefined : new TextDecoder().decode(await readEntry(source, entry, limit.maxPartBytes))
  }

  const relationships = parseRelationships((await text('_rels/.rels')) ?? '')
  const rootPath = partName(relationships.find((r) => r.type === MODEL_RELATIONSHIP)?.target ?? '3D/3dmodel.model')
  const parts = await readModelParts(source, zip, rootPath, limit.maxModelBytes)
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
    const name = parts.get(item.path)!.objects.get(item.objectId)!.name ?? (item.path === rootPath ? names.get(item.objectId) : undefined)
    objects.set(id, name === undefined ? { id, triangles } : { id, name, triangles })
  }
  if (buildTriangles > limit.maxTriangles) {
    throw new FormatError('unsafe', `The build expands to ${buildTriangles} triangles, more than the limit of ${limit.maxTriangles}.`)
  }

  const contents: ThreeMfContents = {
    objects: [...objects.values()],
    metadata: root.metadata,
    forEachTriangle: async (sink) => emitBuild(parts, root, sink),
  }
  const thumbnailPaths = relationships.filter((r) => r.type === THUMBNAIL_RELATIONSHIP).map((r) => partName(r.target))
  for (const path of [...thumbnailPaths, 'metadata/thumbnail.png']) {
    const entry = zip.get(path)
    const thumbnail = entry === undefined ? undefined : imageThumbnail(await readEntry(source, entry, limit.maxPartBytes))
    if (thumbnail !== undefined) {
      contents.thumbnail = thumbnail
      break
    }
  }
  const prusaConfig = await text('Metadata/Slic3r_PE.config')
  const slicerConfig = prusaConfig !== undefined ? parsePrusaConfig(prusaConfig) : parseProjectSettings(await text('Metadata/project_settings.config'))
  if (slicerConfig !== undefined) contents.slicerConfig = redactSettings(slicerConfig)
  return contents
}

// ---------------------------------------------------------------------------------------
// Zip: central directory, entry checks, streamed inflation

interface ZipEntry {
  name: string
  rawName: Uint8Array
  flags: number
  method: number
  compressedSize: number
  size: number
  headerOffset: number
  /** Where the next entry (or the central directory) starts: this entry's data must end by then. */
  end: number
}

const unsafe = (message: string) => new FormatError('unsafe', message)
const malformed = (message: string) => new FormatError('malformed', message)
const MAX_CENTRAL_DIRECTORY = 16 * MiB
const SAFE_HIGH_WORD = 2 ** 21 // the high 32 bits of a 64-bit size that still fits a JS number

/** The package's entries by lower-cased name (OPC part names are case-insensitive), all checked. */
async function openZip(source: ByteSource, limit: Required<ThreeMfLimits>): Promise<Map<string, ZipEntry>> {
  if (source.size < 22) throw malformed('The file is too short to be a zip package.')
  const tailStart = Math.max(0, source.size - 22 - 0xffff)
  const tail = await source.read(tailStart, source.size - 1)
  const tailView = view(tail)
  let eocd = -1
  for (let at = tail.length - 22; at >= 0; at--) {
    if (tailView.getUint32(at, true) === 0x06054b50 && at + 22 + tailView.getUint16(at + 20, true) <= tail.length) {
      eocd = at
      break
    }
  }
  if (eocd < 0) throw malformed('The file is not a zip package: it has no end of central directory record.')
  let entryCount = tailView.getUint16(eocd + 10, true)
  let directorySize = tailView.getUint32(eocd + 12, true)
  let directoryOffset = tailView.getUint32(eocd + 16, true)
  let directoryLimit = tailStart + eocd
  if (tailView.getUint16(eocd + 4, true) !== 0 || tailView.getUint16(eocd + 6, true) !== 0) {
    throw malformed('Zip packages split over several disks are not supported.')
  }
  if (entryCount === 0xffff || directorySize === 0xffffffff || directoryOffset === 0xffffffff) {
    const locator = eocd - 20
    if (locator < 0 || tailView.getUint32(locator, true) !== 0x07064b50) throw malformed('The zip64 end of central directory locator is missing.')
    const recordOffset = uint64(tailView, locator + 8)
    if (recordOffset + 56 > tailStart + locator) throw malformed('The zip64 end of central directory record is out of place.')
    const record = view(await source.read(recordOffset, recordOffset + 55))
    if (record.getUint32(0, true) !== 0x06064b50) throw malformed('The zip64 end of central directory record is missing.')
    entryCount = uint64(record, 32)
    directorySize = uint64(record, 40)
    directoryOffset = uint64(record, 48)
    directoryLimit = recordOffset
  }
  if (entryCount > limit.maxEntries) throw unsafe(`The package has ${entryCount} entries, more than the limit of ${limit.maxEntries}.`)
  if (directorySize > MAX_CENTRAL_DIRECTORY) throw unsafe(`The zip central directory is ${directorySize} bytes, more than the limit of ${MAX_CENTRAL_DIRECTORY}.`)
  if (directoryOffset + directorySize > directoryLimit || directorySize < 46 * entryCount) {
    throw malformed('The zip central directory does not fit where the end record places it.')
  }
  const directory = directorySize === 0 ? new Uint8Array(0) : await source.read(directoryOffset, directoryOffset + directorySize - 1)
  const entries = parseCentralDirectory(directory, entryCount, limit)
  checkLayout(entries, directoryOffset)
  return new Map(entries.map((entry) => [entry.name.toLowerCase(), entry]))
}

function parseCentralDirectory(directory: Uint8Array, entryCount: number, limit: Required<ThreeMfLimits>): ZipEntry[] {
  const dir = view(directory)
  const decoder = new TextDecoder()
  const entries: ZipEntry[] = []
  const names = new Set<string>()
  let at = 0
  for (let index = 0; index < entryCount; index++) {
    if (at + 46 > directory.length || dir.getUint32(at, true) !== 0x02014b50) throw malformed(`Zip central directory entry ${index + 1} is corrupt.`)
    const nameLength = dir.getUint16(at + 28, true)
    const extraLength = dir.getUint16(at + 30, true)
    const next = at + 46 + nameLength + extraLength + dir.getUint16(at + 32, true)
    if (next > directory.length) throw malformed(`Zip central directory entry ${index + 1} runs past the directory.`)
    const rawName = directory.slice(at + 46, at + 46 + nameLength)
    const name = decoder.decode(rawName)
    const entry: ZipEntry = {
      name,
      rawName,
      flags: dir.getUint16(at + 8, true),
      method: dir.getUint16(at + 10, true),
      compressedSize: dir.getUint32(at + 20, true),
      size: dir.getUint32(at + 24, true),
      headerOffset: dir.getUint32(at + 42, true),
      end: 0,
    }
    readZip64Extra(directory.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength), entry)
    checkEntryName(name, rawName)
    if (names.has(name.toLowerCase())) throw unsafe(`The package has two entries named "${name}" (names are case-insensitive).`)
    names.add(name.toLowerCase())
    if (entry.flags & 0x41) throw malformed(`Entry "${name}" is encrypted; encrypted packages are not supported.`)
    if (entry.size > limit.maxModelBytes) throw unsafe(`Entry "${name}" declares ${entry.size} bytes, more than the limit of ${limit.maxModelBytes}.`)
    if (entry.size > MiB && entry.size > limit.maxCompressionRatio * entry.compressedSize) {
      throw unsafe(`Entry "${name}" declares ${entry.size} bytes from ${entry.compressedSize} compressed: a ratio above ${limit.maxCompressionRatio}:1.`)
    }
    entries.push(entry)
    at = next
  }
  return entries
}

/** Applies the zip64 extended information extra field to the 32-bit fields saturated at 0xFFFFFFFF. */
function readZip64Extra(extra: Uint8Array, entry: ZipEntry): void {
  const fields = view(extra)
  for (let at = 0; at + 4 <= extra.length; at += 4 + fields.getUint16(at + 2, true)) {
    if (fields.getUint16(at, true) !== 0x0001) continue
    const end = at + 4 + fields.getUint16(at + 2, true)
    let field = at + 4
    const next = () => {
      if (field + 8 > end) throw malformed(`The zip64 extra field of "${entry.name}" is too short.`)
      field += 8
      return uint64(fields, field - 8)
    }
    if (entry.size === 0xffffffff) entry.size = next()
    if (entry.compressedSize === 0xffffffff) entry.compressedSize = next()
    if (entry.headerOffset === 0xffffffff) entry.headerOffset = next()
    return
  }
}

function checkEntryName(name: string, raw: Uint8Array): void {
  if (name === '' || raw.includes(0) || name.includes('\\') || name.startsWith('/') || /^[a-z]:/i.test(name) || name.split('/').includes('..')) {
    throw unsafe(`Entry name "${name.replace(/\0/g, '\\0')}" is absolute or escapes the package; a 3MF's entries stay inside it.`)
  }
}

/** Entries must lie one after another before the central directory, never overlapping (a zip bomb trick). */
function checkLayout(entries: ZipEntry[], directoryOffset: number): void {
  const byOffset = [...entries].sort((a, b) => a.headerOffset - b.headerOffset)
  byOffset.forEach((entry, index) => {
    entry.end = byOffset[index + 1]?.headerOffset ?? directoryOffset
    if (entry.headerOffset + 30 + entry.compressedSize > entry.end) throw unsafe(`Entry "${entry.name}" overlaps the next entry or the central directory.`)
  })
}

/** An entry's bytes, inflated. Refuses an entry that declares more than `maxBytes`. */
async function readEntry(source: ByteSource, entry: ZipEntry, maxBytes: number): Promise<Uint8Array> {
  checkDeclaredSize(entry, maxBytes)
  const bytes = new Uint8Array(entry.size)
  let filled = 0
  await inflateEntry(source, entry, maxBytes, (chunk) => {
    bytes.set(chunk, filled)
    filled += chunk.length
  })
  return bytes
}

/**
 * Streams an entry's inflated bytes to `onData`. Input is pushed in slices small enough that
 * even a maximally compressed slice (deflate peaks near 1032:1) cannot overshoot the declared
 * size by more than about a mebibyte before the overshoot is caught.
 */
async function inflateEntry(source: ByteSource, entry: ZipEntry, maxBytes: number, onData: (chunk: Uint8Array) => void): Promise<void> {
  checkDeclaredSize(entry, maxBytes)
  if (entry.method !== 0 && entry.method !== 8) throw malformed(`Entry "${entry.name}" uses zip compression method ${entry.method}; only stored and deflated entries are supported.`)
  const headerBytes = await source.read(entry.headerOffset, Math.min(entry.headerOffset + 29 + entry.rawName.length, source.size - 1))
  const header = view(headerBytes)
  if (header.byteLength < 30 || header.getUint32(0, true) !== 0x04034b50) throw malformed(`The local header of entry "${entry.name}" is missing.`)
  const localName = headerBytes.subarray(30)
  if (header.getUint16(26, true) !== entry.rawName.length || !localName.every((byte, index) => byte === entry.rawName[index])) {
    throw unsafe(`The local header of entry "${entry.name}" names a different file than the central directory.`)
  }
  const dataStart = entry.headerOffset + 30 + header.getUint16(26, true) + header.getUint16(28, true)
  const dataEnd = dataStart + entry.compressedSize
  if (dataEnd > entry.end) throw unsafe(`The data of entry "${entry.name}" overlaps the next entry.`)

  let produced = 0
  const take = (chunk: Uint8Array) => {
    produced += chunk.length
    if (produced > entry.size) throw unsafe(`Entry "${entry.name}" inflates to more than the ${entry.size} bytes it declares.`)
    if (chunk.length > 0) onData(chunk)
  }
  const raw = entry.compressedSize === 0 ? new ReadableStream<Uint8Array>({ start: (c) => c.close() }) : source.stream(dataStart, dataEnd - 1)
  if (entry.method === 0) {
    await forEachChunk(raw, take)
  } else {
    const inflater = new Inflate((chunk) => take(chunk))
    try {
      await forEachChunk(raw, (chunk) => {
        for (let at = 0; at < chunk.length; ) {
          const step = Math.min(64 * 1024, Math.max(1024, Math.floor((entry.size - produced) / 1032)))
          inflater.push(chunk.subarray(at, at + step))
          at += step
        }
      })
      inflater.push(new Uint8Array(0), true)
    } catch (error) {
      if (error instanceof FormatError) throw error
      throw malformed(`The compressed data of entry "${entry.name}" is corrupt (${error instanceof Error ? error.message : String(error)}).`)
    }
  }
  if (produced !== entry.size) throw malformed(`Entry "${entry.name}" inflates to ${produced} bytes, not the ${entry.size} it declares.`)
}

function checkDeclaredSize(entry: ZipEntry, maxBytes: number): void {
  if (entry.size > maxBytes) throw unsafe(`Entry "${entry.name}" declares ${entry.size} bytes, more than the limit of ${maxBytes}.`)
}

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

function uint64(data: DataView, at: number): number {
  const high = data.getUint32(at + 4, true)
  if (high >= SAFE_HIGH_WORD) throw malformed('A zip64 size or offset is too large.')
  return high * 2 ** 32 + data.getUint32(at, true)
}

// ---------------------------------------------------------------------------------------
// XML: a streaming tokenizer, enough for 3MF and OPC parts (no DTD, no entity definitions)

interface XmlAttributes {
  names: string[]
  values: string[]
  count: number
}

interface XmlHandler {
  /** `name` is the local name (any `prefix:` removed); `attributes` is only valid during the call. */
  open(name: string, attributes: XmlAttributes, parent: string | undefined): void
  close(name: string): void
  /** While true, character data is passed to `text`, still entity-encoded. */
  capturingText: boolean
  text(raw: string): void
}

const TAG_NAME = /[^\s/>]+/y
const CLOSE_TAG = /<\/([^\s>]+)\s*>/y
const MAX_PENDING = MiB
const INCOMPLETE = -1

function createXmlTokenizer(handler: XmlHandler) {
  let pending = ''
  const stack: string[] = []
  const locals: string[] = [] // the local names of `stack`
  let sawRoot = false
  const attributes: XmlAttributes = { names: [], values: [], count: 0 }
  const localName = (name: string) => name.slice(name.indexOf(':') + 1)

  /** Handles the markup starting at `lt`; returns where it ends, or INCOMPLETE when the buffer ends first. */
  const markup = (buffer: string, lt: number): number => {
    const next = buffer.charCodeAt(lt + 1)
    if (next === 47 /* / */) {
      CLOSE_TAG.lastIndex = lt
      const match = CLOSE_TAG.exec(buffer)
      if (match === null) return buffer.indexOf('>', lt) === -1 ? INCOMPLETE : fail(`a closing tag is malformed near "${buffer.slice(lt, lt + 40)}"`)
      const name = match[1]!
      if (stack.pop() !== name) fail(`</${name}> does not close the open element`)
      handler.close(locals.pop()!)
      return CLOSE_TAG.lastIndex
    }
    if (next === 63 /* ? */) return after(buffer.indexOf('?>', lt), 2)
    if (next === 33 /* ! */) {
      if (buffer.startsWith('<!--', lt)) return after(buffer.indexOf('-->', lt), 3)
      if (buffer.startsWith('<![CDATA[', lt)) {
        const end = buffer.indexOf(']]>', lt)
        if (end !== -1 && handler.capturingText) handler.text(buffer.slice(lt + 9, end).replace(/&/g, '&amp;').replace(/</g, '&lt;'))
        return after(end, 3)
      }
      if (buffer.length - lt < 9) return INCOMPLETE
      return fail('a document type declaration is not allowed in 3MF')
    }
    TAG_NAME.lastIndex = lt + 1
    const nameMatch = TAG_NAME.exec(buffer)
    if (nameMatch === null) return lt + 1 >= buffer.length ? INCOMPLETE : fail(`"<" is not followed by a name near "${buffer.slice(lt, lt + 40)}"`)
    let at = TAG_NAME.lastIndex
    let selfClosing: boolean
    attributes.count = 0
    for (;;) {
      let code = buffer.charCodeAt(at)
      const spaced = isSpace(code)
      while (isSpace(code)) code = buffer.charCodeAt(++at)
      if (code === 62 /* > */ || code === 47 /* / */) {
        selfClosing = code === 47
        if (selfClosing && buffer.charCodeAt(at + 1) !== 62) return at + 1 >= buffer.length ? INCOMPLETE : fail(`"/" is not followed by ">" near "${buffer.slice(lt, lt + 40)}"`)
        at += selfClosing ? 2 : 1
        break
      }
      if (at >= buffer.length) return INCOMPLETE
      if (!spaced) fail(`attributes are not separated by white space near "${buffer.slice(at - 20, at + 20)}"`)
      const equals = buffer.indexOf('=', at)
      if (equals === -1) return INCOMPLETE
      let nameEnd = equals
      while (isSpace(buffer.charCodeAt(nameEnd - 1))) nameEnd--
      const name = buffer.slice(at, nameEnd)
      if (!isName(name)) fail(`"${name.slice(0, 40)}" is not an attribute name`)
      let quoteAt = equals + 1
      while (isSpace(buffer.charCodeAt(quoteAt))) quoteAt++
      const quote = buffer.charCodeAt(quoteAt)
      if (quoteAt >= buffer.length) return INCOMPLETE
      if (quote !== 34 && quote !== 39) fail(`the value of attribute ${name} is not quoted`)
      const close = buffer.indexOf(quote === 34 ? '"' : "'", quoteAt + 1)
      if (close === -1) return INCOMPLETE
      const value = buffer.slice(quoteAt + 1, close)
      if (value.includes('<')) fail(`the value of attribute ${name} contains "<"`)
      attributes.names[attributes.count] = name
      attributes.values[attributes.count++] = value.includes('&') ? decodeEntities(value) : value
      at = close + 1
    }
    const qualified = nameMatch[0]
    const local = localName(qualified)
    if (stack.length === 0 && sawRoot) fail('there is more than one root element')
    sawRoot = true
    handler.open(local, attributes, locals[locals.length - 1])
    if (selfClosing) {
      handler.close(local)
    } else {
      stack.push(qualified)
      locals.push(local)
    }
    return at
  }
  const after = (found: number, length: number) => (found === -1 ? INCOMPLETE : found + length)

  return {
    push(text: string) {
      const buffer = pending + text
      let position = 0
      for (;;) {
        const lt = buffer.indexOf('<', position)
        const textEnd = lt === -1 ? buffer.length : lt
        if (textEnd > position && handler.capturingText) handler.text(buffer.slice(position, textEnd))
        if (lt === -1) {
          position = buffer.length
          break
        }
        const end = markup(buffer, lt)
        if (end === INCOMPLETE) {
          position = lt
          break
        }
        position = end
      }
      pending = buffer.slice(position)
      if (pending.length > MAX_PENDING) fail(`a tag is longer than ${MAX_PENDING} characters`)
    },
    end() {
      if (pending.trim() !== '') fail(`the document ends inside a tag ("${pending.slice(0, 40)}")`)
      if (!sawRoot) fail('the document has no root element')
      if (stack.length > 0) fail(`the document ends before </${stack[stack.length - 1]}>`)
    },
  }
}

const isSpace = (code: number) => code === 32 || code === 10 || code === 9 || code === 13

/** Enough of XML's Name production to reject markup that is not an attribute name. */
function isName(name: string): boolean {
  if (name === '') return false
  for (let index = 0; index < name.length; index++) {
    const code = name.charCodeAt(index)
    if (isSpace(code) || code === 34 || code === 39 || code === 60 || code === 62 || code === 47 || code === 61) return false
  }
  return true
}

function fail(problem: string): never {
  throw malformed(`The XML is not well-formed: ${problem}.`)
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, entity: string) => {
    if (entity.startsWith('#')) {
      const code = entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10)
      return code <= 0x10ffff ? String.fromCodePoint(code) : whole
    }
    return ENTITIES[entity] ?? whole
  })
}

function attribute(attributes: XmlAttributes, name: string): string | undefined {
  for (let index = 0; index < attributes.count; index++) if (attributes.names[index] === name) return attributes.values[index]
  return undefined
}

/** An attribute in some extension namespace, whatever prefix the writer chose (e.g. `p:path`). */
function prefixedAttribute(attributes: XmlAttributes, localName: string): string | undefined {
  for (let index = 0; index < attributes.count; index++) if (attributes.names[index]!.endsWith(`:${localName}`)) return attributes.values[index]
  return undefined
}

/** Runs the tokenizer over a whole small text. */
function parseXml(text: string, handler: XmlHandler): void {
  const tokenizer = createXmlTokenizer(handler)
  tokenizer.push(text)
  tokenizer.end()
}

const openOnly = (open: XmlHandler['open']): XmlHandler => ({ open, close: () => undefined, capturingText: false, text: () => undefined })

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
    typeof value === 'string' ? value : Array.isArray(value) && value.every((item) => typeof item !== 'object') ? value.join(',') : JSON.stringify(value)
  return Object.fromEntries(Object.entries(settings).map(([key, value]) => [key, flat(value)]))
}

/**
 * Object names from `Metadata/Slic3r_PE_model.config` (PrusaSlicer) or
 * `Metadata/model_settings.config` (Bambu Studio, OrcaSlicer): `<object id>` holding
 * `<metadata key="name" value>`.
 */
async function objectNamesFromSlicerConfig(text: (name: string) => Promise<string | undefined>): Promise<Map<string, string>> {
  const names = new Map<string, string>()
  const xml = (await text('Metadata/Slic3r_PE_model.config')) ?? (await text('Metadata/model_settings.config'))
  if (xml === undefined) return names
  let objectId: string | undefined
  parseXml(
    xml,
    openOnly((name, attributes, parent) => {
      if (name === 'object') objectId = attribute(attributes, 'id')
      else if (name === 'metadata' && parent === 'object' && objectId !== undefined && attribute(attributes, 'key') === 'name') {
        const value = attribute(attributes, 'value')
        if (value) names.set(objectId, value)
      }
    }),
  )
  return names
}

/** A PNG or JPEG with its pixel size read from the image header; anything else is no thumbnail. */
function imageThumbnail(bytes: Uint8Array): Thumbnail | undefined {
  const data = view(bytes)
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
  if (bytes.length >= 24 && png.every((byte, index) => bytes[index] === byte) && data.getUint32(12) === 0x49484452 /* IHDR */) {
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

function sized(width: number, height: number, contentType: Thumbnail['contentType'], bytes: Uint8Array): Thumbnail | undefined {
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
async function readModelParts(source: ByteSource, zip: Map<string, ZipEntry>, rootPath: string, maxModelBytes: number): Promise<Map<string, ModelPart>> {
  const parts = new Map<string, ModelPart>()
  const referenced = new Set([rootPath]) // a Set's iteration also visits what is added during it
  let budget = maxModelBytes
  for (const path of referenced) {
    const entry = zip.get(path)
    if (entry === undefined) {
      throw malformed(path === rootPath ? `The package has no 3D model part (${path}).` : `A component refers to model part "${path}", which the package does not have.`)
    }
    if (entry.size > budget) throw unsafe(`The model parts declare more than the limit of ${maxModelBytes} bytes together.`)
    budget -= entry.size
    const part = await readModelPart(source, entry, path)
    parts.set(path, part)
    for (const object of part.objects.values()) for (const component of object.components) referenced.add(component.path)
    for (const item of part.build) referenced.add(item.path)
  }
  return parts
}

async function readModelPart(source: ByteSource, entry: ZipEntry, path: string): Promise<ModelPart> {
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
    return { path: referenced === undefined ? path : partName(referenced), objectId, transform: transform === undefined ? undefined : parseTransform(transform) }
  }
  const number = (attributes: XmlAttributes, name: string, element: string): number => {
    const text = attribute(attributes, name)
    const value = text === undefined || text === '' ? NaN : Number(text)
    if (!Number.isFinite(value)) throw malformed(`A <${element}> in ${path} has ${text === undefined ? `no ${name}` : `${name}="${text.slice(0, 40)}"`}, not a finite number.`)
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
        if (vertexCount * 3 === object.vertices.length) object.vertices = grown(object.vertices, (length) => new Float32Array(length))
        object.vertices[vertexCount * 3] = number(attributes, 'x', name)
        object.vertices[vertexCount * 3 + 1] = number(attributes, 'y', name)
        object.vertices[vertexCount * 3 + 2] = number(attributes, 'z', name)
        vertexCount++
      } else if (name === 'triangle' && parent === 'triangles' && object !== undefined) {
        if (triangleCount * 3 === object.triangles.length) object.triangles = grown(object.triangles, (length) => new Uint32Array(length))
        object.triangles[triangleCount * 3] = corner(attributes, 'v1')
        object.triangles[triangleCount * 3 + 1] = corner(attributes, 'v2')
        object.triangles[triangleCount * 3 + 2] = corner(attributes, 'v3')
        triangleCount++
      } else if (name === 'object' && parent === 'resources') {
        const id = attribute(attributes, 'id')
        if (id === undefined || part.objects.has(id)) throw malformed(`An object in ${path} has ${id === undefined ? 'no id' : `the duplicate id ${id}`}.`)
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
  await inflateEntry(source, entry, entry.size, (chunk) => tokenizer.push(decoder.decode(chunk, { stream: true })))
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
  if (values.length !== 12 || !values.every(Number.isFinite)) throw malformed(`The transform "${text.slice(0, 80)}" is not 12 numbers.`)
  return Float64Array.from(values)
}

/** `first` then `second`, for row vectors: the product first · second of the 4x4 affine matrices. */
function compose(first: Transform, second: Transform): Transform {
  const out = new Float64Array(12)
  for (let row = 0; row < 4; row++) {
    for (let column = 0; column < 3; column++) {
      out[row * 3 + column] =
        first[row * 3]! * second[column]! + first[row * 3 + 1]! * second[3 + column]! + first[row * 3 + 2]! * second[6 + column]! + (row === 3 ? second[9 + column]! : 0)
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
    if (object === undefined) throw malformed(`A build item or component refers to object ${objectId} in ${path}, which does not exist.`)
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

function emitBuild(parts: Map<string, ModelPart>, root: ModelPart, sink: TriangleSink): void {
  const units = Float64Array.of(root.scale, 0, 0, 0, root.scale, 0, 0, 0, root.scale, 0, 0, 0)
  const emitObject = (path: string, objectId: string, transform: Transform) => {
    const object = parts.get(path)!.objects.get(objectId)!
    emitMesh(object, transform, sink)
    for (const component of object.components) {
      emitObject(component.path, component.objectId, component.transform === undefined ? transform : compose(component.transform, transform))
    }
  }
  for (const item of root.build) emitObject(item.path, item.objectId, item.transform === undefined ? units : compose(item.transform, units))
}

/** Emits a mesh's triangles transformed; a mirroring transform reverses the winding so volumes stay positive. */
function emitMesh({ vertices, triangles }: ModelObject, m: Transform, sink: TriangleSink): void {
  const m00 = m[0]!, m01 = m[1]!, m02 = m[2]!, m10 = m[3]!, m11 = m[4]!, m12 = m[5]!
  const m20 = m[6]!, m21 = m[7]!, m22 = m[8]!, m30 = m[9]!, m31 = m[10]!, m32 = m[11]!
  const mirrored = m00 * (m11 * m22 - m12 * m21) - m01 * (m10 * m22 - m12 * m20) + m02 * (m10 * m21 - m11 * m20) < 0
  for (let at = 0; at < triangles.length; at += 3) {
    const a = triangles[at]! * 3
    const b = triangles[mirrored ? at + 2 : at + 1]! * 3
    const c = triangles[mirrored ? at + 1 : at + 2]! * 3
    const ax = vertices[a]!, ay = vertices[a + 1]!, az = vertices[a + 2]!
    const bx = vertices[b]!, by = vertices[b + 1]!, bz = vertices[b + 2]!
    const cx = vertices[c]!, cy = vertices[c + 1]!, cz = vertices[c + 2]!
    sink.triangle(
      ax * m00 + ay * m10 + az * m20 + m30, ax * m01 + ay * m11 + az * m21 + m31, ax * m02 + ay * m12 + az * m22 + m32,
      bx * m00 + by * m10 + bz * m20 + m30, bx * m01 + by * m11 + bz * m21 + m31, bx * m02 + by * m12 + bz * m22 + m32,
      cx * m00 + cy * m10 + cz * m20 + m30, cx * m01 + cy * m11 + cz * m21 + m31, cx * m02 + cy * m12 + cz * m22 + m32,
    )
  }
}
