import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Zippable, zipSync } from 'fflate'
import { afterAll, describe, expect, it } from 'vitest'
import { byteSourceFromBytes } from '../../src/core/formats/byte-source.js'
import { createMeshStats } from '../../src/core/formats/mesh-stats.js'
import { readStl } from '../../src/core/formats/stl.js'
import { readThreeMf, type ThreeMfContents, type ThreeMfLimits } from '../../src/core/formats/three-mf.js'
import { FormatError } from '../../src/core/formats/types.js'
import { prusaSlicer, SHAPES } from '../support/prusa-slicer.js'

const MiB = 1024 * 1024
const scratch = mkdtempSync(join(tmpdir(), 'three-mf-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const CORE = 'http://schemas.microsoft.com/3dmanufacturing/core/2015/02'
const MODEL_TYPE = 'http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel'
const THUMBNAIL_TYPE = 'http://schemas.openxmlformats.org/package/2006/relationships/metadata/thumbnail'
const CUBE_MESH = [
  '<mesh><vertices>',
  ...['0 0 0', '1 0 0', '1 1 0', '0 1 0', '0 0 1', '1 0 1', '1 1 1', '0 1 1']
    .map((v) => v.split(' '))
    .map(([x, y, z]) => `<vertex x="${x}" y="${y}" z="${z}"/>`),
  '</vertices><triangles>',
  ...['0 2 1', '0 3 2', '4 5 6', '4 6 7', '0 1 5', '0 5 4', '3 7 6', '3 6 2', '0 4 7', '0 7 3', '1 2 6', '1 6 5']
    .map((t) => t.split(' '))
    .map(([a, b, c]) => `<triangle v1="${a}" v2="${b}" v3="${c}"/>`),
  '</triangles></mesh>',
].join('\n')
const cube = (id: number, attributes = '') => `<object id="${id}" type="model"${attributes}>${CUBE_MESH}</object>`
const item = (id: number, transform?: string) =>
  `<item objectid="${id}"${transform === undefined ? '' : ` transform="${transform}"`}/>`
const model = (resources: string, build: string, head = '') => `<?xml version="1.0" encoding="UTF-8"?>
<model unit="millimeter" xml:lang="en-US" xmlns="${CORE}" xmlns:p="http://schemas.microsoft.com/3dmanufacturing/production/2015/06"${head}>
<resources>${resources}</resources>
<build>${build}</build>
</model>`
const relationships = (extra = '') =>
  `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Target="/3D/3dmodel.model" Id="rel-1" Type="${MODEL_TYPE}"/>${extra}</Relationships>`

/** A 3MF package: the given parts plus content types and, unless given, the root relationships. */
function package3mf(parts: Record<string, string | Uint8Array>, level: 0 | 6 = 6): Uint8Array {
  const files: Zippable = {
    '[Content_Types].xml': new TextEncoder().encode('<Types/>'),
    '_rels/.rels': new TextEncoder().encode(relationships()),
  }
  for (const [name, content] of Object.entries(parts))
    files[name] = typeof content === 'string' ? new TextEncoder().encode(content) : content
  return zipSync(files, { level })
}

const cubePackage = (extra: Record<string, string | Uint8Array> = {}) =>
  package3mf({ '3D/3dmodel.model': model(cube(1), item(1)), ...extra })

async function figures(contents: ThreeMfContents) {
  const stats = createMeshStats()
  await contents.forEachTriangle(stats)
  return stats.finish()
}

async function refusal(zip: Uint8Array, limits?: ThreeMfLimits): Promise<FormatError> {
  const error = await readThreeMf(byteSourceFromBytes(zip), limits).then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  expect(error).toBeInstanceOf(FormatError)
  return error as FormatError
}

describe('3MF reading', () => {
  it('gives a 3MF that prusa-slicer exported from a gallery shape the size, facets and volume of the STL', async () => {
    for (const shape of ['box', 'sphere', 'torus', 'M3x10_screw', 'bunny', 'OTHER_recycling_symbol']) {
      const stl = join(SHAPES, `${shape}.stl`)
      const threeMf = join(scratch, `${shape}.3mf`)
      prusaSlicer('--export-3mf', '-o', threeMf, stl)
      const contents = await readThreeMf(byteSourceFromBytes(readFileSync(threeMf)))
      const fromStl = createMeshStats()
      await readStl(byteSourceFromBytes(readFileSync(stl)), fromStl)
      const expected = fromStl.finish()
      const actual = await figures(contents)
      expect(actual.triangles, shape).toBe(expected.triangles)
      expect(actual.manifold, shape).toBe(expected.manifold)
      actual.size.forEach((size, axis) => {
        expect(Math.abs(size - expected.size[axis]!), shape).toBeLessThan(0.01)
      })
      expect(Math.abs(actual.volume - expected.volume), shape).toBeLessThan(expected.volume * 0.001)
      expect(contents.objects).toEqual([{ id: '1', name: `${shape}.stl`, triangles: expected.triangles }])
      expect(contents.metadata).toMatchObject({ title: shape, application: expect.stringMatching(/^PrusaSlicer-/) })
      // PrusaSlicer's command line names a thumbnail in the relationships but writes none.
      expect(contents.thumbnail).toBeUndefined()
    }
  })

  it('reads the standard metadata, decoding entities and CDATA and leaving out empty and foreign names', async () => {
    const head = `>
<metadata name="Title">Gear &amp; pinion &#x2699;</metadata>
<metadata name="Designer"><![CDATA[Ada <ada@example.com>]]></metadata>
<metadata name="Description" preserve="1">Two gears,
  meshing.</metadata>
<metadata name="LicenseTerms">CC-BY-4.0</metadata>
<metadata name="Copyright"></metadata>
<metadata name="Rating"/>
<metadata name="slic3rpe:Version3mf">1</metadata`
    const contents = await readThreeMf(
      byteSourceFromBytes(package3mf({ '3D/3dmodel.model': model(cube(1, ' name="Gear"'), item(1), head) })),
    )
    expect(contents.metadata).toEqual({
      title: 'Gear & pinion ⚙',
      designer: 'Ada <ada@example.com>',
      description: 'Two gears,\n  meshing.',
      licenseterms: 'CC-BY-4.0',
    })
    expect(contents.objects).toEqual([{ id: '1', name: 'Gear', triangles: 12 }])
  })

  it('places every build item with its transform, following components, and replays as often as asked', async () => {
    const resources = `${cube(1)}<object id="2" type="model"><components>
      <component objectid="1" transform="1 0 0 0 1 0 0 0 1 2 0 0"/>
      <component objectid="1" transform="2 0 0 0 2 0 0 0 2 0 0 0"/>
    </components></object>`
    const build = item(2, '1 0 0 0 1 0 0 0 1 10 0 0') + item(1, '0 1 0 -1 0 0 0 0 1 0 0 0')
    const contents = await readThreeMf(byteSourceFromBytes(package3mf({ '3D/3dmodel.model': model(resources, build) })))
    expect(contents.objects).toEqual([
      { id: '2', triangles: 24 },
      { id: '1', triangles: 12 },
    ])
    const first = await figures(contents)
    expect(first).toMatchObject({
      triangles: 36,
      bbox: { min: [-1, 0, 0], max: [13, 2, 2] },
      volume: 10,
      area: 6 + 24 + 6,
    })
    expect(await figures(contents)).toEqual(first)
  })

  it('keeps the volume of a mirrored build item positive', async () => {
    const contents = await readThreeMf(
      byteSourceFromBytes(
        package3mf({ '3D/3dmodel.model': model(cube(1), item(1) + item(1, '-1 0 0 0 1 0 0 0 1 0 0 0')) }),
      ),
    )
    expect(await figures(contents)).toMatchObject({ triangles: 24, volume: 2, size: [2, 1, 1] })
  })

  it('converts the model unit to millimetres', async () => {
    const inches = model(cube(1), item(1)).replace('unit="millimeter"', 'unit="inch"')
    const stats = await figures(await readThreeMf(byteSourceFromBytes(package3mf({ '3D/3dmodel.model': inches }))))
    expect(stats.size).toEqual([25.4, 25.4, 25.4])
    expect(stats.volume).toBeCloseTo(25.4 ** 3, 6)
  })

  it('follows p:path references into other model parts, names objects from the slicer config and redacts secrets in its JSON settings', async () => {
    const root = model(
      `<object id="2" type="model"><components><component p:path="/3D/Objects/object_1.model" objectid="1" transform="1 0 0 0 1 0 0 0 1 0 0 5"/></components></object>`,
      item(2),
    )
    const contents = await readThreeMf(
      byteSourceFromBytes(
        package3mf({
          '3D/3dmodel.model': root,
          '3D/Objects/object_1.model': model(cube(1), ''),
          'Metadata/model_settings.config':
            '<config><object id="2"><metadata key="name" value="Bracket"/><part id="1"><metadata key="name" value="Body"/></part></object></config>',
          'Metadata/project_settings.config': JSON.stringify({
            layer_height: '0.2',
            nozzle_diameter: ['0.4', '0.6'],
            print_host_api_key: 'k3y',
            bbl_token: 't',
            user_id: '42',
            thumbnails: [{ a: 1 }],
          }),
        }),
      ),
    )
    expect(contents.objects).toEqual([{ id: '2', name: 'Bracket', triangles: 12 }])
    expect((await figures(contents)).bbox).toEqual({ min: [0, 0, 5], max: [1, 1, 6] })
    expect(contents.slicerConfig).toEqual({
      layer_height: '0.2',
      nozzle_diameter: '0.4,0.6',
      print_host_api_key: '[redacted]',
      bbl_token: '[redacted]',
      user_id: '[redacted]',
      thumbnails: '[{"a":1}]',
    })
  })

  it("reads PrusaSlicer's settings with printer host keys, passwords and user names redacted", async () => {
    const config = [
      '; generated by PrusaSlicer 2.5.0+linux-x64-GTK3 on 2026-11-21 at 08:47:00 UTC',
      '; layer_height = 0.15',
      '; filament_settings_id = "Prusament PLA";"Prusament PETG"',
      '; printhost_apikey = 0123456789abcdef',
      '; printhost_password = hunter2',
      '; printhost_user = bob',
      '; printhost_cafile = ',
      '; start_gcode = G28 ; home all axes\\nG1 Z5',
    ].join('\n')
    const contents = await readThreeMf(byteSourceFromBytes(cubePackage({ 'Metadata/Slic3r_PE.config': config })))
    expect(contents.slicerConfig).toEqual({
      layer_height: '0.15',
      filament_settings_id: '"Prusament PLA";"Prusament PETG"',
      printhost_apikey: '[redacted]',
      printhost_password: '[redacted]',
      printhost_user: '[redacted]',
      printhost_cafile: '',
      start_gcode: 'G28 ; home all axes\\nG1 Z5',
    })
  })

  it('takes the thumbnail the relationships name, PNG or JPEG, with its pixel size, else Metadata/thumbnail.png', async () => {
    const png = readFileSync(join(SHAPES, 'box.png'))
    const jpeg = readFileSync('/usr/share/PrusaSlicer/icons/splashscreen.jpg')
    const withRelationship = (target: string) =>
      relationships(`<Relationship Target="${target}" Id="rel-2" Type="${THUMBNAIL_TYPE}"/>`)

    const fromJpeg = await readThreeMf(
      byteSourceFromBytes(
        cubePackage({ '_rels/.rels': withRelationship('/Metadata/cover.jpg'), 'Metadata/cover.jpg': jpeg }),
      ),
    )
    expect(fromJpeg.thumbnail).toMatchObject({ width: 600, height: 600, contentType: 'image/jpeg' })
    expect(jpeg.equals(fromJpeg.thumbnail!.bytes)).toBe(true)

    const fallback = await readThreeMf(
      byteSourceFromBytes(
        cubePackage({ '_rels/.rels': withRelationship('/Metadata/missing.png'), 'Metadata/thumbnail.png': png }),
      ),
    )
    expect(fallback.thumbnail).toMatchObject({ width: 256, height: 256, contentType: 'image/png' })
    expect(png.equals(fallback.thumbnail!.bytes)).toBe(true)

    const notAnImage = await readThreeMf(byteSourceFromBytes(cubePackage({ 'Metadata/thumbnail.png': 'not an image' })))
    expect(notAnImage.thumbnail).toBeUndefined()
  })

  it('reads the same package whatever the chunks the store streams in, stored or deflated', async () => {
    const parts = {
      '3D/3dmodel.model': model(
        cube(1, ' name="Würfel"'),
        item(1, '1 0 0 0 1 0 0 0 1 0.5 0 0'),
        ' ><metadata name="Title">Würfel &lt;1&gt;</metadata',
      ),
    }
    const expected = await readThreeMf(byteSourceFromBytes(package3mf(parts)))
    for (const [level, chunkSize] of [
      [0, 1],
      [0, 3],
      [6, 2],
      [6, 5],
    ] as const) {
      const contents = await readThreeMf(byteSourceFromBytes(package3mf(parts, level), { chunkSize }))
      expect(contents.objects).toEqual(expected.objects)
      expect(contents.metadata).toEqual({ title: 'Würfel <1>' })
      expect(await figures(contents)).toEqual(await figures(expected))
    }
  })

  it('refuses model parts that together declare more than the model limit', async () => {
    const root = model(
      '<object id="2"><components><component p:path="/3D/other.model" objectid="1"/></components></object>',
      item(2),
    )
    const other = model(cube(1), '')
    const zip = package3mf({ '3D/3dmodel.model': root, '3D/other.model': other })
    const together = new TextEncoder().encode(root + other).length
    expect(await readThreeMf(byteSourceFromBytes(zip), { maxModelBytes: together })).toMatchObject({
      objects: [{ id: '2', triangles: 12 }],
    })
    const error = await refusal(zip, { maxModelBytes: together - 1 })
    expect(error).toMatchObject({
      kind: 'unsafe',
      message: expect.stringMatching(`model parts declare more than the limit of ${together - 1} bytes together`),
    })
  })

  it('applies the zip limits to every entry, even one it never reads', async () => {
    const many: Record<string, string> = {}
    for (let index = 0; index < 10_000; index++) many[`Metadata/${index}.txt`] = ''
    expect(await refusal(cubePackage(many))).toMatchObject({
      kind: 'unsafe',
      message: expect.stringMatching(/10003 entries, more than the limit of 10000/),
    })
    const unread = cubePackage({ 'Metadata/plate_1.gcode': new Uint8Array(2 * MiB) })
    expect(await refusal(unread)).toMatchObject({
      kind: 'unsafe',
      message: expect.stringMatching(
        /"Metadata\/plate_1.gcode" declares 2097152 bytes from \d+ compressed: a ratio above 200:1/,
      ),
    })
    expect(await refusal(cubePackage(), { maxModelBytes: 100 })).toMatchObject({
      kind: 'unsafe',
      message: expect.stringMatching(/declares \d+ bytes, more than the limit of 100\./),
    })
  })

  it('refuses a thumbnail or settings part above the part limit', async () => {
    const png = readFileSync(join(SHAPES, 'box.png'))
    const limit = { maxPartBytes: png.length - 1 }
    expect(await refusal(cubePackage({ 'Metadata/thumbnail.png': png }), limit)).toMatchObject({
      kind: 'unsafe',
      message: expect.stringMatching(
        `"Metadata/thumbnail.png" declares ${png.length} bytes, more than the limit of ${png.length - 1}`,
      ),
    })
    expect(
      await refusal(cubePackage({ 'Metadata/Slic3r_PE.config': '; a = b\n'.repeat(png.length) }), limit),
    ).toMatchObject({ kind: 'unsafe', message: expect.stringMatching(/"Metadata\/Slic3r_PE.config" declares/) })
  })

  it('refuses a build that instancing expands beyond the triangle limit', async () => {
    let resources = cube(1)
    for (let level = 2; level <= 9; level++) {
      resources += `<object id="${level}" type="model"><components>${`<component objectid="${level - 1}"/>`.repeat(10)}</components></object>`
    }
    const error = await refusal(package3mf({ '3D/3dmodel.model': model(resources, item(9)) }))
    expect(error).toMatchObject({
      kind: 'unsafe',
      message: expect.stringMatching(/1200000000 triangles, more than the limit of 100000000/),
    })
  })

  it('explains why a package that is not a readable 3MF is malformed', async () => {
    const withModel = (xml: string) => package3mf({ '3D/3dmodel.model': xml })
    const cases: [string, Uint8Array, RegExp][] = [
      ['no model part', package3mf({ 'Metadata/thumbnail.png': 'x' }), /no 3D model part \(3d\/3dmodel.model\)/],
      ['unclosed element', withModel(model(cube(1), item(1)).replace('</model>', '')), /ends before <\/model>/],
      [
        'mismatched element',
        withModel(model(cube(1), item(1)).replace('</build>', '</built>')),
        /<\/built> does not close the open element/,
      ],
      [
        'document type declaration',
        withModel(`<!DOCTYPE model [<!ENTITY a "aaaa">]>${model(cube(1), item(1))}`),
        /document type declaration is not allowed/,
      ],
      [
        'broken tag',
        withModel(model(cube(1), item(1)).replace('<vertex x="1" y="0" z="0"/>', '<vertex x="1" y=0 z="0"/>')),
        /the value of attribute y is not quoted/,
      ],
      [
        'attributes run together',
        withModel(model(cube(1), item(1)).replace('<vertex x="1" y="0" z="0"/>', '<vertex x="1"y="0" z="0"/>')),
        /not separated by white space/,
      ],
      ['unterminated tag', withModel(model(cube(1), item(1)).replace('</model>', '</model')), /ends inside a tag/],
      ['wrong root', withModel('<svg/>'), /root element .* is <svg>, not <model>/],
      [
        'vertex index out of range',
        withModel(model(cube(1).replace('v3="1"', 'v3="8"'), item(1))),
        /refers to vertex 8, but its object has 8 vertices/,
      ],
      [
        'coordinate not a number',
        withModel(model(cube(1).replace('x="1" y="1" z="1"', 'x="1" y="one" z="1"'), item(1))),
        /has y="one", not a finite number/,
      ],
      [
        'coordinate missing',
        withModel(model(cube(1).replace('x="1" y="1" z="1"', 'x="1" z="1"'), item(1))),
        /has no y, not a finite number/,
      ],
      ['unknown unit', withModel(model(cube(1), item(1)).replace('millimeter', 'furlong')), /unknown unit "furlong"/],
      ['bad transform', withModel(model(cube(1), item(1, '1 0 0'))), /transform "1 0 0" is not 12 numbers/],
      [
        'dangling build item',
        withModel(model(cube(1), item(7))),
        /refers to object 7 in 3d\/3dmodel.model, which does not exist/,
      ],
      [
        'missing model part',
        withModel(
          model(
            '<object id="2"><components><component p:path="/3D/nowhere.model" objectid="1"/></components></object>',
            item(2),
          ),
        ),
        /model part "3d\/nowhere.model", which the package does not have/,
      ],
      [
        'component cycle',
        withModel(
          model(
            '<object id="1"><components><component objectid="2"/></components></object><object id="2"><components><component objectid="1"/></components></object>',
            item(1),
          ),
        ),
        /contains itself/,
      ],
    ]
    for (const [what, zip, message] of cases) {
      const error = await refusal(zip)
      expect(error.kind, what).toBe('malformed')
      expect(error.message, what).toMatch(message)
    }
  })
})
