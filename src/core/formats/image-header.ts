/** Image kinds told apart by their first bytes. */
export type ImageKind = 'png' | 'jpg' | 'gif' | 'webp' | 'qoi'

/** The kind of image `bytes` starts as, or null when it is none of these. */
export function imageKind(bytes: Uint8Array): ImageKind | null {
  const starts = (...prefix: number[]) => prefix.every((byte, index) => bytes[index] === byte)
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'png'
  if (starts(0xff, 0xd8, 0xff)) return 'jpg'
  if (starts(0x47, 0x49, 0x46, 0x38)) return 'gif'
  if (starts(0x52, 0x49, 0x46, 0x46) && ascii(bytes, 8, 12) === 'WEBP') return 'webp'
  if (starts(0x71, 0x6f, 0x69, 0x66)) return 'qoi'
  return null
}

/**
 * Width and height from an image's header (a PNG's IHDR, a JPEG's start-of-frame, a GIF's
 * screen descriptor, a WebP's VP8/VP8L/VP8X chunk), without decoding it. Throws when the
 * header is not there.
 */
export function imageSize(bytes: Uint8Array, kind: Exclude<ImageKind, 'qoi'>): { width: number; height: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  switch (kind) {
    case 'png':
      if (bytes.length < 24 || ascii(bytes, 12, 16) !== 'IHDR') throw new Error('PNG without an IHDR chunk')
      return { width: view.getUint32(16), height: view.getUint32(20) }
    case 'gif':
      if (bytes.length < 10) throw new Error('GIF without a screen descriptor')
      return { width: view.getUint16(6, true), height: view.getUint16(8, true) }
    case 'webp':
      return webpSize(bytes, view)
    case 'jpg':
      return jpegSize(bytes, view)
  }
}

function jpegSize(bytes: Uint8Array, view: DataView): { width: number; height: number } {
  let offset = 2
  while (offset + 9 < bytes.length) {
    if (bytes[offset] !== 0xff) break
    const marker = bytes[offset + 1]!
    if (marker === 0xff) {
      offset++
    } else if (marker >= 0xd0 && marker <= 0xd9) {
      offset += 2
    } else if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { width: view.getUint16(offset + 7), height: view.getUint16(offset + 5) }
    } else {
      offset += 2 + view.getUint16(offset + 2)
    }
  }
  throw new Error('JPEG without a start-of-frame marker')
}

function webpSize(bytes: Uint8Array, view: DataView): { width: number; height: number } {
  const uint24 = (at: number) => view.getUint16(at, true) | (view.getUint8(at + 2) << 16)
  const chunk = bytes.length >= 30 ? ascii(bytes, 12, 16) : ''
  if (chunk === 'VP8X') return { width: uint24(24) + 1, height: uint24(27) + 1 }
  if (chunk === 'VP8 ') return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff }
  if (chunk === 'VP8L') {
    const bits = view.getUint32(21, true)
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 }
  }
  throw new Error('WebP without a VP8, VP8L or VP8X chunk')
}

const ascii = (bytes: Uint8Array, start: number, end: number) => String.fromCharCode(...bytes.subarray(start, end))
