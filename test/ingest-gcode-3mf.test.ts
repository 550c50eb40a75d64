import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type Zippable, zipSync } from 'fflate'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { byteSourceFromBytes } from '../src/core/formats/byte-source.js'
import { readThreeMf } from '../src/core/formats/three-mf.js'
import { admin, adminEnv, signIn } from './support/accounts.js'
import { SHAPES } from './support/prusa-slicer.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { upload } from './support/uploads.js'

const encode = (text: string) => new TextEncoder().encode(text)
const plate1Picture = readFileSync(join(SHAPES, 'M3_hex_nut.png'))
const plate2Picture = readFileSync(join(SHAPES, 'M3x10_screw.png'))
const plateGcode = (plate: number) =>
  encode(`; HEADER_BLOCK_START\n; BambuStudio 01.09.07.52\n; plate ${plate}\nG28\nG1 X10 Y10 F3000\n`)

/** `<plate>` of Bambu Studio's slice list, with one object and one filament. */
const slicedPlate = (index: number, prediction: number, weight: number, objectName: string) => `  <plate>
    <metadata key="index" value="${index}"/>
    <metadata key="printer_model_id" value="C12"/>
    <metadata key="prediction" value="${prediction}"/>
    <metadata key="weight" value="${weight}"/>
    <object identify_id="${100 + index}" name="${objectName}" skipped="false" />
    <object identify_id="${200 + index}" name="skipped part" skipped="true" />
    <filament id="1" tray_info_idx="GFA00" type="PLA" color="#F2754E" used_m="${weight / 3}" used_g="${weight}" />
  </plate>`

/**
 * A `.gcode.3mf` as Bambu Studio exports it: a cube model, each project plate's picture, the
 * package thumbnail relationship pointing at plate 1's, the slice list and each sliced plate's
 * G-code (`sliced`: their indexes).
 */
function slicedExport(plates: string[], sliced: number[], extra: Record<string, Uint8Array> = {}): Uint8Array {
  const files: Zippable = {
    '[Content_Types].xml': encode('<Types/>'),
    '_rels/.rels': encode(
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Target="/3D/3dmodel.model" Id="rel-1" Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/><Relationship Target="/Metadata/plate_1.png" Id="rel-2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/thumbnail"/></Relationships>',
    ),
    '3D/3dmodel.model': encode(
      '<?xml version="1.0" encoding="UTF-8"?><model unit="millimeter" xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02"><metadata name="Title">Screws and nuts</metadata><resources/><build/></model>',
    ),
    'Metadata/plate_1.png': plate1Picture,
    'Metadata/plate_2.png': plate2Picture,
    'Metadata/slice_info.config': encode(
      `<?xml version="1.0" encoding="UTF-8"?>\n<config>\n  <header>\n    <header_item key="X-BBL-Client-Type" value="slicer"/>\n  </header>\n${plates.join('\n')}\n</config>\n`,
    ),
    ...extra,
  }
  for (const index of sliced) files[`Metadata/plate_${index}.gcode`] = plateGcode(index)
  return zipSync(files)
}

const read = (bytes: Uint8Array) => readThreeMf(byteSourceFromBytes(bytes))

describe('reading a .gcode.3mf', () => {
  it('lists the plate that was sliced, with its time, weight, filament and objects, and takes its picture, not plate 1', async () => {
    const contents = await read(slicedExport([slicedPlate(2, 3129, 9.84, 'M3x10 screw')], [2]))
    expect(contents.plates).toEqual([
      {
        index: 2,
        gcode: 'Metadata/plate_2.gcode',
        thumbnail: 'Metadata/plate_2.png',
        prediction_s: 3129,
        weight_g: 9.84,
        filaments: [{ id: 1, type: 'PLA', color: '#F2754E', used_m: 3.28, used_g: 9.84 }],
        objects: ['M3x10 screw'],
      },
    ])
    expect(Buffer.from(contents.thumbnail!.bytes).equals(plate2Picture)).toBe(true)
  })

  it('lists every sliced plate in order, leaving out one listed without its G-code', async () => {
    const contents = await read(
      slicedExport(
        [slicedPlate(3, 60, 1, 'washer'), slicedPlate(1, 1200, 4.5, 'M3 nut'), slicedPlate(2, 3129, 9.84, 'screw')],
        [1, 2],
      ),
    )
    expect(contents.plates?.map((plate) => [plate.index, plate.prediction_s, plate.thumbnail])).toEqual([
      [1, 1200, 'Metadata/plate_1.png'],
      [2, 3129, 'Metadata/plate_2.png'],
    ])
    expect(Buffer.from(contents.thumbnail!.bytes).equals(plate1Picture)).toBe(true)
  })

  it('has no plates for a project that was not sliced, and keeps its package thumbnail', async () => {
    const project = await read(slicedExport([], []))
    expect(project.plates).toBeUndefined()
    expect(Buffer.from(project.thumbnail!.bytes).equals(plate1Picture)).toBe(true)
  })
})

describe('uploading a .gcode.3mf', () => {
  let vault: TestVault
  let token: string
  beforeAll(async () => {
    vault = await startTestVault(adminEnv)
    token = (await signIn(vault.baseUrl, admin)).access_token
  })
  afterAll(async () => vault?.close())

  it("stores the sliced plates with the file and shows the sliced plate's picture as the model's thumbnail", async () => {
    const bytes = slicedExport([slicedPlate(2, 3129, 9.84, 'M3x10 screw')], [2])
    const reply = await upload(vault.baseUrl, token, 'screws.gcode.3mf', bytes)
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    expect(reply.body.file).toMatchObject({ format: '3mf', has_thumbnail: true, parse_warnings: [] })
    expect(reply.body.file.metadata.plates).toMatchObject([
      { index: 2, gcode: 'Metadata/plate_2.gcode', prediction_s: 3129, weight_g: 9.84 },
    ])
    const thumbnail = await fetch(`${vault.baseUrl}${reply.body.model.thumbnail_url}`, {
      headers: { Authorization: `Bearer ${token}` },
    })
    expect(thumbnail.status).toBe(200)
    expect(Buffer.from(await thumbnail.arrayBuffer()).equals(plate2Picture)).toBe(true)
  })
})
