import { FormatError } from './types.js'

/** A decoded QOI image: `channels` bytes per pixel (RGB or RGBA), rows top to bottom. */
export interface QoiImage {
  width: number
  height: number
  channels: 3 | 4
  /** 0: sRGB with linear alpha, 1: all channels linear (informative only). */
  colorspace: 0 | 1
  data: Uint8Array
}

const headerLength = 14
const endMarker = [0, 0, 0, 0, 0, 0, 0, 1]
const opRgb = 0xfe
const opRgba = 0xff

/**
 * Decodes a QOI ("Quite OK Image") file, as PrusaSlicer embeds in G-code for printers with
 * little memory. Follows the QOI 1.0 specification; throws FormatError('malformed') on a
 * bad header, on data that ends before every pixel is decoded, or when the image has more
 * than `maxPixels` pixels (default 4096 × 4096), so a forged header cannot claim gigabytes.
 */
export function decodeQoi(bytes: Uint8Array, options: { maxPixels?: number } = {}): QoiImage {
  const maxPixels = options.maxPixels ?? 4096 * 4096
  if (bytes.length < headerLength + endMarker.length || String.fromCharCode(...bytes.subarray(0, 4)) !== 'qoif') {
    throw new FormatError('malformed', 'Not a QOI image (no "qoif" header).')
  }
  const header = new DataView(bytes.buffer, bytes.byteOffset, headerLength)
  const width = header.getUint32(4)
  const height = header.getUint32(8)
  const channels = bytes[12]
  const colorspace = bytes[13]
  if ((channels !== 3 && channels !== 4) || (colorspace !== 0 && colorspace !== 1)) {
    throw new FormatError(
      'malformed',
      `QOI header has channels ${channels} and colorspace ${colorspace}; expected 3 or 4 and 0 or 1.`,
    )
  }
  const pixels = width * height
  if (pixels === 0 || pixels > maxPixels) {
    throw new FormatError(
      'malformed',
      `QOI image of ${width}×${height} pixels is outside the accepted 1 to ${maxPixels} pixels.`,
    )
  }

  const data = new Uint8Array(pixels * channels)
  const seen = new Uint8Array(64 * 4)
  let r = 0
  let g = 0
  let b = 0
  let a = 255
  let run = 0
  let position = headerLength
  const chunksEnd = bytes.length - endMarker.length
  const next = () => {
    if (position >= chunksEnd)
      throw new FormatError('malformed', `QOI data ends before all ${pixels} pixels of the image are decoded.`)
    return bytes[position++]!
  }

  for (let pixel = 0; pixel < pixels; pixel++) {
    if (run > 0) {
      run--
    } else {
      const tag = next()
      if (tag === opRgb || tag === opRgba) {
        r = next()
        g = next()
        b = next()
        if (tag === opRgba) a = next()
      } else if (tag >> 6 === 0) {
        const slot = tag * 4
        r = seen[slot]!
        g = seen[slot + 1]!
        b = seen[slot + 2]!
        a = seen[slot + 3]!
      } else if (tag >> 6 === 1) {
        r = (r + ((tag >> 4) & 3) - 2) & 255
        g = (g + ((tag >> 2) & 3) - 2) & 255
        b = (b + (tag & 3) - 2) & 255
      } else if (tag >> 6 === 2) {
        const dg = (tag & 63) - 32
        const second = next()
        r = (r + dg + (second >> 4) - 8) & 255
        g = (g + dg) & 255
        b = (b + dg + (second & 15) - 8) & 255
      } else {
        run = tag & 63
      }
      const slot = ((r * 3 + g * 5 + b * 7 + a * 11) % 64) * 4
      seen[slot] = r
      seen[slot + 1] = g
      seen[slot + 2] = b
      seen[slot + 3] = a
    }
    const offset = pixel * channels
    data[offset] = r
    data[offset + 1] = g
    data[offset + 2] = b
    if (channels === 4) data[offset + 3] = a
  }
  return { width, height, channels, colorspace, data }
}
