import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type Zippable, zipSync } from 'fflate'
import { SHAPES } from './prusa-slicer.js'

/** Sliced exports as Bambu Studio writes them, built in the test with fflate's zip writer. */
const encode = (text: string) => new TextEncoder().encode(text)
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
 * G-code (`sliced`: their indexes), and with `settings` the project's settings as Bambu Studio
 * writes them (`Metadata/project_settings.config`, JSON with per-extruder lists).
 */
export function slicedExport(plates: string[], sliced: number[], settings?: Record<string, unknown>): Uint8Array {
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
  }
  for (const index of sliced) files[`Metadata/plate_${index}.gcode`] = plateGcode(index)
  if (settings) files['Metadata/project_settings.config'] = encode(JSON.stringify(settings))
  return zipSync(files)
}
