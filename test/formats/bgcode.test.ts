import { crc32 } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { byteSourceFromBytes } from '../../src/core/formats/byte-source.js'
import { readGcode } from '../../src/core/formats/gcode.js'
import { FormatError } from '../../src/core/formats/types.js'
import {
  binaryGcode,
  boxPicture,
  gcodeBlock,
  metadataBlock,
  prusaBinaryGcode,
  thumbnailBlock,
} from '../support/binary-gcode.js'

const read = (bytes: Uint8Array) => readGcode(byteSourceFromBytes(bytes, { chunkSize: 37 }))

/** The refusal a damaged or hostile file meets: FormatError('unsafe'), which ingest answers with 422. */
async function refusal(bytes: Uint8Array): Promise<string> {
  const error: unknown = await read(bytes).catch((caught: unknown) => caught)
  expect(error).toBeInstanceOf(FormatError)
  expect(error).toMatchObject({ kind: 'unsafe' })
  return (error as FormatError).message
}

describe('binary G-code (.bgcode)', () => {
  it('gives what text G-code gives: printer, filament, layer height, nozzle, time, objects and the thumbnail', async () => {
    const metadata = await read(prusaBinaryGcode(['Bracket.stl', 'Bracket.stl', 'Clip.stl']))
    expect(metadata).toMatchObject({
      slicer: { name: 'PrusaSlicer', version: '2.7.1' },
      printer_model: 'MK4',
      layer_height_mm: 0.2,
      first_layer_height_mm: 0.2,
      nozzle_diameter_mm: 0.4,
      nozzle_temperature: 240,
      bed_temperature: 85,
      max_layer_z: 10.2,
      estimated_time_s: 3723,
      objects: ['Bracket.stl', 'Clip.stl'],
      filament: { type: 'PETG', name: 'Prusament PETG', length_mm: 1234.56, weight_g: 3.72, volume_cm3: 2.97 },
      warnings: [],
    })
    expect(metadata.thumbnails).toHaveLength(1)
    expect(metadata.thumbnails[0]).toMatchObject({ contentType: 'image/png', bytes: new Uint8Array(boxPicture) })
    // Settings come from the (deflated) slicer block, secrets redacted.
    expect(metadata.config).toMatchObject({ layer_height: '0.2', print_host_apikey: '[redacted]' })
    expect(JSON.stringify(metadata)).not.toContain('secret-key-1234')
  })

  it('is recognised by its GCDE magic, and reads a file without checksums', async () => {
    const file = binaryGcode([metadataBlock(3, { printer_model: 'MINI' }), gcodeBlock(1)], false)
    expect((await read(file)).printer_model).toBe('MINI')
  })

  it('keeps a thumbnail that is not the image it says it is as a warning, not a failure', async () => {
    const file = binaryGcode([thumbnailBlock(0, 16, 16, new TextEncoder().encode('not a picture')), gcodeBlock(1)])
    const metadata = await read(file)
    expect(metadata.thumbnails).toEqual([])
    expect(metadata.warnings).toEqual([expect.stringMatching(/16x16 .* not a PNG, JPEG or QOI image/)])
  })

  it('refuses a file cut short, inside a block or inside a block header', async () => {
    const whole = prusaBinaryGcode(['a.stl'])
    expect(await refusal(whole.subarray(0, whole.length - 10))).toMatch(/past the end|cut short/)
    expect(await refusal(whole.subarray(0, 14))).toMatch(/cut short/)
    expect(await refusal(whole.subarray(0, 6))).toMatch(/shorter than the 10-byte/)
  })

  it('refuses a block whose CRC-32 does not match: a damaged file', async () => {
    const file = prusaBinaryGcode(['a.stl'])
    file[40] = (file[40] ?? 0) ^ 0xff
    expect(await refusal(file)).toMatch(/fails its CRC-32 check/)
    const lastByte = prusaBinaryGcode(['a.stl'])
    lastByte[lastByte.length - 1] = (lastByte.at(-1) ?? 0) ^ 1
    expect(await refusal(lastByte)).toMatch(/CRC-32/)
  })

  it('refuses absurd sizes without reserving memory for them', async () => {
    const huge = binaryGcode([{ type: 3, parameters: new Uint8Array(2), data: new Uint8Array(0) }, gcodeBlock(1)])
    // The metadata block's uncompressed size, stated as 4 GiB - 1.
    huge.writeUInt32LE(0xffffffff, 14)
    expect(await refusal(huge)).toMatch(/past the end/)
    const big = binaryGcode([metadataBlock(2, { pad: 'x'.repeat(5 * 1024 * 1024) }), gcodeBlock(1)])
    expect(await refusal(big)).toMatch(/more than the limit/)
    const many = binaryGcode([
      ...Array.from({ length: 5 }, () => thumbnailBlock(0, 1, 1, new Uint8Array(4 * 1024 * 1024 - 1))),
      gcodeBlock(1),
    ])
    expect(await refusal(many)).toMatch(/more than 16777216 bytes together/)
  })

  it('refuses a deflated block that inflates past what it declares (a deflate bomb)', async () => {
    // 3 MiB of zeros deflate to a few KiB; the header claims they inflate to 1000 bytes (its CRC made to match).
    const bomb = binaryGcode([metadataBlock(2, { pad: '0'.repeat(3 * 1024 * 1024) }, 1), gcodeBlock(1)])
    bomb.writeUInt32LE(1000, 14)
    const blockEnd = 10 + 12 + 2 + bomb.readUInt32LE(18)
    bomb.writeUInt32LE(crc32(bomb.subarray(10, blockEnd)), blockEnd)
    expect(await refusal(bomb)).toMatch(/inflates to more than the 1000 bytes/)
  })

  it('refuses heatshrink-compressed metadata, unknown block types, compressions and versions by name', async () => {
    const heatshrink = { ...metadataBlock(3, { printer_model: 'MK4' }), compression: 2 }
    expect(await refusal(binaryGcode([heatshrink, gcodeBlock(1)]))).toMatch(
      /heatshrink 11\/4, which PrusaSlicer uses only for G-code/,
    )
    expect(await refusal(binaryGcode([{ type: 9, parameters: new Uint8Array(2), data: new Uint8Array(1) }]))).toMatch(
      /type 9, which is not defined/,
    )
    expect(await refusal(binaryGcode([{ ...gcodeBlock(1), compression: 7 }]))).toMatch(/compression 7/)
    const version2 = binaryGcode([gcodeBlock(1)])
    version2.writeUInt32LE(2, 4)
    expect(await refusal(version2)).toMatch(/version 2/)
    expect(await refusal(binaryGcode([metadataBlock(3, { printer_model: 'MK4' })]))).toMatch(/no G-code blocks/)
  })
})
