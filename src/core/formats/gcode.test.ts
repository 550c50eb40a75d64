import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decode, encode } from 'fast-png'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { byteSourceFromBytes } from './byte-source.js'
import { readGcode, type GcodeMetadata } from './gcode.js'
import { FormatError, type ByteSource } from './types.js'

const SHAPES = '/usr/share/PrusaSlicer/shapes'

/** Written by `qoiconv` (the QOI reference encoder) from bunny.png of PrusaSlicer's shapes, sampled down to 16×16 as `downscale` does. */
const BUNNY_16_QOI =
  'cW9pZgAAABAAAAAQBAAA8v+lWi//AP/GbTr/AMsvAP/FbDn/AMv/olku/wAvAMv/oFgu//8cDwgw/7xnNv8A/6FYL//+v2g3/qRaLwDI/8ZsOf/+jk0p/qhcMP7RdkFmnnf+lVErAMf/x287/5hrRSmmpin+fEQjAMf/aTkd//6yYTP+ajoe/qJYLqW2ev6FSSYAx/9nOB3//o1NKP5xPiD+nlYtlyz+q10xJwDH/6VaL//+VS4Y/ohKJ/5sOx/+kU8p/mU3Hf8NBwQgAMj/TisW/1b+fUQknVmYLADK/7dkNP/+e0MjAOUAAAAAAAAAAQ=='
/** Written by libjpeg-turbo's `cjpeg -quality 80` from the same 16×16 bunny over white. */
const BUNNY_16_JPEG =
  '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAYEBQYFBAYGBQYHBwYIChAKCgkJChQODwwQFxQYGBcUFhYaHSUfGhsjHBYWICwgIyYnKSopGR8tMC0oMCUoKSj/2wBDAQcHBwoIChMKChMoGhYaKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCj/wAARCAAQABADASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwD6I8Ua82h3Vh5hgjs5yEkmmyFVjNCoG7IA+R5W5/uZ6A1e0LXtM12OV9KuhOIiA6lWRlyMglWAODzzjHB9DXPfFrw1qHijwmbXRp1jvoJluI0diqy4VlKbuxwxIPTIHTqKfwg8Iaj4Y0+9n1uSM3975eYon3CNFUkAnH3tzuDgkYAwepOF6iq2t7p08tJ0b394/9k='

/** Two objects, two extruders (perimeters from the second), set so every figure has a value. */
const PROFILE = `printer_model = MK3S
layer_height = 0.2
first_layer_height = 0.25
nozzle_diameter = 0.4,0.4
filament_diameter = 1.75,1.75
filament_type = PLA;PETG
filament_settings_id = "Vault PLA";"Vault PETG"
filament_density = 1.24,1.27
filament_cost = 25,30
temperature = 215,240
first_layer_temperature = 215,240
bed_temperature = 60
first_layer_bed_temperature = 60
gcode_label_objects = 1
perimeter_extruder = 2
extruder_colour = "";""
extruder_offset = 0x0,0x0
retract_length = 2,2
retract_lift = 0,0
retract_speed = 40,40
wipe = 0,0
`

let workDir: string
/** The G-code PrusaSlicer wrote, or why there is none: each test that needs it fails with the reason. */
let slicing: string | Error = new Error('not sliced yet')

beforeAll(() => {
  if (!existsSync(join(SHAPES, 'box.stl'))) {
    slicing = new Error(`PrusaSlicer and its shapes (${SHAPES}) are needed to make real G-code: apt-get install -y prusa-slicer`)
    return
  }
  workDir = mkdtempSync(join(tmpdir(), 'gcode-test-'))
  writeFileSync(join(workDir, 'vault.ini'), PROFILE)
  const output = join(workDir, 'two-objects.gcode')
  try {
    const shapes = ['box.stl', 'cylinder.stl'].map((shape) => join(SHAPES, shape))
    execFileSync('prusa-slicer', ['--load', join(workDir, 'vault.ini'), '--merge', '--export-gcode', '--output', output, ...shapes], { stdio: 'pipe' })
    slicing = readFileSync(output, 'utf8')
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT'
    slicing = new Error(missing ? 'prusa-slicer is not installed: apt-get install -y prusa-slicer' : `prusa-slicer failed: ${String(error)}`)
  }
}, 120_000)

function slicedGcode(): string {
  if (slicing instanceof Error) throw slicing
  return slicing
}

afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true })
})

const textSource = (text: string) => byteSourceFromBytes(new TextEncoder().encode(text))
const read = (text: string, options?: Parameters<typeof readGcode>[1]) => readGcode(textSource(text), options)

/** What a `; key = value` line of the sliced G-code says. */
function stated(text: string, key: string): string {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`; ${key} = `))
  if (line === undefined) throw new Error(`the G-code has no "; ${key} =" line`)
  return line.slice(key.length + 5)
}

const numbers = (list: string) => list.split(',').map(Number)

/** A thumbnail block as PrusaSlicer writes it: base64 in lines of 78 characters. */
function thumbnailBlock(tag: string, width: number, height: number, bytes: Uint8Array, statedLength?: number): string {
  const base64 = Buffer.from(bytes).toString('base64')
  const lines = base64.match(/.{1,78}/g)!.map((line) => `; ${line}`)
  return [';', `; ${tag} begin ${width}x${height} ${statedLength ?? base64.length}`, ...lines, `; ${tag} end`, ';', ''].join('\n')
}

/** Puts blocks where PrusaSlicer does: after the "generated by" line. */
function withBlocks(gcode: string, ...blocks: string[]): string {
  const firstLineEnd = gcode.indexOf('\n') + 1
  return gcode.slice(0, firstLineEnd) + '\n' + blocks.join('') + gcode.slice(firstLineEnd)
}

/** Nearest-neighbour reduction of an RGBA image, sampling each cell's centre. */
function downscale(image: { width: number; data: ArrayLike<number> }, size: number): Uint8Array {
  const step = image.width / size
  const out = new Uint8Array(size * size * 4)
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const from = (Math.floor(y * step + step / 2) * image.width + Math.floor(x * step + step / 2)) * 4
      for (let channel = 0; channel < 4; channel++) out[(y * size + x) * 4 + channel] = image.data[from + channel]!
    }
  }
  return out
}

const base64Bytes = (base64: string) => new Uint8Array(Buffer.from(base64, 'base64'))

describe('G-code sliced by PrusaSlicer', () => {
  it('reports the print time, filament, layers, temperatures and objects the slicer wrote', async () => {
    const sliced = slicedGcode()
    const metadata = await read(sliced)

    const [, version] = /^; generated by PrusaSlicer (\S+) on /.exec(sliced)!
    expect(metadata.slicer).toEqual({ name: 'PrusaSlicer', version })
    const [, hours, minutes, seconds] = /^(?:(\d+)h )?(\d+)m (\d+)s$/.exec(stated(sliced, 'estimated printing time (normal mode)'))!
    expect(metadata.estimated_time_s).toBe(Number(hours ?? 0) * 3600 + Number(minutes) * 60 + Number(seconds))

    const lengths = numbers(stated(sliced, 'filament used [mm]'))
    const volumes = numbers(stated(sliced, 'filament used [cm3]'))
    const weights = numbers(stated(sliced, 'filament used [g]'))
    const costs = numbers(stated(sliced, 'filament cost'))
    expect(lengths).toHaveLength(2)
    expect(lengths.every((length) => length > 100)).toBe(true)
    const { filament } = metadata
    expect(filament.per_extruder).toEqual([
      { length_mm: lengths[0], volume_cm3: volumes[0], weight_g: weights[0], cost: costs[0], type: 'PLA', name: 'Vault PLA' },
      { length_mm: lengths[1], volume_cm3: volumes[1], weight_g: weights[1], cost: costs[1], type: 'PETG', name: 'Vault PETG' },
    ])
    expect(filament.length_mm).toBeCloseTo(lengths[0]! + lengths[1]!, 6)
    expect(filament.volume_cm3).toBeCloseTo(volumes[0]! + volumes[1]!, 6)
    expect(filament.weight_g).toBe(Number(stated(sliced, 'total filament used [g]')))
    expect(filament.cost).toBe(Number(stated(sliced, 'total filament cost')))
    expect(filament).toMatchObject({ type: 'PLA, PETG', name: 'Vault PLA, Vault PETG' })
    // PrusaSlicer's grams are its cm³ times the density we gave it.
    expect(weights[0]).toBeCloseTo(volumes[0]! * 1.24, 1)

    const topLayer = Math.max(...[...sliced.matchAll(/^;Z:([\d.]+)$/gm)].map((match) => Number(match[1])))
    expect(metadata).toMatchObject({
      layer_height_mm: 0.2,
      first_layer_height_mm: 0.25,
      nozzle_diameter_mm: 0.4,
      printer_model: 'MK3S',
      nozzle_temperature: 215,
      bed_temperature: 60,
      max_layer_z: topLayer,
      objects: ['box.stl id:0 copy 0', 'cylinder.stl id:1 copy 0'],
      thumbnails: [],
      warnings: [],
    })
    expect(topLayer).toBeGreaterThan(10)
    expect(metadata.config).toMatchObject({ layer_height: '0.2', filament_type: 'PLA;PETG', perimeter_extruder: '2', printer_model: 'MK3S' })
    expect(Object.keys(metadata.config).length).toBeGreaterThan(200)
  })

  it('turns PNG, JPEG and QOI thumbnails into images a browser shows, smallest first', async () => {
    const sliced = slicedGcode()
    const bunnyPng = new Uint8Array(readFileSync(join(SHAPES, 'bunny.png')))
    const qoi = base64Bytes(BUNNY_16_QOI)
    const jpeg = base64Bytes(BUNNY_16_JPEG)
    const gcode = withBlocks(
      sliced,
      thumbnailBlock('thumbnail', 256, 256, bunnyPng),
      thumbnailBlock('thumbnail_QOI', 16, 16, qoi),
      thumbnailBlock('thumbnail_JPG', 16, 16, jpeg),
    )

    const { thumbnails, warnings, estimated_time_s } = await read(gcode)

    expect(warnings).toEqual([])
    expect(estimated_time_s).toBeGreaterThan(0)
    expect(thumbnails.map(({ width, height, contentType }) => [width, height, contentType])).toEqual([
      [16, 16, 'image/png'],
      [16, 16, 'image/jpeg'],
      [256, 256, 'image/png'],
    ])
    const [fromQoi, fromJpeg, fromPng] = thumbnails
    expect(fromJpeg!.bytes).toEqual(jpeg)
    expect(fromPng!.bytes).toEqual(bunnyPng)
    const converted = decode(fromQoi!.bytes)
    expect(converted).toMatchObject({ width: 16, height: 16, channels: 4, depth: 8 })
    expect(new Uint8Array(converted.data)).toEqual(downscale(decode(bunnyPng), 16))
  })

  it('keeps a thumbnail whose stated length is wrong, with a warning', async () => {
    const sliced = slicedGcode()
    const png = encode({ width: 2, height: 1, data: new Uint8Array([255, 0, 0, 255, 0, 0, 255, 255]), channels: 4 })
    const { thumbnails, warnings } = await read(withBlocks(sliced, thumbnailBlock('thumbnail', 2, 1, png, 9999)))
    expect(thumbnails).toMatchObject([{ width: 2, height: 1, contentType: 'image/png', bytes: png }])
    expect(warnings).toEqual([expect.stringMatching(/2x1 .*says it is 9999 base64 characters long but has \d+/)])
  })

  it('warns about a thumbnail too large for the part of the file it reads, and still reads the rest', async () => {
    const sliced = slicedGcode()
    const bunnyPng = new Uint8Array(readFileSync(join(SHAPES, 'bunny.png')))
    const gcode = withBlocks(sliced, thumbnailBlock('thumbnail', 256, 256, bunnyPng))

    const metadata = await read(gcode, { headBytes: 4096 })

    expect(metadata.thumbnails).toEqual([])
    expect(metadata.warnings).toEqual([expect.stringMatching(/256x256 .*runs past the part of the file that was read/)])
    expect(metadata.estimated_time_s).toBe((await read(sliced)).estimated_time_s)

    const atTheEnd = await read(sliced + thumbnailBlock('thumbnail', 256, 256, bunnyPng), { tailBytes: 4096 })
    expect(atTheEnd.thumbnails).toEqual([])
    expect(atTheEnd.warnings).toEqual([expect.stringMatching(/begins before the part of the end of the file that was read/)])
    expect(atTheEnd.config).toEqual({})
  })

  it('never reveals print host keys or passwords from the slicer settings', async () => {
    const sliced = slicedGcode()
    // Old PrusaSlicer wrote the print host settings; a post-processing script may carry the key too.
    const secrets = '; printhost_apikey = secret123\n; printhost_password = "hunter2hunter2"\n'
    const gcode = sliced
      .replace('; prusaslicer_config = begin\n', `; prusaslicer_config = begin\n${secrets}`)
      .replace(/^; post_process = .*$/m, '; post_process = upload.sh --key secret123')
    expect(gcode).toContain('--key secret123')

    const metadata = await read(gcode)

    expect(metadata.config).toMatchObject({ printhost_apikey: '[redacted]', printhost_password: '[redacted]', post_process: 'upload.sh --key [redacted]' })
    const json = JSON.stringify(metadata)
    expect(json).not.toContain('secret123')
    expect(json).not.toContain('hunter2')
  })

  it('reads a 50 MB G-code by its first and last mebibyte only', async () => {
    const sliced = slicedGcode()
    const whole = new TextEncoder().encode(sliced)
    const head = whole.subarray(0, whole.indexOf(10, 300_000) + 1)
    const tail = whole.subarray(whole.indexOf(10, whole.length - 300_000) + 1)
    const source = generatedSource(50_000_000, head, new TextEncoder().encode('G1 X12.345 Y67.890 E0.04321\n'), tail)

    const metadata = await readGcode(source)

    expect(source.bytesRead).toBeLessThanOrEqual(2 * 1024 * 1024)
    expect(metadata).toEqual(await read(sliced))
    expect(metadata.filament.length_mm).toBeGreaterThan(1000)
  })
})

/**
 * A file of `size` bytes that is `head`, then `filler` repeated, then `tail`, made up on
 * demand, counting the bytes asked for.
 */
function generatedSource(size: number, head: Uint8Array, filler: Uint8Array, tail: Uint8Array): ByteSource & { bytesRead: number } {
  const tailStart = size - tail.length
  const byteAt = (position: number) =>
    position < head.length ? head[position]! : position >= tailStart ? tail[position - tailStart]! : filler[(position - head.length) % filler.length]!
  const source = {
    size,
    bytesRead: 0,
    async read(start: number, end: number) {
      source.bytesRead += end - start + 1
      return Uint8Array.from({ length: end - start + 1 }, (_, index) => byteAt(start + index))
    },
    stream(start = 0, end = size - 1) {
      let position = start
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (position > end) return controller.close()
          const chunkEnd = Math.min(position + 65_535, end)
          controller.enqueue(await source.read(position, chunkEnd))
          position = chunkEnd + 1
        },
      })
    },
  }
  return source
}

/** The figures a print list shows: layers are [count, height, first layer height, top z], nozzle is [diameter, °C]. */
const summary = (metadata: GcodeMetadata) => ({
  slicer: metadata.slicer && `${metadata.slicer.name} ${metadata.slicer.version}`,
  time: metadata.estimated_time_s,
  layers: [metadata.layer_count, metadata.layer_height_mm, metadata.first_layer_height_mm, metadata.max_layer_z],
  nozzle: [metadata.nozzle_diameter_mm, metadata.nozzle_temperature],
  bed: metadata.bed_temperature,
  printer: metadata.printer_model,
  objects: metadata.objects,
})

describe('G-code from other slicers', () => {
  it('reads Cura G-code, Marlin and Ultimaker (Griffin) flavours', async () => {
    const marlin = await read(`;FLAVOR:Marlin
;TIME:5025
;Filament used: 1.78291m, 0.21045m
;Layer height: 0.2
;MINX:95.2
;MINY:95.2
;MINZ:0.3
;MAXX:124.8
;MAXY:124.8
;MAXZ:15.1
;TARGET_MACHINE.NAME:Creality Ender-3 Pro
;Generated with Cura_SteamEngine 5.4.0
M140 S60
M105
M190 S60
M104 S200
M105
M109 S200
M82 ;absolute extrusion mode
;LAYER_COUNT:75
;LAYER:0
M107
;MESH:calibration cube.stl
G1 F1200 X96.2 Y96.2 E0.5
;MESH:NONMESH
G0 F6000 X110 Y110 Z0.5
;MESH:Benchy.stl
G1 F1200 X111 Y111 E0.7
;TIME_ELAPSED:5025.0
;End of Gcode
;SETTING_3 {"global_quality": "[general]\\\\nversion = 4\\\\n"}
`)
    expect(summary(marlin)).toEqual({
      slicer: 'Cura 5.4.0', time: 5025, layers: [75, 0.2, 0.3, 15.1], nozzle: [null, 200], bed: 60, printer: 'Creality Ender-3 Pro',
      objects: ['calibration cube.stl', 'Benchy.stl'],
    })
    expect(marlin).toMatchObject({ config: {}, warnings: [] })
    expect(marlin.filament).toMatchObject({ length_mm: 1993.36, volume_cm3: null, weight_g: null, type: null })
    expect(marlin.filament.per_extruder.map((extruder) => extruder.length_mm)).toEqual([1782.91, 210.45])

    const griffin = await read(`;START_OF_HEADER
;HEADER_VERSION:0.1
;FLAVOR:Griffin
;GENERATOR.NAME:Cura_SteamEngine
;GENERATOR.VERSION:5.4.0
;GENERATOR.BUILD_DATE:2023-06-26
;TARGET_MACHINE.NAME:Ultimaker S5
;EXTRUDER_TRAIN.0.INITIAL_TEMPERATURE:215
;EXTRUDER_TRAIN.0.MATERIAL.VOLUME_USED:4210
;EXTRUDER_TRAIN.0.MATERIAL.GUID:506c9f0d-e3aa-4bd4-b2d2-23e2425b1aa9
;EXTRUDER_TRAIN.0.NOZZLE.DIAMETER:0.4
;EXTRUDER_TRAIN.0.NOZZLE.NAME:AA 0.4
;BUILD_PLATE.TYPE:glass
;BUILD_PLATE.INITIAL_TEMPERATURE:60
;PRINT.TIME:3725
;PRINT.GROUPS:1
;PRINT.SIZE.MIN.X:9
;PRINT.SIZE.MIN.Y:6
;PRINT.SIZE.MIN.Z:0.27
;PRINT.SIZE.MAX.X:173.325
;PRINT.SIZE.MAX.Y:180.5
;PRINT.SIZE.MAX.Z:20.27
;END_OF_HEADER
;Generated with Cura_SteamEngine 5.4.0
T0
M82 ;absolute extrusion mode
`)
    expect(summary(griffin)).toEqual({
      slicer: 'Cura 5.4.0', time: 3725, layers: [null, null, null, 20.27], nozzle: [0.4, 215], bed: 60, printer: 'Ultimaker S5',
      objects: [],
    })
    expect(griffin.filament).toMatchObject({ volume_cm3: 4.21, length_mm: null })
  })

  it('reads Bambu Studio G-code, taking its "cm^3" for the mm³ it is', async () => {
    const png = encode({ width: 16, height: 16, data: downscale(decode(readFileSync(join(SHAPES, 'torus.png'))), 16), channels: 4 })
    const metadata = await read(`; HEADER_BLOCK_START
; BambuStudio 01.09.07.52
; model printing time: 1h 20m 5s; total estimated time: 1h 27m 40s
; total layer number: 120
; total filament length [mm] : 4031.26,120.50
; total filament volume [cm^3] : 9696.32,289.84
; total filament weight [g] : 12.02,0.37
; filament_density: 1.24,1.27
; filament_diameter: 1.75,1.75
; max_z_height: 24.00
; filament: 1,2
; HEADER_BLOCK_END

; THUMBNAIL_BLOCK_START
${thumbnailBlock('thumbnail', 16, 16, png)}; THUMBNAIL_BLOCK_END

; CONFIG_BLOCK_START
; curr_bed_type = Textured PEI Plate
; filament_settings_id = "Bambu PLA Basic @BBL X1C";"Bambu PETG HF @BBL X1C"
; filament_type = PLA;PETG
; initial_layer_print_height = 0.2
; layer_height = 0.2
; nozzle_diameter = 0.4
; nozzle_temperature = 220,255
; printer_model = Bambu Lab X1 Carbon
; textured_plate_temp = 65,70
; CONFIG_BLOCK_END

; EXECUTABLE_BLOCK_START
M73 P0 R87
M140 S65
; start printing object, unique label id: 15
G1 X10 Y10 E1
; stop printing object, unique label id: 15
; EXECUTABLE_BLOCK_END
`)
    expect(summary(metadata)).toEqual({
      slicer: 'BambuStudio 01.09.07.52', time: 5260, layers: [120, 0.2, 0.2, 24], nozzle: [0.4, 220], bed: 65, printer: 'Bambu Lab X1 Carbon',
      objects: [],
    })
    expect(metadata).toMatchObject({ thumbnails: [{ width: 16, height: 16, contentType: 'image/png', bytes: png }], warnings: [] })
    const { filament } = metadata
    expect(filament).toMatchObject({ length_mm: 4151.76, weight_g: 12.39, type: 'PLA, PETG', name: 'Bambu PLA Basic @BBL X1C, Bambu PETG HF @BBL X1C' })
    expect(filament.volume_cm3).toBeCloseTo(9.98616, 5)
    expect(filament.per_extruder.map((extruder) => extruder.volume_cm3)).toEqual([9.69632, 0.28984])
  })

  it('reads OrcaSlicer G-code and names objects as Klipper\'s EXCLUDE_OBJECT does', async () => {
    const metadata = await read(`; HEADER_BLOCK_START
; generated by OrcaSlicer 2.1.1 on 2024-07-14 at 10:11:12
; total layer number: 59
; filament_density: 1.27
; filament_diameter: 1.75
; max_z_height: 11.80
; HEADER_BLOCK_END

EXCLUDE_OBJECT_DEFINE NAME=Cube_id_0_copy_0 CENTER=110,110 POLYGON=[[100,100],[120,100],[120,120],[100,120]]
EXCLUDE_OBJECT_DEFINE NAME='3DBenchy.stl_id_1_copy_0' CENTER=150,110 POLYGON=[[140,100],[160,100],[160,120],[140,120]]
; EXECUTABLE_BLOCK_START
M190 S80
M109 S240
; printing object Cube id:0 copy 0
EXCLUDE_OBJECT_START NAME=Cube_id_0_copy_0
G1 X110 Y110 E1
EXCLUDE_OBJECT_END NAME=Cube_id_0_copy_0
; stop printing object Cube id:0 copy 0
; EXECUTABLE_BLOCK_END

; filament used [mm] = 1085.14
; filament used [cm3] = 2.61
; filament used [g] = 3.31
; filament cost = 0.07
; total filament used [g] = 3.31
; total filament cost = 0.07
; total layers count = 59
; estimated printing time (normal mode) = 42m 4s

; CONFIG_BLOCK_START
; curr_bed_type = High Temp Plate
; filament_settings_id = "Generic PETG @System"
; filament_type = PETG
; hot_plate_temp = 80
; initial_layer_print_height = 0.24
; layer_height = 0.2
; nozzle_diameter = 0.4
; nozzle_temperature = 240
; printer_model = Voron 2.4 350
; printhost_apikey = 0123456789abcdef
; CONFIG_BLOCK_END
`)
    expect(summary(metadata)).toEqual({
      slicer: 'OrcaSlicer 2.1.1', time: 2524, layers: [59, 0.2, 0.24, 11.8], nozzle: [0.4, 240], bed: 80, printer: 'Voron 2.4 350',
      objects: ['Cube_id_0_copy_0', '3DBenchy.stl_id_1_copy_0'],
    })
    expect(metadata).toMatchObject({
      filament: { length_mm: 1085.14, volume_cm3: 2.61, weight_g: 3.31, cost: 0.07, type: 'PETG', name: 'Generic PETG @System' },
      warnings: [],
    })
    expect(metadata.config.printhost_apikey).toBe('[redacted]')
    expect(JSON.stringify(metadata)).not.toContain('0123456789abcdef')
  })

  it('names objects from firmware labels (M486 A"…")', async () => {
    const metadata = await read(`; generated by PrusaSlicer 2.7.1+win64 on 2024-01-10 at 09:40:40 UTC
M486 T2
M486 S0 A"Shape-Box id:0 copy 0"
M486 S1 A"Shape-Cylinder id:1 copy 0"
M486 S-1
M486 S0
G1 X10 Y10 E1
M486 S-1
`)
    expect(metadata.objects).toEqual(['Shape-Box id:0 copy 0', 'Shape-Cylinder id:1 copy 0'])
    expect(metadata.slicer).toEqual({ name: 'PrusaSlicer', version: '2.7.1+win64' })
  })
})

describe('G-code that says little or is not G-code', () => {
  it('gives nulls and empty lists for G-code without metadata', async () => {
    const empty = {
      slicer: null,
      estimated_time_s: null,
      filament: { length_mm: null, volume_cm3: null, weight_g: null, cost: null, type: null, name: null, per_extruder: [] },
      layer_height_mm: null,
      first_layer_height_mm: null,
      layer_count: null,
      nozzle_diameter_mm: null,
      printer_model: null,
      objects: [],
      nozzle_temperature: null,
      bed_temperature: null,
      max_layer_z: null,
      config: {},
      thumbnails: [],
      warnings: [],
    }
    expect(await read('G28\nG1 Z5 F600\nG1 X10 Y10 E1.5\n')).toEqual(empty)
    expect(await read('')).toEqual(empty)
  })

  it('refuses binary G-code (.bgcode) and binary garbage as malformed', async () => {
    const bgcode = new Uint8Array([0x47, 0x43, 0x44, 0x45, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0])
    await expect(readGcode(byteSourceFromBytes(bgcode))).rejects.toThrow(/binary G-code \(\.bgcode/)
    const zeros = new Uint8Array(4096)
    zeros.set(new TextEncoder().encode('G28\n'))
    const error: unknown = await readGcode(byteSourceFromBytes(zeros)).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(FormatError)
    expect(error).toMatchObject({ kind: 'malformed', message: expect.stringMatching(/not text G-code/) })
  })
})
