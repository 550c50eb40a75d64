import { describe, expect, it } from 'vitest'
import { decodeQoi } from './qoi.js'
import { FormatError } from './types.js'

/** A QOI file assembled by hand from the specification: 14-byte header, chunks, end marker. */
function qoiFile(width: number, height: number, channels: number, chunks: number[]): Uint8Array {
  const header = new Uint8Array(14)
  header.set([0x71, 0x6f, 0x69, 0x66])
  new DataView(header.buffer).setUint32(4, width)
  new DataView(header.buffer).setUint32(8, height)
  header[12] = channels
  return new Uint8Array([...header, ...chunks, 0, 0, 0, 0, 0, 0, 0, 1])
}

const pixelsOf = (data: Uint8Array, channels: number) =>
  Array.from({ length: data.length / channels }, (_, index) => [
    ...data.subarray(index * channels, (index + 1) * channels),
  ])

describe('QOI decoding', () => {
  it('decodes every chunk type as the specification defines it', () => {
    const image = decodeQoi(
      qoiFile(3, 3, 4, [
        0xff,
        10,
        20,
        30,
        40, // QOI_OP_RGBA
        0x5b, // QOI_OP_DIFF: r -1, g 0, b +1
        0xa5,
        0x5a, // QOI_OP_LUMA: g +5, r-g -3, b-g +2
        0xc2, // QOI_OP_RUN of 3
        0x0c, // QOI_OP_INDEX 12: (10*3 + 20*5 + 30*7 + 40*11) % 64
        0xfe,
        255,
        0,
        128, // QOI_OP_RGB keeps alpha
        0x72, // QOI_OP_DIFF: r +1, g -2, b 0, wrapping around
      ]),
    )
    expect(image).toMatchObject({ width: 3, height: 3, channels: 4, colorspace: 0 })
    expect(pixelsOf(image.data, 4)).toEqual([
      [10, 20, 30, 40],
      [9, 20, 31, 40],
      [11, 25, 38, 40],
      [11, 25, 38, 40],
      [11, 25, 38, 40],
      [11, 25, 38, 40],
      [10, 20, 30, 40],
      [255, 0, 128, 40],
      [0, 254, 128, 40],
    ])
  })

  it('starts from opaque black and gives three bytes a pixel for an RGB image', () => {
    const image = decodeQoi(qoiFile(3, 1, 3, [0xc0, 0xfe, 1, 2, 3, 0x00]))
    expect(image.channels).toBe(3)
    // The index starts zeroed: slot 0 is transparent black, whatever the previous pixel.
    expect(pixelsOf(image.data, 3)).toEqual([
      [0, 0, 0],
      [1, 2, 3],
      [0, 0, 0],
    ])
  })

  it('refuses files that are not QOI, end early, or claim more pixels than allowed', () => {
    const malformed = (bytes: Uint8Array, options?: { maxPixels?: number }) => {
      try {
        decodeQoi(bytes, options)
      } catch (error) {
        expect(error).toBeInstanceOf(FormatError)
        return (error as FormatError).message
      }
      throw new Error('decoded without complaint')
    }
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...new Uint8Array(16)])
    expect(malformed(png)).toMatch(/not a QOI image/i)
    expect(malformed(qoiFile(4, 4, 4, [0xc4]))).toMatch(/ends before all 16 pixels/)
    expect(malformed(qoiFile(2, 1, 5, [0xc1]))).toMatch(/channels 5/)
    expect(malformed(qoiFile(100_000, 100_000, 4, [0xfd]))).toMatch(/100000×100000 pixels is outside/)
    expect(malformed(qoiFile(64, 64, 4, [0xfd, 0xfd]), { maxPixels: 1024 })).toMatch(
      /outside the accepted 1 to 1024 pixels/,
    )
  })
})
