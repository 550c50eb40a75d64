/** PNGs built chunk by chunk, for hostile images: any header, any image data, padding to pass a size threshold. */
import { crc32 } from 'node:zlib'
import { Zlib } from 'fflate'

/** A PNG made of raw chunks: an IHDR of any size, then `idat` as its image data. */
export function pngOf(width: number, height: number, idat: Uint8Array, padding = 0): Uint8Array {
  const chunk = (type: string, data: Uint8Array) => {
    const out = new Uint8Array(12 + data.length)
    const view = new DataView(out.buffer)
    view.setUint32(0, data.length)
    out.set(new TextEncoder().encode(type), 4)
    out.set(data, 8)
    view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)))
    return out
  }
  const header = new Uint8Array(13)
  new DataView(header.buffer).setUint32(0, width)
  new DataView(header.buffer).setUint32(4, height)
  header.set([8, 0, 0, 0, 0], 8) // 8-bit grey, not interlaced
  const parts = [
    Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a),
    chunk('IHDR', header),
    ...(padding > 0 ? [chunk('paDd', new Uint8Array(padding))] : []),
    chunk('IDAT', idat),
    chunk('IEND', new Uint8Array(0)),
  ]
  return concat(parts)
}

/** zlib data of `megabytes` MiB of zeros: a few hundred KiB that inflate to far more. */
export function zlibZeros(megabytes: number): Uint8Array {
  const chunks: Uint8Array[] = []
  const zlib = new Zlib({ level: 9 }, (chunk) => chunks.push(chunk))
  const zeros = new Uint8Array(1024 * 1024)
  for (let i = 0; i < megabytes; i++) zlib.push(zeros, i === megabytes - 1)
  return concat(chunks)
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0))
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return out
}
