import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { crc32 } from 'node:zlib'
import { zlibSync } from 'fflate'
import { SHAPES } from './prusa-slicer.js'

/**
 * Binary G-code (`.bgcode`) built as libbgcode's specification lays it out, for tests: Debian's
 * PrusaSlicer (2.5) predates binary G-code, so it cannot write one.
 */

export interface Block {
  /** 0 file, 1 G-code, 2 slicer, 3 printer, 4 print metadata, 5 thumbnail. */
  type: number
  /** 0 none, 1 deflate (done here), 2 and 3 heatshrink (the data is taken as already compressed). */
  compression?: number
  parameters: Uint8Array
  data: Uint8Array
  /** The uncompressed size stated for heatshrink data (default: the data's length). */
  uncompressedSize?: number
}

const u16 = (...values: number[]) => new Uint8Array(new Uint16Array(values).buffer)
const u32 = (...values: number[]) => new Uint8Array(new Uint32Array(values).buffer)
const concat = (...parts: Uint8Array[]) => Buffer.concat(parts)

/** One block's bytes: header, parameters, data and (with `checksum`) its CRC-32. */
export function block({ type, compression = 0, parameters, data, uncompressedSize }: Block, checksum = true): Buffer {
  const stored = compression === 1 ? zlibSync(data) : data
  const header =
    compression === 0
      ? concat(u16(type, 0), u32(data.length))
      : concat(u16(type, compression), u32(uncompressedSize ?? data.length, stored.length))
  const body = concat(header, parameters, stored)
  return checksum ? concat(body, u32(crc32(body))) : body
}

/** A file of `blocks` after the header `GCDE`, version 1 and the checksum type (1, CRC-32, unless `checksum` is false). */
export function binaryGcode(blocks: Block[], checksum = true): Buffer {
  return concat(
    new TextEncoder().encode('GCDE'),
    u32(1),
    u16(checksum ? 1 : 0),
    ...blocks.map((each) => block(each, checksum)),
  )
}

/** A metadata block of INI `key=value` lines. */
export function metadataBlock(type: 0 | 2 | 3 | 4, pairs: Record<string, string>, compression = 0): Block {
  const text = Object.entries(pairs)
    .map(([key, value]) => `${key}=${value}\n`)
    .join('')
  return { type, compression, parameters: u16(0), data: new TextEncoder().encode(text) }
}

export function thumbnailBlock(format: 0 | 1 | 2, width: number, height: number, data: Uint8Array): Block {
  return { type: 5, parameters: u16(format, width, height), data }
}

/** A G-code block as PrusaSlicer writes them (heatshrink 12/4, MeatPack): opaque bytes here. */
export const gcodeBlock = (seed: number): Block => ({
  type: 1,
  compression: 3,
  parameters: u16(2),
  data: new Uint8Array(64).fill(seed & 0xff),
  uncompressedSize: 200,
})

/** PrusaSlicer's 2.5 preview of its shapes gallery's box, a real PNG. */
export const boxPicture = readFileSync(join(SHAPES, 'box.png'))

/**
 * A `.bgcode` laid out as PrusaSlicer 2.7 writes one for a Prusa MK4: file metadata (`Producer`),
 * printer metadata (model, filament, nozzle, layer height, time, filament used, `objects_info`),
 * a PNG thumbnail, print metadata, slicer metadata (the settings, deflated) and G-code blocks.
 * `seed` varies the bytes.
 */
export function prusaBinaryGcode(objects: string[], seed = 0): Buffer {
  const objectsInfo = JSON.stringify({
    objects: objects.map((name) => ({
      name,
      polygon: [
        [100, 100],
        [120, 100],
        [120, 120],
        [100, 120],
      ],
    })),
  })
  return binaryGcode([
    metadataBlock(0, { Producer: 'PrusaSlicer 2.7.1' }),
    metadataBlock(3, {
      printer_model: 'MK4',
      filament_type: 'PETG',
      nozzle_diameter: '0.4',
      bed_temperature: '85',
      layer_height: '0.2',
      temperature: '240',
      max_layer_z: '10.2',
      'filament used [mm]': '1234.56',
      'filament used [g]': '3.72',
      'estimated printing time (normal mode)': '1h 2m 3s',
      objects_info: objectsInfo,
    }),
    thumbnailBlock(0, boxPicture.readUInt32BE(16), boxPicture.readUInt32BE(20), boxPicture),
    metadataBlock(4, {
      'filament used [mm]': '1234.56',
      'filament used [cm3]': '2.97',
      'filament used [g]': '3.72',
      'total filament used [g]': '3.72',
      'estimated printing time (normal mode)': '1h 2m 3s',
    }),
    metadataBlock(
      2,
      {
        layer_height: '0.2',
        first_layer_height: '0.2',
        filament_settings_id: '"Prusament PETG"',
        printer_model: 'MK4',
        print_host_apikey: 'secret-key-1234',
      },
      1,
    ),
    gcodeBlock(seed),
    gcodeBlock(seed + 1),
  ])
}
