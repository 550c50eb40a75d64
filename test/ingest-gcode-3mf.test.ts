import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { byteSourceFromBytes } from '../src/core/formats/byte-source.js'
import { readThreeMf } from '../src/core/formats/three-mf.js'
import { admin, adminEnv, signIn } from './support/accounts.js'
import { plate1Picture, plate2Picture, slicedExport, slicedPlate } from './support/sliced-3mf.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { upload } from './support/uploads.js'

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
