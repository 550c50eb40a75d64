import { Inflate } from 'fflate'
import { forEachChunk } from './byte-source.js'
import { decodeCp437 } from './cp437.js'
import { crc32 } from './crc32.js'
import { type ByteSource, FormatError } from './types.js'

/** How much of an untrusted zip the reader is willing to take on. */
export interface ZipLimits {
  /** Entries in the archive. */
  maxEntries: number
  /** Inflated bytes any one entry may declare. */
  maxEntryBytes: number
  /** Uncompressed to compressed size, for entries above 1 MiB. */
  maxCompressionRatio: number
}

/** One entry of an opened zip, as its central directory declares it. */
export interface ZipEntry {
  readonly name: string
  /** Inflated bytes; reading the entry fails if the data yields more or fewer. */
  readonly size: number
  readonly compressedSize: number
  /** The CRC-32 of its bytes as the central directory states it (an identity, not checked here). */
  readonly crc32: number
  /** A folder: its name ends with `/`. */
  readonly isDirectory: boolean
  /** A symbolic link, as zips made on Unix mark one (file type in the external attributes). */
  readonly isSymlink: boolean
}

/** An opened zip whose every entry has passed the checks of `openZip`. */
export interface ZipReader {
  /** The entries in central directory order. */
  readonly entries: readonly ZipEntry[]
  /** The entry named `name`, compared case-insensitively (as OPC part names are). */
  get(name: string): ZipEntry | undefined
  /** An entry's inflated bytes. Refuses an entry that declares more than `maxBytes` (default: the open limit). */
  readEntry(entry: ZipEntry, maxBytes?: number): Promise<Uint8Array>
  /**
   * Streams an entry's inflated bytes to `onData` as they come, stopping with
   * FormatError('unsafe') as soon as the data yields more than the entry declares.
   */
  streamEntry(entry: ZipEntry, onData: (chunk: Uint8Array) => void, maxBytes?: number): Promise<void>
  /**
   * An entry's inflated bytes as a stream that inflates only as fast as it is read, erroring
   * as `streamEntry` fails. Rejects at once for a bad local header.
   */
  openEntry(entry: ZipEntry, maxBytes?: number): Promise<ReadableStream<Uint8Array>>
}

/** What the reader keeps of a central directory record. */
interface StoredEntry extends ZipEntry {
  size: number
  compressedSize: number
  rawName: Uint8Array
  flags: number
  method: number
  headerOffset: number
  /** Where the next entry (or the central directory) starts: this entry's data must end by then. */
  end: number
}

const MiB = 1024 * 1024
const unsafe = (message: string) => new FormatError('unsafe', message)
const malformed = (message: string) => new FormatError('malformed', message)
const MAX_CENTRAL_DIRECTORY = 16 * MiB
const SAFE_HIGH_WORD = 2 ** 21 // the high 32 bits of a 64-bit size that still fits a JS number

/**
 * Opens an untrusted zip (as 3MF and other OPC packages are) through range reads of its end
 * records and central directory; nothing is inflated until an entry is read, and then only
 * that entry's data is streamed. Supports zip64, stored and deflated entries.
 *
 * Throws FormatError('unsafe') for path tricks in entry names (absolute, `..`, backslashes,
 * NUL), two names equal but for case, more entries than the limit, an entry declaring more
 * than the limit or compressed beyond the ratio, or entries overlapping each other or the
 * central directory; FormatError('malformed') for a file that is not a readable zip
 * (no or misplaced end records, corrupt directory, several disks, encryption). Reading an
 * entry adds checks of its local header, compression method and inflated size.
 */
export async function openZip(source: ByteSource, limits: ZipLimits): Promise<ZipReader> {
  const { entries, directoryOffset } = await readCentralDirectory(source, limits)
  checkLayout(entries, directoryOffset)
  const byName = new Map(entries.map((entry) => [entry.name.toLowerCase(), entry]))
  const stored = (entry: ZipEntry): StoredEntry => {
    const found = byName.get(entry.name.toLowerCase())
    if (found !== entry) throw new TypeError(`"${entry.name}" is not an entry of this zip.`)
    return found
  }
  const openEntry = (entry: ZipEntry, maxBytes = limits.maxEntryBytes) =>
    inflatedStream(source, stored(entry), maxBytes)
  const streamEntry = async (entry: ZipEntry, onData: (chunk: Uint8Array) => void, maxBytes?: number) =>
    forEachChunk(await openEntry(entry, maxBytes), onData)
  return {
    entries,
    get: (name) => byName.get(name.toLowerCase()),
    streamEntry,
    openEntry,
    async readEntry(entry, maxBytes) {
      const bytes = new Uint8Array(stored(entry).size)
      let filled = 0
      await streamEntry(
        entry,
        (chunk) => {
          bytes.set(chunk, filled)
          filled += chunk.length
        },
        maxBytes,
      )
      return bytes
    },
  }
}

async function readCentralDirectory(
  source: ByteSource,
  limits: ZipLimits,
): Promise<{ entries: StoredEntry[]; directoryOffset: number }> {
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
    if (locator < 0 || tailView.getUint32(locator, true) !== 0x07064b50)
      throw malformed('The zip64 end of central directory locator is missing.')
    const recordOffset = uint64(tailView, locator + 8)
    if (recordOffset + 56 > tailStart + locator)
      throw malformed('The zip64 end of central directory record is out of place.')
    const record = view(await source.read(recordOffset, recordOffset + 55))
    if (record.getUint32(0, true) !== 0x06064b50)
      throw malformed('The zip64 end of central directory record is missing.')
    entryCount = uint64(record, 32)
    directorySize = uint64(record, 40)
    directoryOffset = uint64(record, 48)
    directoryLimit = recordOffset
  }
  if (entryCount > limits.maxEntries)
    throw unsafe(`The package has ${entryCount} entries, more than the limit of ${limits.maxEntries}.`)
  if (directorySize > MAX_CENTRAL_DIRECTORY)
    throw unsafe(
      `The zip central directory is ${directorySize} bytes, more than the limit of ${MAX_CENTRAL_DIRECTORY}.`,
    )
  if (directoryOffset + directorySize > directoryLimit || directorySize < 46 * entryCount) {
    throw malformed('The zip central directory does not fit where the end record places it.')
  }
  const directory =
    directorySize === 0 ? new Uint8Array(0) : await source.read(directoryOffset, directoryOffset + directorySize - 1)
  return { entries: parseCentralDirectory(directory, entryCount, limits), directoryOffset }
}

function parseCentralDirectory(directory: Uint8Array, entryCount: number, limits: ZipLimits): StoredEntry[] {
  const dir = view(directory)
  const entries: StoredEntry[] = []
  const names = new Set<string>()
  let at = 0
  for (let index = 0; index < entryCount; index++) {
    if (at + 46 > directory.length || dir.getUint32(at, true) !== 0x02014b50)
      throw malformed(`Zip central directory entry ${index + 1} is corrupt.`)
    const nameLength = dir.getUint16(at + 28, true)
    const extraLength = dir.getUint16(at + 30, true)
    const next = at + 46 + nameLength + extraLength + dir.getUint16(at + 32, true)
    if (next > directory.length) throw malformed(`Zip central directory entry ${index + 1} runs past the directory.`)
    const rawName = directory.slice(at + 46, at + 46 + nameLength)
    const flags = dir.getUint16(at + 8, true)
    const extra = directory.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength)
    const name = entryName(rawName, flags, extra)
    const madeOnUnix = dir.getUint8(at + 5) === 3
    const entry: StoredEntry = {
      name,
      rawName,
      isDirectory: name.endsWith('/'),
      isSymlink: madeOnUnix && ((dir.getUint32(at + 38, true) >>> 16) & 0o170000) === 0o120000,
      flags,
      method: dir.getUint16(at + 10, true),
      crc32: dir.getUint32(at + 16, true),
      compressedSize: dir.getUint32(at + 20, true),
      size: dir.getUint32(at + 24, true),
      headerOffset: dir.getUint32(at + 42, true),
      end: 0,
    }
    readZip64Extra(extra, entry)
    checkEntryName(name, rawName)
    if (names.has(name.toLowerCase()))
      throw unsafe(`The package has two entries named "${name}" (names are case-insensitive).`)
    names.add(name.toLowerCase())
    if (entry.flags & 0x41) throw malformed(`Entry "${name}" is encrypted; encrypted packages are not supported.`)
    checkDeclaredSize(entry, limits.maxEntryBytes)
    if (entry.size > MiB && entry.size > limits.maxCompressionRatio * entry.compressedSize) {
      throw unsafe(
        `Entry "${name}" declares ${entry.size} bytes from ${entry.compressedSize} compressed: a ratio above ${limits.maxCompressionRatio}:1.`,
      )
    }
    entries.push(entry)
    at = next
  }
  return entries
}

const utf8 = new TextDecoder()
const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * An entry's name: UTF-8 when the entry says so (general purpose bit 11), else the Info-ZIP
 * Unicode Path extra field (0x7075) when it is there and was written for this very name (its
 * CRC-32 matches the name's bytes: a tool that renamed the entry and left the field would
 * otherwise win), else UTF-8 if the bytes are valid UTF-8 (macOS's Archive Utility writes UTF-8
 * without the flag; CP437 names almost never form valid UTF-8), else CP437, the zip format's
 * original character set, which Windows' "Compressed folder" writes.
 */
function entryName(raw: Uint8Array, flags: number, extra: Uint8Array): string {
  if (flags & 0x0800) return utf8.decode(raw)
  const fields = view(extra)
  for (let at = 0; at + 4 <= extra.length; at += 4 + fields.getUint16(at + 2, true)) {
    const size = fields.getUint16(at + 2, true)
    if (fields.getUint16(at, true) !== 0x7075 || size < 5 || at + 4 + size > extra.length) continue
    if (fields.getUint8(at + 4) === 1 && fields.getUint32(at + 5, true) === crc32(raw))
      return utf8.decode(extra.subarray(at + 9, at + 4 + size))
  }
  try {
    return strictUtf8.decode(raw)
  } catch {
    return decodeCp437(raw)
  }
}

/** Applies the zip64 extended information extra field to the 32-bit fields saturated at 0xFFFFFFFF. */
function readZip64Extra(extra: Uint8Array, entry: StoredEntry): void {
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
  if (
    name === '' ||
    raw.includes(0) ||
    name.includes('\\') ||
    name.startsWith('/') ||
    /^[a-z]:/i.test(name) ||
    name.split('/').includes('..')
  ) {
    throw unsafe(
      `Entry name "${name.replace(/\0/g, '\\0')}" is absolute or escapes the package; a package's entries stay inside it.`,
    )
  }
}

/** Entries must lie one after another before the central directory, never overlapping (a zip bomb trick). */
function checkLayout(entries: StoredEntry[], directoryOffset: number): void {
  const byOffset = [...entries].sort((a, b) => a.headerOffset - b.headerOffset)
  byOffset.forEach((entry, index) => {
    entry.end = byOffset[index + 1]?.headerOffset ?? directoryOffset
    if (entry.headerOffset + 30 + entry.compressedSize > entry.end)
      throw unsafe(`Entry "${entry.name}" overlaps the next entry or the central directory.`)
  })
}

/**
 * An entry's inflated bytes as a stream that inflates only when it is read: each read feeds the
 * inflater slices of input until some output comes. Slices are small enough that even a
 * maximally compressed one (deflate peaks near 1032:1) yields at most about 16 MiB, so no read
 * holds the thread or memory long and an overshoot of the declared size is caught early.
 */
async function inflatedStream(
  source: ByteSource,
  entry: StoredEntry,
  maxBytes: number,
): Promise<ReadableStream<Uint8Array>> {
  checkDeclaredSize(entry, maxBytes)
  if (entry.method !== 0 && entry.method !== 8)
    throw malformed(
      `Entry "${entry.name}" uses zip compression method ${entry.method}; only stored and deflated entries are supported.`,
    )
  const headerBytes = await source.read(
    entry.headerOffset,
    Math.min(entry.headerOffset + 29 + entry.rawName.length, source.size - 1),
  )
  const header = view(headerBytes)
  if (header.byteLength < 30 || header.getUint32(0, true) !== 0x04034b50)
    throw malformed(`The local header of entry "${entry.name}" is missing.`)
  const localName = headerBytes.subarray(30)
  if (
    header.getUint16(26, true) !== entry.rawName.length ||
    !localName.every((byte, index) => byte === entry.rawName[index])
  ) {
    throw unsafe(`The local header of entry "${entry.name}" names a different file than the central directory.`)
  }
  const dataStart = entry.headerOffset + 30 + header.getUint16(26, true) + header.getUint16(28, true)
  const dataEnd = dataStart + entry.compressedSize
  if (dataEnd > entry.end) throw unsafe(`The data of entry "${entry.name}" overlaps the next entry.`)

  let produced = 0
  let output: ReadableStreamDefaultController<Uint8Array> | undefined
  const take = (chunk: Uint8Array) => {
    produced += chunk.length
    if (produced > entry.size)
      throw unsafe(`Entry "${entry.name}" inflates to more than the ${entry.size} bytes it declares.`)
    if (chunk.length > 0) output?.enqueue(chunk)
  }
  const inflater = entry.method === 8 ? new Inflate((chunk) => take(chunk)) : undefined
  const corrupt = (error: unknown) =>
    error instanceof FormatError
      ? error
      : malformed(
          `The compressed data of entry "${entry.name}" is corrupt (${error instanceof Error ? error.message : String(error)}).`,
        )
  const reader = (
    entry.compressedSize === 0
      ? new ReadableStream<Uint8Array>({ start: (c) => c.close() })
      : source.stream(dataStart, dataEnd - 1)
  ).getReader()
  let input: Uint8Array = new Uint8Array(0)
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      output = controller
      const before = produced
      try {
        while (produced === before) {
          if (input.length === 0) {
            const next = await reader.read()
            if (next.done) {
              inflater?.push(new Uint8Array(0), true)
              if (produced !== entry.size)
                throw malformed(
                  `Entry "${entry.name}" inflates to ${produced} bytes, not the ${entry.size} it declares.`,
                )
              return controller.close()
            }
            input = next.value
          }
          const step = inflater
            ? Math.min(16 * 1024, Math.max(1024, Math.floor((entry.size - produced) / 1032)))
            : input.length
          const slice = input.subarray(0, step)
          input = input.subarray(step)
          if (inflater) inflater.push(slice)
          else take(slice)
        }
      } catch (error) {
        await reader.cancel().catch(() => {})
        throw corrupt(error)
      }
    },
    cancel: (reason) => reader.cancel(reason),
  })
}

function checkDeclaredSize(entry: StoredEntry, maxBytes: number): void {
  if (entry.size > maxBytes)
    throw unsafe(`Entry "${entry.name}" declares ${entry.size} bytes, more than the limit of ${maxBytes}.`)
}

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

function uint64(data: DataView, at: number): number {
  const high = data.getUint32(at + 4, true)
  if (high >= SAFE_HIGH_WORD) throw malformed('A zip64 size or offset is too large.')
  return high * 2 ** 32 + data.getUint32(at, true)
}
