import { convertIndexedToRgb, decode as decodePng, encode as encodePng } from 'fast-png'
import { Unzlib } from 'fflate'
import { decode as decodeJpeg, encode as encodeJpeg } from 'jpeg-js'
import { imageKind, imageSize } from './image-header.js'
import { type ByteSource, FormatError, type Thumbnail } from './types.js'

/** Longest side of a thumbnail made by scaling an image down. */
const THUMBNAIL_SIDE = 512
/** An image this small (and no larger than `AS_IS_SIDE`) is its own thumbnail. */
const AS_IS_BYTES = 512 * 1024
const AS_IS_SIDE = 2048
/** Past these, no thumbnail is made: decoding would cost too much memory or time. */
const MAX_DECODE_PIXELS = 24_000_000
const MAX_DECODE_BYTES = 64 * 1024 * 1024
/** Enough of a file to find any of the headers `imageSize` reads (a JPEG's EXIF comes first). */
const HEADER_BYTES = 256 * 1024

const contentTypes = { png: 'image/png', jpg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' } as const

export interface ReadImage {
  metadata: { image: { type: keyof typeof contentTypes; width: number; height: number } }
  warnings: string[]
  thumbnail?: Thumbnail
  /** Set when `scale` was false and the image would be scaled down: its thumbnail is still to make. */
  renderLater?: true
}

/**
 * Reads an image's kind and size and makes its thumbnail: the image itself when it is small,
 * else (PNG, JPEG) a copy scaled down to 512 pixels. Dimensions are read from the header and
 * checked before anything is decoded, so an image claiming 100000×100000 pixels is stored
 * without a thumbnail instead of being given gigabytes of memory. Throws a `malformed`
 * FormatError for bytes that are not a PNG, JPEG, GIF or WebP. With `scale` false the scaling (the
 * costly part) is left for later: the answer says so with `renderLater`.
 */
export async function readImage(source: ByteSource, scale = true): Promise<ReadImage> {
  const head = await source.read(0, Math.min(source.size, HEADER_BYTES) - 1)
  const kind = imageKind(head)
  if (kind === null || kind === 'qoi')
    throw new FormatError('malformed', 'The file is not a PNG, JPEG, GIF or WebP image.')
  let size: { width: number; height: number }
  try {
    size = imageSize(head, kind)
  } catch (error) {
    throw new FormatError('malformed', error instanceof Error ? error.message : String(error))
  }
  const metadata = { image: { type: kind, ...size } }
  const contentType = contentTypes[kind]
  if (source.size <= AS_IS_BYTES && size.width <= AS_IS_SIDE && size.height <= AS_IS_SIDE) {
    const bytes = source.size <= head.length ? head : await source.read(0, source.size - 1)
    return { metadata, warnings: [], thumbnail: { ...size, contentType, bytes } }
  }
  const refusal = thumbnailRefusal(kind, source.size, size)
  if (refusal) return { metadata, warnings: [`No thumbnail: ${refusal}`] }
  if (!scale) return { metadata, warnings: [], renderLater: true }
  try {
    const bytes = await source.read(0, source.size - 1)
    return { metadata, warnings: [], thumbnail: kind === 'png' ? pngThumbnail(bytes, size) : jpegThumbnail(bytes) }
  } catch (error) {
    return { metadata, warnings: [`No thumbnail: the image cannot be decoded (${messageOf(error)}).`] }
  }
}

function thumbnailRefusal(kind: string, bytes: number, size: { width: number; height: number }): string | undefined {
  if (kind !== 'png' && kind !== 'jpg') return `a ${kind.toUpperCase()} image is its own thumbnail only when small.`
  if (bytes > MAX_DECODE_BYTES) return `the image is larger than ${MAX_DECODE_BYTES / 1024 / 1024} MiB.`
  if (size.width * size.height > MAX_DECODE_PIXELS)
    return `the image has ${size.width}×${size.height} pixels, more than ${MAX_DECODE_PIXELS / 1_000_000} million.`
  return undefined
}

function pngThumbnail(bytes: Uint8Array, size: { width: number; height: number }): Thumbnail {
  assertInflatedSizeFits(bytes, size)
  const png = decodePng(bytes)
  const indexed = png.palette !== undefined
  if (!indexed && png.depth < 8) throw new Error(`${png.depth}-bit grey PNGs are not scaled`)
  const data = indexed ? convertIndexedToRgb(png) : png.data
  const channels = indexed ? data.length / (png.width * png.height) : png.channels
  const scaled = scaleDown({ width: png.width, height: png.height, data, channels, shift: png.depth === 16 ? 8 : 0 })
  return { ...scaled, contentType: 'image/png', bytes: encodePng({ ...scaled, channels: 4, depth: 8 }) }
}

function jpegThumbnail(bytes: Uint8Array): Thumbnail {
  const jpeg = decodeJpeg(bytes, {
    useTArray: true,
    formatAsRGBA: true,
    maxResolutionInMP: MAX_DECODE_PIXELS / 1_000_000,
    maxMemoryUsageInMB: 256,
  })
  const scaled = scaleDown({ ...jpeg, channels: 4, shift: 0 })
  return { ...scaled, contentType: 'image/jpeg', bytes: new Uint8Array(encodeJpeg(scaled, 85).data) }
}

/**
 * Inflates a PNG's image data once, counting, before the decoder does it for real: a few
 * kilobytes of deflate can expand to gigabytes, more than the header's dimensions allow.
 */
function assertInflatedSizeFits(bytes: Uint8Array, size: { width: number; height: number }): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const bitsPerPixel = bytes[24]! * ({ 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[bytes[25]!] ?? 4)
  // Interlaced images add a filter byte and a partial byte per row of each of the seven passes.
  const limit = size.height * (Math.ceil((size.width * bitsPerPixel) / 8) + 4) + 64
  let inflated = 0
  const inflater = new Unzlib((chunk) => {
    inflated += chunk.length
    if (inflated > limit) throw new Error(`its image data inflates to more than the ${limit} bytes its size allows`)
  })
  for (let offset = 8; offset + 8 <= bytes.length; ) {
    const length = view.getUint32(offset)
    const type = String.fromCharCode(...bytes.subarray(offset + 4, offset + 8))
    if (type === 'IDAT') inflater.push(bytes.subarray(offset + 8, offset + 8 + length))
    if (type === 'IEND') break
    offset += 12 + length
  }
}

interface Pixels {
  width: number
  height: number
  data: ArrayLike<number>
  channels: number
  /** Bits to drop from each sample to get 8 (8 for 16-bit PNGs). */
  shift: number
}

/** Box-filters an image to fit `THUMBNAIL_SIDE` (never up), as 8-bit RGBA. */
function scaleDown(image: Pixels): { width: number; height: number; data: Uint8Array } {
  const scale = Math.min(1, THUMBNAIL_SIDE / Math.max(image.width, image.height))
  const width = Math.max(1, Math.round(image.width * scale))
  const height = Math.max(1, Math.round(image.height * scale))
  const sums = new Float64Array(width * height * 4)
  const counts = new Uint32Array(width * height)
  const { data, channels, shift } = image
  for (let y = 0; y < image.height; y++) {
    const row = Math.min(height - 1, Math.floor(y * scale)) * width
    for (let x = 0; x < image.width; x++) {
      const target = row + Math.min(width - 1, Math.floor(x * scale))
      const at = (y * image.width + x) * channels
      const grey = channels < 3
      const r = data[at]! >> shift
      const g = grey ? r : data[at + 1]! >> shift
      const b = grey ? r : data[at + 2]! >> shift
      const a = channels === 2 || channels === 4 ? data[at + channels - 1]! >> shift : 255
      const sum = target * 4
      sums[sum] = sums[sum]! + r
      sums[sum + 1] = sums[sum + 1]! + g
      sums[sum + 2] = sums[sum + 2]! + b
      sums[sum + 3] = sums[sum + 3]! + a
      counts[target] = counts[target]! + 1
    }
  }
  const out = new Uint8Array(width * height * 4)
  for (let i = 0; i < out.length; i++) out[i] = Math.round(sums[i]! / counts[i >> 2]!)
  return { width, height, data: out }
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))
