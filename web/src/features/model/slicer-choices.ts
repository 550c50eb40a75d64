import type { DownloadLink } from './use-download-link'

type SlicerLinkKey = keyof DownloadLink['slicer_links']

/** A slicer the menu offers: its name, the formats it opens from a link, and which link it takes. */
export interface SlicerChoice {
  label: string
  formats: readonly string[]
  linkKey: (platform: string) => SlicerLinkKey
}

const fixed = (key: SlicerLinkKey) => () => key

/** The slicers of `slicer_links`, in menu order; the vault answers a link only for those that open the format. */
export const slicerChoices: readonly SlicerChoice[] = [
  { label: 'OrcaSlicer', formats: ['stl', '3mf', 'obj', 'step'], linkKey: fixed('orcaslicer') },
  {
    label: 'Bambu Studio',
    formats: ['3mf'],
    // Bambu Studio registers another scheme on macOS.
    linkKey: (platform) => (/mac/i.test(platform) ? 'bambustudio_macos' : 'bambustudio'),
  },
  { label: 'UltiMaker Cura', formats: ['stl', '3mf', 'obj', 'gcode'], linkKey: fixed('cura') },
  { label: 'SuperSlicer', formats: ['stl', '3mf', 'obj', 'step'], linkKey: fixed('superslicer') },
  { label: 'ElegooSlicer', formats: ['stl', '3mf', 'obj', 'step'], linkKey: fixed('elegooslicer') },
  { label: 'Creality Print', formats: ['stl', '3mf', 'obj', 'step'], linkKey: fixed('crealityprint') },
]

export const slicersFor = (format: string) => slicerChoices.filter((choice) => choice.formats.includes(format))
