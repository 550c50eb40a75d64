import { attribute, openOnly, parseXml } from './xml-tokens.js'

/**
 * A plate of a `.gcode.3mf` (Bambu Studio's and OrcaSlicer's sliced export) that carries G-code:
 * `Metadata/slice_info.config` lists the sliced plates (`<plate>` with `<metadata key="index">`,
 * `prediction` in seconds, `weight` in grams, and one `<filament>` per filament used), and each
 * one's G-code is `Metadata/plate_<index>.gcode` beside its picture `Metadata/plate_<index>.png`.
 * A project sliced for plate 3 only has plate 3 here, not plate 1.
 */
export interface SlicedPlate {
  index: number
  /** The plate's G-code entry. */
  gcode: string
  /** The plate's picture entry, when the package has one. */
  thumbnail: string | null
  /** The slicer's estimate of the print time. */
  prediction_s: number | null
  weight_g: number | null
  filaments: Array<{
    id: number | null
    type: string | null
    color: string | null
    used_m: number | null
    used_g: number | null
  }>
  /** The names of the objects on the plate. */
  objects: string[]
}

type Filament = SlicedPlate['filaments'][number]

const number = (value: string | undefined): number | null => {
  if (value === undefined || value.trim() === '') return null
  const parsed = Number(value)
  return Number.isFinite(parsed) ? parsed : null
}

/**
 * The sliced plates of a package, by index, from its slice list and the entries it holds (`has`
 * answers whether an entry exists). Plates listed without their G-code are left out; a package
 * without a slice list (a project, not a sliced export) has none.
 */
export function readSlicedPlates(sliceInfo: string | undefined, has: (entry: string) => boolean): SlicedPlate[] {
  if (sliceInfo === undefined) return []
  const listed: Array<{
    index: number | null
    prediction: number | null
    weight: number | null
    filaments: Filament[]
    objects: string[]
  }> = []
  parseXml(
    sliceInfo,
    openOnly((name, attributes, parent) => {
      if (name === 'plate') listed.push({ index: null, prediction: null, weight: null, filaments: [], objects: [] })
      const plate = listed.at(-1)
      if (!plate || parent !== 'plate') return
      if (name === 'metadata') {
        const value = attribute(attributes, 'value')
        const key = attribute(attributes, 'key')
        if (key === 'index') plate.index = number(value)
        else if (key === 'prediction') plate.prediction = number(value)
        else if (key === 'weight') plate.weight = number(value)
      } else if (name === 'filament') {
        plate.filaments.push({
          id: number(attribute(attributes, 'id')),
          type: attribute(attributes, 'type') || null,
          color: attribute(attributes, 'color') || null,
          used_m: number(attribute(attributes, 'used_m')),
          used_g: number(attribute(attributes, 'used_g')),
        })
      } else if (name === 'object') {
        const objectName = attribute(attributes, 'name')
        if (objectName && attribute(attributes, 'skipped') !== 'true') plate.objects.push(objectName)
      }
    }),
  )
  return listed
    .flatMap(({ index, prediction, weight, filaments, objects }) => {
      if (index === null || !Number.isInteger(index) || index < 1) return []
      const gcode = `Metadata/plate_${index}.gcode`
      if (!has(gcode)) return []
      const picture = `Metadata/plate_${index}.png`
      return [
        {
          index,
          gcode,
          thumbnail: has(picture) ? picture : null,
          prediction_s: prediction,
          weight_g: weight,
          filaments,
          objects,
        },
      ]
    })
    .sort((a, b) => a.index - b.index)
}
