import { Unzlib } from 'fflate'
import { crc32Update } from './crc32.js'
import { type ByteSource, FormatError } from './types.js'

/**
 * Prusa's binary G-code (`.bgcode`, PrusaSlicer 2.7 and later) as libbgcode's specification
 * defines it: a 10-byte header (`GCDE`, version 1, checksum type) and then blocks, each a header
 * (type, compression, sizes), parameters, data and, with checksum type 1, a CRC-32 of all three.
 * The metadata blocks hold INI `key=value` lines; thumbnail blocks hold PNG, JPEG or QOI images;
 * G-code blocks hold the moves (MeatPack and heatshrink), which nothing here needs to decode.
 */

/** `key=value` pairs of one metadata block, in file order. */
export type BinaryGcodeMetadata = Array<[key: string, value: string]>

export interface BinaryGcodeThumbnail {
  format: 'png' | 'jpg' | 'qoi'
  /** As the block's parameters state them. */
  width: number
  height: number
  bytes: Uint8Array
}

export interface BinaryGcodeContents {
  file: BinaryGcodeMetadata
  printer: BinaryGcodeMetadata
  print: BinaryGcodeMetadata
  slicer: BinaryGcodeMetadata
  thumbnails: BinaryGcodeThumbnail[]
}

/** How much of an untrusted file the reader takes into memory. */
export interface BinaryGcodeLimits {
  /** Bytes of one metadata or thumbnail block, stored and inflated. */
  maxBlockBytes: number
  /** Metadata and thumbnail blocks in the file. */
  maxBlocks: number
  /** Bytes of all metadata and thumbnail blocks together, inflated. */
  maxTotalBytes: number
}

const defaultLimits: BinaryGcodeLimits = {
  maxBlockBytes: 4 * 1024 * 1024,
  maxBlocks: 64,
  maxTotalBytes: 16 * 1024 * 1024,
}

/** True for bytes that begin with binary G-code's magic `GCDE`. */
export const isBinaryGcode = (head: Uint8Array) =>
  head[0] === 0x47 && head[1] === 0x43 && head[2] === 0x44 && head[3] === 0x45

const metadataBlocks = { 0: 'file', 2: 'slicer', 3: 'printer', 4: 'print' } as const
const gcodeBlock = 1
const thumbnailBlock = 5
const thumbnailFormats = ['png', 'jpg', 'qoi'] as const
const compressions = ['none', 'deflate', 'heatshrink 11/4', 'heatshrink 12/4']

/**
 * Reads a binary G-code's metadata and thumbnails in one pass over the file, checking every
 * block's structure and CRC-32 to the last byte. Memory stays within `limits` whatever the
 * file declares. Throws FormatError('unsafe') for a file a printer would reject: a wrong
 * header, a block cut short, a bad checksum, a size past the file or the limits, a metadata
 * block that inflates to more than it declares, or a compression PrusaSlicer does not use
 * for metadata and thumbnails (heatshrink there).
 */
export async function readBinaryGcode(
  source: ByteSource,
  limits: BinaryGcodeLimits = defaultLimits,
): Promise<BinaryGcodeContents> {
  const input = new SequentialReader(source.stream())
  try {
    return await readBlocks(input, source.size, limits)
  } finally {
    await input.close()
  }
}

async function readBlocks(
  input: SequentialReader,
  size: number,
  limits: BinaryGcodeLimits,
): Promise<BinaryGcodeContents> {
  const contents: BinaryGcodeContents = { file: [], printer: [], print: [], slicer: [], thumbnails: [] }
  if (size < 10) throw refuse(`The file is ${size} bytes long, shorter than the 10-byte binary G-code header.`)
  const header = view(await input.read(10))
  if (!isBinaryGcode(new Uint8Array(header.buffer, header.byteOffset, 4)))
    throw refuse('The file does not start with "GCDE".')
  const version = header.getUint32(4, true)
  if (version !== 1) throw refuse(`The file is binary G-code version ${version}; only version 1 is read.`)
  const checksumType = header.getUint16(8, true)
  if (checksumType > 1) throw refuse(`The file states checksum type ${checksumType}; only none (0) and CRC-32 (1).`)
  const checksumBytes = checksumType === 1 ? 4 : 0

  let position = 10
  let smallBlocks = 0
  let smallBytes = 0
  let gcodeBlocks = 0
  while (position < size) {
    if (size - position < 8) throw refuse(`The block at byte ${position} is cut short.`)
    const first = await input.read(8)
    const fields = view(first)
    const type = fields.getUint16(0, true)
    const compression = fields.getUint16(2, true)
    const uncompressedSize = fields.getUint32(4, true)
    if (compression >= compressions.length)
      throw refuse(`The block at byte ${position} states compression ${compression}, which is not defined.`)
    const second = compression === 0 ? new Uint8Array(0) : await readWithin(input, position + 8, 4, size)
    const dataSize = compression === 0 ? uncompressedSize : view(second).getUint32(0, true)
    const parametersSize = type === thumbnailBlock ? 6 : 2
    if (type !== gcodeBlock && type !== thumbnailBlock && !(type in metadataBlocks))
      throw refuse(`The block at byte ${position} is of type ${type}, which is not defined.`)
    const headerSize = 8 + second.length
    const end = position + headerSize + parametersSize + dataSize + checksumBytes
    if (end > size)
      throw refuse(
        `The block at byte ${position} declares ${dataSize} bytes of data, past the end of the ${size}-byte file (it is cut short).`,
      )

    let crc = crc32Update(crc32Update(0, first), second)
    const parameters = await input.read(parametersSize)
    crc = crc32Update(crc, parameters)
    if (type === gcodeBlock) {
      gcodeBlocks++
      crc = await input.skip(dataSize, crc)
    } else {
      if (gcodeBlocks > 0) throw refuse(`The block at byte ${position} follows the G-code; metadata comes first.`)
      if (++smallBlocks > limits.maxBlocks)
        throw refuse(`The file has more than ${limits.maxBlocks} metadata and thumbnail blocks.`)
      if (dataSize > limits.maxBlockBytes || uncompressedSize > limits.maxBlockBytes)
        throw refuse(
          `The block at byte ${position} declares ${Math.max(dataSize, uncompressedSize)} bytes, more than the limit of ${limits.maxBlockBytes}.`,
        )
      smallBytes += uncompressedSize
      if (smallBytes > limits.maxTotalBytes)
        throw refuse(`The metadata and thumbnail blocks hold more than ${limits.maxTotalBytes} bytes together.`)
      const data = await input.read(dataSize)
      crc = crc32Update(crc, data)
      const bytes = inflated(data, compression, uncompressedSize, position)
      if (type === thumbnailBlock) contents.thumbnails.push(thumbnailOf(view(parameters), bytes, position))
      else contents[metadataBlocks[type as keyof typeof metadataBlocks]].push(...metadataOf(view(parameters), bytes))
    }
    if (checksumBytes > 0) {
      const stated = view(await input.read(4)).getUint32(0, true)
      if (stated !== crc) throw refuse(`The block at byte ${position} fails its CRC-32 check: the file is damaged.`)
    }
    position = end
  }
  if (gcodeBlocks === 0) throw refuse('The file holds no G-code blocks.')
  return contents
}

async function readWithin(input: SequentialReader, at: number, length: number, size: number): Promise<Uint8Array> {
  if (at + length > size) throw refuse(`The block header at byte ${at - 8} is cut short.`)
  return input.read(length)
}

/** A metadata or thumbnail block's bytes as stored (0) or inflated (1); heatshrink is only for G-code. */
function inflated(data: Uint8Array, compression: number, declared: number, position: number): Uint8Array {
  if (compression === 0) return data
  if (compression !== 1)
    throw refuse(
      `The metadata or thumbnail block at byte ${position} is compressed with ${compressions[compression]}, which PrusaSlicer uses only for G-code; it is not read.`,
    )
  const output = new Uint8Array(declared)
  let produced = 0
  const inflater = new Unzlib((chunk) => {
    if (produced + chunk.length > declared)
      throw refuse(`The block at byte ${position} inflates to more than the ${declared} bytes it declares.`)
    output.set(chunk, produced)
    produced += chunk.length
  })
  try {
    // Small slices: deflate peaks near 1032:1, so one push yields at most about 1 MiB past the declared size.
    for (let at = 0; at < data.length; at += 1024) inflater.push(data.subarray(at, at + 1024), at + 1024 >= data.length)
  } catch (error) {
    if (error instanceof FormatError) throw error
    throw refuse(`The compressed data of the block at byte ${position} is corrupt (${String(error)}).`)
  }
  if (produced !== declared)
    throw refuse(`The block at byte ${position} inflates to ${produced} bytes, not the ${declared} it declares.`)
  return output
}

function metadataOf(parameters: DataView, bytes: Uint8Array): BinaryGcodeMetadata {
  const encoding = parameters.getUint16(0, true)
  if (encoding !== 0) throw refuse(`A metadata block states encoding ${encoding}; only INI (0) is defined.`)
  return new TextDecoder('utf-8')
    .decode(bytes)
    .split(/\r?\n/)
    .map((line) => /^([^=]+)=(.*)$/.exec(line))
    .filter((match) => match !== null)
    .map((match) => [match[1]!.trim(), match[2]!.trim()])
}

function thumbnailOf(parameters: DataView, bytes: Uint8Array, position: number): BinaryGcodeThumbnail {
  const format = thumbnailFormats[parameters.getUint16(0, true)]
  if (!format)
    throw refuse(
      `The thumbnail at byte ${position} states format ${parameters.getUint16(0, true)}, which is not defined.`,
    )
  return { format, width: parameters.getUint16(2, true), height: parameters.getUint16(4, true), bytes }
}

const refuse = (message: string) => new FormatError('unsafe', `This binary G-code cannot be read: ${message}`)

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

/** Reads a stream front to back: small runs into memory, long ones only through a checksum. */
class SequentialReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>
  private pending: Uint8Array = new Uint8Array(0)

  constructor(stream: ReadableStream<Uint8Array>) {
    this.reader = stream.getReader()
  }

  /** The next `length` bytes (callers bound `length`). */
  async read(length: number): Promise<Uint8Array> {
    const out = new Uint8Array(length)
    let filled = 0
    while (filled < length) {
      const chunk = await this.next(length - filled)
      out.set(chunk, filled)
      filled += chunk.length
    }
    return out
  }

  /** Passes over the next `length` bytes, folding them into `crc`. */
  async skip(length: number, crc: number): Promise<number> {
    let left = length
    let folded = crc
    while (left > 0) {
      const chunk = await this.next(left)
      folded = crc32Update(folded, chunk)
      left -= chunk.length
    }
    return folded
  }

  private async next(atMost: number): Promise<Uint8Array> {
    if (this.pending.length === 0) {
      const { done, value } = await this.reader.read()
      if (done) throw refuse('The file ends inside a block.')
      this.pending = value
    }
    const chunk = this.pending.subarray(0, atMost)
    this.pending = this.pending.subarray(chunk.length)
    return chunk
  }

  async close(): Promise<void> {
    await this.reader.cancel().catch(() => undefined)
  }
}
