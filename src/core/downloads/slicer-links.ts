/**
 * The desktop slicers a download link can be handed to, each with the URL its own handler reads
 * and the formats it opens from that URL (the list Manyfold offers). Everything is encoded once
 * with `encodeURIComponent`: the slicers unescape the `file=` value once (OrcaSlicer with
 * `curl_easy_unescape`, which leaves `+` alone, so a form-encoded space would break the URL).
 * PrusaSlicer is not here: its handler downloads only from printables.com, thingiverse.com and
 * cults3d.com over https and refuses every other host.
 */
export const slicerIds = [
  'orcaslicer',
  'bambustudio',
  'bambustudio_macos',
  'cura',
  'superslicer',
  'elegooslicer',
  'crealityprint',
] as const
export type SlicerId = (typeof slicerIds)[number]

interface Slicer {
  formats: readonly string[]
  link: (fileUrl: string) => string
}

/** `<scheme>://open?file=<url>`: the Slic3r family's form, which Cura adopted. */
const openFile = (scheme: string) => (fileUrl: string) => `${scheme}://open?file=${encodeURIComponent(fileUrl)}`

const slicers: Record<SlicerId, Slicer> = {
  orcaslicer: { formats: ['stl', '3mf', 'obj', 'step'], link: openFile('orcaslicer') },
  // Bambu Studio opens only a 3MF by URL: it refuses any other name before downloading.
  bambustudio: { formats: ['3mf'], link: openFile('bambustudio') },
  // On macOS Bambu Studio registers another scheme, which takes the URL alone.
  bambustudio_macos: { formats: ['3mf'], link: (fileUrl) => `bambustudioopen://${encodeURIComponent(fileUrl)}` },
  // Cura also previews G-code; the Slic3r family do not load it from a URL.
  cura: { formats: ['stl', '3mf', 'obj', 'gcode'], link: openFile('cura') },
  // SuperSlicer answers PrusaSlicer's scheme; where PrusaSlicer owns it, PrusaSlicer refuses the host.
  superslicer: { formats: ['stl', '3mf', 'obj', 'step'], link: openFile('prusaslicer') },
  elegooslicer: { formats: ['stl', '3mf', 'obj', 'step'], link: openFile('elegooslicer') },
  crealityprint: { formats: ['stl', '3mf', 'obj', 'step'], link: openFile('crealityprintlink') },
}

/** The slicer links for a file of `format` at `fileUrl`: only the slicers that open that format. */
export function slicerLinksFor(format: string, fileUrl: string): Partial<Record<SlicerId, string>> {
  return Object.fromEntries(
    slicerIds.filter((id) => slicers[id].formats.includes(format)).map((id) => [id, slicers[id].link(fileUrl)]),
  )
}
