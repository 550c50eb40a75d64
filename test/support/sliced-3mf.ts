import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type Zippable, zipSync } from 'fflate'
import { SHAPES } from './prusa-slicer.js'
import { cubeTriangles } from './uploads.js'

/** Sliced exports as Bambu Studio writes them, built in the test with fflate's zip writer. */
const encode = (text: string) => new TextEncoder().encode(text)
/** A 3MF object of a cube (each triangle its own three vertices) and the build item placing it. */
function cubeObject(side: number): string {
  const triangles = cubeTriangles(side)
  const vertices = triangles.flat().map(([x, y, z]) => `<vertex x="${x}" y="${y}" z="${z}"/>`)
  const faces = triangles.map((_, i) => `<triangle v1="${3 * i}" v2="${3 * i + 1}" v3="${3 * i + 2}"/>`)
  return `<resources><object id="1" type="model"><mesh><vertices>${vertices.join('')}</vertices><triangles>${faces.join('')}</triangles></mesh></object></resources><build><item objectid="1"/></build>`
}

export const plate1Picture = readFileSync(join(SHAPES, 'M3_hex_nut.png'))
export const plate2Picture = readFileSync(join(SHAPES, 'M3x10_screw.png'))
const plateGcode = (plate: number) =>
  encode(`; HEADER_BLOCK_START\n; BambuStudio 01.09.07.52\n; plate ${plate}\nG28\nG1 X10 Y10 F3000\n`)

/** `<plate>` of Bambu Studio's slice list, with one object and one filament. */
export const slicedPlate = (index: number, prediction: number, weight: number, objectName: string) => `  <plate>
    <metadata key="index" value="${index}"/>
    <metadata key="printer_model_id" value="C12"/>
    <metadata key="prediction" value="${prediction}"/>
    <metadata key="weight" value="${weight}"/>
    <object identify_id="${100 + index}" name="${objectName}" skipped="false" />
    <object identify_id="${200 + index}" name="skipped part" skipped="true" />
    <filament id="1" tray_info_idx="GFA00" type="PLA" color="#F2754E" used_m="${weight / 3}" used_g="${weight}" />
  </plate>`

/**
 * A `.gcode.3mf` as Bambu Studio exports it: a model part, each project plate's picture, the
 * package thumbnail relationship pointing at plate 1's, the slice list and each sliced plate's
 * G-code (`sliced`: their indexes). With `settings`, the project's settings as Bambu Studio writes
 * them (`Metadata/project_settings.config`, JSON with per-extruder lists); with `cube`, the model
 * part holds a cube of that side (else no object).
 */
export function slicedExport(
  plates: string[],
  sliced: number[],
  { settings, cube }: { settings?: Record<string, unknown>; cube?: number } = {},
): Uint8Array {
  const files: Zippable = {
    '[Content_Types].xml': encode('<Types/>'),
    '_rels/.rels': encode(
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Target="/3D/3dmodel.model" Id="rel-1" Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/><Relationship Target="/Metadata/plate_1.png" Id="rel-2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/thumbnail"/></Relationships>',
    ),
    '3D/3dmodel.model': encode(
      `<?xml version="1.0" encoding="UTF-8"?><model unit="millimeter" xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02"><metadata name="Title">Screws and nuts</metadata>${cube === undefined ? '<resources/><build/>' : cubeObject(cube)}</model>`,
    ),
    'Metadata/plate_1.png': plate1Picture,
    'Metadata/plate_2.png': plate2Picture,
    'Metadata/slice_info.config': encode(
      `<?xml version="1.0" encoding="UTF-8"?>\n<config>\n  <header>\n    <header_item key="X-BBL-Client-Type" value="slicer"/>\n  </header>\n${plates.join('\n')}\n</config>\n`,
    ),
  }
  for (const index of sliced) files[`Metadata/plate_${index}.gcode`] = plateGcode(index)
  if (settings) files['Metadata/project_settings.config'] = encode(JSON.stringify(settings))
  return zipSync(files)
}
