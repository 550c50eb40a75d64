import { encode as encodePng } from 'fast-png'
import { imageKind, imageSize } from './image-header.js'
import { decodeQoi } from './qoi.js'
import { isSecretKey, REDACTED, redactSettings } from './redact.js'
import { type ByteSource, FormatError, type Thumbnail } from './types.js'

/** Filament one extruder (or AMS slot) uses, as the slicer states it; null where it does not. */
export interface GcodeExtruderFilament {
  length_mm: number | null
  volume_cm3: number | null
  weight_g: number | null
  cost: number | null
  type: string | null
  name: string | null
}

/**
 * Filament the whole print uses: totals over every extruder (the slicer's own total where it
 * states one, else the sum), distinct types and names of the extruders in use joined with
 * ", ", and one entry per extruder the slicer lists.
 */
export interface GcodeFilament extends GcodeExtruderFilament {
  per_extruder: GcodeExtruderFilament[]
}

/** What a G-code file says about itself. Every figure is null when the file does not state it. */
export interface GcodeMetadata {
  slicer: { name: string; version: string | null } | null
  estimated_time_s: number | null
  filament: GcodeFilament
  layer_height_mm: number | null
  first_layer_height_mm: number | null
  layer_count: number | null
  nozzle_diameter_mm: number | null
  printer_model: string | null
  /** Names of the printed objects, as labelled for cancelling single objects. */
  objects: string[]
  /** °C, of the first extruder in use. */
  nozzle_temperature: number | null
  /** °C */
  bed_temperature: number | null
  /** Height of the top layer, mm. */
  max_layer_z: number | null
  /** The slicer's settings (`; key = value` lines), secrets replaced by "[redacted]". */
  config: Record<string, string>
  /** Embedded previews as PNG or JPEG (QOI converted to PNG), smallest first. */
  thumbnails: Thumbnail[]
  warnings: string[]
}

export interface GcodeReadOptions {
  /** Bytes read from the start of the file. Default 1 MiB. */
  headBytes?: number
  /** Bytes read from the end of the file. Default 1 MiB. */
  tailBytes?: number
}

const MiB = 1024 * 1024

/**
 * Reads the metadata slicers write into G-code (PrusaSlicer, SuperSlicer, OrcaSlicer, Bambu
 * Studio, Cura, Simplify3D, ideaMaker, KISSlicer, IceSL, Kiri:Moto): print time, filament,
 * layer heights, temperatures, object labels, settings and thumbnails. Only the first
 * `headBytes` and last `tailBytes` are read, where slicers put all of it, so a file of any
 * size costs the same. A file without metadata gives nulls and empty lists; anything odd but
 * readable (a damaged thumbnail, one cut off by the read window) is a warning. Throws
 * FormatError('malformed') for binary G-code (.bgcode) and for bytes that are not text.
 */
export async function readGcode(source: ByteSource, options: GcodeReadOptions = {}): Promise<GcodeMetadata> {
  const headBytes = windowSize(options.headBytes, 'headBytes')
  const tailBytes = windowSize(options.tailBytes, 'tailBytes')
  const warnings: string[] = []
  const comments: string[] = []
  const commands: string[] = []
  const rawThumbnails: RawThumbnail[] = []
  for (const window of await readWindows(source, headBytes, tailBytes)) {
    scanWindow(window, { comments, commands, thumbnails: rawThumbnails, warnings })
  }

  const settings = new Map<string, string>()
  for (const line of comments) {
    const match = SETTING.exec(line)
    if (match && !/_config$/i.test(match[1]!)) settings.set(match[1]!, match[2]!)
  }
  const facts = new Facts(comments, settings)
  const slots = facts.numbers(/^;\s*filament:\s*(.+)$/)?.map((slot) => slot - 1) ?? []
  const firstSlot = slots[0] ?? 0

  const layerHeight = facts.number(
    'layer_height',
    /^;Layer height:\s*([\d.]+)/,
    /^;\s*layerHeight,([\d.]+)/,
    'max_layer_thickness_mm',
    /^;\s*z_layer_height_mm\s*:\s*([\d.]+)/,
    'sliceHeight',
  )
  const metadata: GcodeMetadata = {
    slicer: identifySlicer(facts),
    estimated_time_s: estimatedTime(facts),
    filament: filamentUsage(facts, slots, firstSlot),
    layer_height_mm: layerHeight,
    first_layer_height_mm: firstLayerHeight(facts, layerHeight),
    layer_count: facts.number(
      /^;\s*total layers count\s*=\s*(\d+)/,
      /^;\s*total layer number:\s*(\d+)/,
      /^;LAYER_COUNT:(\d+)/,
      /^;\s*layer_count\s*:\s*(\d+)/,
    ),
    nozzle_diameter_mm: facts.number(
      'nozzle_diameter',
      /^;Nozzle diameter\s*=\s*([\d.]+)/,
      /^;EXTRUDER_TRAIN\.0\.NOZZLE\.DIAMETER:([\d.]+)/,
      /^;\s*(?:extruderDiameter|nozzleDiameter),([\d.]+)/,
      /^;\s*nozzle_diameter_mm_0\s*:\s*([\d.]+)/,
    ),
    printer_model: facts.string('printer_model', /^;PRINTER_MODEL[:=]\s*(.+)$/, /^;TARGET_MACHINE\.NAME:(.+)$/),
    objects: objectNames(comments, commands),
    nozzle_temperature:
      facts.number(
        ['temperature', firstSlot],
        ['nozzle_temperature', firstSlot],
        /^;EXTRUDER_TRAIN\.0\.INITIAL_TEMPERATURE:([\d.]+)/,
        'firstLayerNozzleTemp',
      ) ?? commandValue(commands, /^M10[49]\b(?!.*\bT[1-9])[^;]*\bS(\d+(?:\.\d+)?)/),
    bed_temperature:
      facts.number(
        ['bed_temperature', firstSlot],
        [BAMBU_PLATE_TEMPERATURE[facts.setting('curr_bed_type') ?? ''] ?? '', firstSlot],
        /^;BUILD_PLATE\.INITIAL_TEMPERATURE:([\d.]+)/,
        'bed_C',
        'firstLayerBedTemp',
      ) ?? commandValue(commands, /^M1[49]0\b[^;]*\bS(\d+(?:\.\d+)?)/),
    max_layer_z:
      facts.number(
        /^;\s*max_z_height:\s*([\d.]+)/,
        /^;MAXZ:([\d.]+)/,
        /^;PRINT\.SIZE\.MAX\.Z:([\d.]+)/,
        /^;\s*print_height_mm\s*:\s*([\d.]+)/,
      ) ?? facts.highest(/^;\s*(?:Z:|Z_HEIGHT:)\s*([\d.]+)\s*$/),
    config: redactSettings(Object.fromEntries(settings)),
    thumbnails: rawThumbnails
      .map((raw) => toThumbnail(raw, warnings))
      .filter((thumbnail) => thumbnail !== null)
      .sort((a, b) => a.width * a.height - b.width * b.height),
    warnings,
  }
  return scrubSecrets(metadata, secretValues(settings))
}

function windowSize(value: number | undefined, name: string): number {
  if (value === undefined) return MiB
  if (!Number.isSafeInteger(value) || value < 1)
    throw new RangeError(`${name} must be a positive integer, not ${value}.`)
  return value
}

interface TextWindow {
  lines: string[]
  /** 'head' ends and 'tail' starts inside the file; 'file' is all of it. */
  part: 'head' | 'tail' | 'file'
}

async function readWindows(source: ByteSource, headBytes: number, tailBytes: number): Promise<TextWindow[]> {
  const size = source.size
  if (size === 0) return []
  if (size <= headBytes + tailBytes) {
    const bytes = await source.read(0, size - 1)
    assertText(bytes)
    return [{ part: 'file', lines: splitLines(bytes) }]
  }
  const head = await source.read(0, headBytes - 1)
  assertText(head)
  const headLines = splitLines(head)
  headLines.pop() // runs on past the window
  const tailLines = splitLines(await source.read(size - tailBytes, size - 1))
  tailLines.shift() // started before the window
  return [
    { part: 'head', lines: headLines },
    { part: 'tail', lines: tailLines },
  ]
}

function splitLines(bytes: Uint8Array): string[] {
  return new TextDecoder('utf-8').decode(bytes).split(/\r?\n/)
}

/** Text G-code has no control characters but tab, line breaks and form feed; binary files are full of them. */
function assertText(bytes: Uint8Array): void {
  if (bytes[0] === 0x47 && bytes[1] === 0x43 && bytes[2] === 0x44 && bytes[3] === 0x45) {
    throw new FormatError(
      'malformed',
      'This is binary G-code (.bgcode, starts with "GCDE"); only text G-code is read. Export text G-code from the slicer, or convert the file with PrusaSlicer\'s G-code viewer.',
    )
  }
  const sample = bytes.subarray(0, 64 * 1024)
  let control = 0
  for (const byte of sample)
    if ((byte < 32 && byte !== 9 && byte !== 10 && byte !== 12 && byte !== 13) || byte === 127) control++
  if (control > sample.length / 100) {
    throw new FormatError(
      'malformed',
      `This is not text G-code: ${control} of its first ${sample.length} bytes are control characters such as NUL.`,
    )
  }
}

// ---- One pass over the lines of a window -------------------------------------------------

interface RawThumbnail {
  tag: string
  width: number
  height: number
  length: number
  base64: string
}

interface Scan {
  comments: string[]
  commands: string[]
  thumbnails: RawThumbnail[]
  warnings: string[]
}

const THUMBNAIL_BEGIN = /^;\s*(thumbnail(?:_[A-Za-z]+)?)\s+begin\s+(\d+)\s*x\s*(\d+)\s+(\d+)\s*$/i
const THUMBNAIL_END = /^;\s*thumbnail(?:_[A-Za-z]+)?\s+end\s*$/i
/** The commands that name objects or set temperatures; other moves are skipped. */
const INTERESTING_COMMAND = /^(?:M10[49]|M1[49]0|M486|EXCLUDE_OBJECT_DEFINE)\b/i

function scanWindow(window: TextWindow, scan: Scan): void {
  let open: (RawThumbnail & { lines: string[] }) | null = null
  const close = (problem: string) => {
    if (open) scan.warnings.push(`Thumbnail ${describe(open)} ${problem}; skipped.`)
    open = null
  }
  for (const raw of skipCutThumbnail(window, scan.warnings)) {
    const line = raw.trim()
    if (open) {
      if (THUMBNAIL_END.test(line)) {
        const { lines, ...thumbnail } = open
        scan.thumbnails.push({ ...thumbnail, base64: lines.join('') })
        open = null
        continue
      }
      if (line.startsWith(';') && !THUMBNAIL_BEGIN.test(line)) {
        open.lines.push(line.replace(/^;\s*/, ''))
        continue
      }
      close('has no end line')
    }
    const begin = THUMBNAIL_BEGIN.exec(line)
    if (begin) {
      open = {
        tag: begin[1]!,
        width: Number(begin[2]),
        height: Number(begin[3]),
        length: Number(begin[4]),
        base64: '',
        lines: [],
      }
    } else if (line.startsWith(';')) {
      scan.comments.push(line)
    } else if (INTERESTING_COMMAND.test(line)) {
      scan.commands.push(line)
    }
  }
  close(window.part === 'head' ? 'runs past the part of the file that was read (it is too large)' : 'has no end line')
}

/** The lines of a tail window after the rest of a thumbnail that began before it, if one did. */
function skipCutThumbnail(window: TextWindow, warnings: string[]): string[] {
  if (window.part !== 'tail') return window.lines
  const firstMarker = window.lines.findIndex(
    (line) => THUMBNAIL_BEGIN.test(line.trim()) || THUMBNAIL_END.test(line.trim()),
  )
  if (firstMarker === -1 || !THUMBNAIL_END.test(window.lines[firstMarker]!.trim())) return window.lines
  warnings.push('A thumbnail begins before the part of the end of the file that was read (it is too large); skipped.')
  return window.lines.slice(firstMarker + 1)
}

function describe(thumbnail: { tag: string; width: number; height: number }): string {
  return `${thumbnail.width}x${thumbnail.height} (${thumbnail.tag})`
}

// ---- Looking facts up ---------------------------------------------------------------------

/** `; key = value`, the form of slicer settings. */
const SETTING = /^;\s*([A-Za-z_]\w*)\s*=\s*(.*?)\s*$/

/** A settings key, an item of a comma-separated settings list, or a comment pattern whose group 1 is the value. */
type Source = string | [key: string, index: number] | RegExp

class Facts {
  constructor(
    readonly comments: string[],
    readonly settings: Map<string, string>,
  ) {}

  setting(key: string): string | null {
    const value = this.settings.get(key)?.trim()
    return value ? value : null
  }

  match(pattern: RegExp): RegExpExecArray | null {
    for (const line of this.comments) {
      const match = pattern.exec(line)
      if (match) return match
    }
    return null
  }

  all(pattern: RegExp): RegExpExecArray[] {
    return this.comments.map((line) => pattern.exec(line)).filter((match) => match !== null)
  }

  /** The first source that states a value: a settings key (list item) or a comment pattern. */
  string(...sources: Source[]): string | null {
    for (const source of sources) {
      const value =
        source instanceof RegExp
          ? this.match(source)?.[1]?.trim()
          : typeof source === 'string'
            ? this.setting(source)?.replace(/^"(.*)"$/, '$1')
            : this.list(source[0], ',')[source[1]]
      if (value) return value
    }
    return null
  }

  number(...sources: Source[]): number | null {
    for (const source of sources) {
      const value = toNumber(this.string(source))
      if (value !== null) return value
    }
    return null
  }

  numbers(pattern: RegExp): number[] | null {
    const text = this.match(pattern)?.[1]
    return text === undefined ? null : numberList(text)
  }

  highest(pattern: RegExp): number | null {
    return this.all(pattern).reduce<number | null>(
      (highest, match) => Math.max(highest ?? -Infinity, Number(match[1])),
      null,
    )
  }

  /** A settings list: numbers are separated by ",", strings (filament types, names) by ";". */
  list(key: string, separator: ',' | ';'): string[] {
    const value = this.setting(key)
    return value === null ? [] : value.split(separator).map((item) => item.trim().replace(/^"(.*)"$/, '$1'))
  }
}

function toNumber(text: string | null): number | null {
  if (text === null) return null
  const value = Number.parseFloat(text)
  return Number.isFinite(value) ? value : null
}

function numberList(text: string): number[] | null {
  const values = text.split(/[,;]/).map((item) => Number.parseFloat(item))
  return values.length > 0 && values.every(Number.isFinite) ? values : null
}

// ---- Slicer -------------------------------------------------------------------------------

const SLICERS: Array<{ pattern: RegExp; name?: string; version?: RegExp }> = [
  // "; generated by PrusaSlicer 2.5.0+UNKNOWN on 2024-…": also SuperSlicer, OrcaSlicer, Slic3r, Kiri:Moto…
  { pattern: /^;\s*generated by\s+(.+?)(?:\s+v?(\d[\w.+-]*))?(?:\s+on\s.*)?$/i },
  { pattern: /^;\s*(BambuStudio)\s+(\S+)/ },
  { pattern: /^;Generated with Cura_SteamEngine\s+(\S+)/, name: 'Cura' },
  { pattern: /^;GENERATOR\.NAME:Cura_SteamEngine/, name: 'Cura', version: /^;GENERATOR\.VERSION:(\S+)/ },
  { pattern: /^;\s*G-Code generated by Simplify3D\(R\) Version\s+(\S+)/, name: 'Simplify3D' },
  { pattern: /^;\s*KISSlicer/, name: 'KISSlicer', version: /^;\s*version\s+(\S+)/ },
  { pattern: /ideaMaker\s+([\d.]+)/, name: 'ideaMaker' },
  { pattern: /<IceSL\s+([^>]*)>/, name: 'IceSL' },
]

function identifySlicer(facts: Facts): GcodeMetadata['slicer'] {
  for (const { pattern, name, version } of SLICERS) {
    const match = facts.match(pattern)
    if (!match) continue
    if (name === undefined) return { name: match[1]!, version: match[2] ?? null }
    return { name, version: (version ? facts.match(version)?.[1] : match[1]) ?? null }
  }
  return null
}

// ---- Time ---------------------------------------------------------------------------------

const TIMES: Array<{ pattern: RegExp; unit: 'duration' | 'seconds' | 'minutes' }> = [
  { pattern: /^;\s*estimated printing time \(normal mode\)\s*=\s*(.+)$/, unit: 'duration' },
  { pattern: /^;\s*estimated printing time\s*=\s*(.+)$/, unit: 'duration' },
  { pattern: /^;.*\btotal estimated time:\s*([^;]+)/, unit: 'duration' },
  { pattern: /^;\s*model printing time:\s*([^;]+)/, unit: 'duration' },
  { pattern: /^;TIME:(\d+(?:\.\d+)?)\s*$/, unit: 'seconds' },
  { pattern: /^;PRINT\.TIME:(\d+(?:\.\d+)?)/, unit: 'seconds' },
  { pattern: /^;\s*Build time:\s*(.+)$/i, unit: 'duration' },
  { pattern: /^;Print Time:\s*([\d.]+)/, unit: 'seconds' },
  { pattern: /^;\s*Calculated.*Build Time:\s*([\d.]+)\s*minutes/, unit: 'minutes' },
  { pattern: /^;\s*estimated_print_time_s\s*:\s*([\d.]+)/, unit: 'seconds' },
  { pattern: /^;\s*--- print time:\s*(\d+)s/, unit: 'seconds' },
]

const DURATION_UNITS: Record<string, number> = { d: 86_400, h: 3_600, m: 60, s: 1 }

function estimatedTime(facts: Facts): number | null {
  for (const { pattern, unit } of TIMES) {
    const text = facts.match(pattern)?.[1]
    if (text === undefined) continue
    const value = unit === 'duration' ? parseDuration(text) : toNumber(text)
    if (value !== null) return unit === 'minutes' ? value * 60 : value
  }
  return null
}

/** "1d 2h 3m 4s", "2 hours 5 minutes", "15m 42s" → seconds. */
function parseDuration(text: string): number | null {
  const parts = [
    ...text.matchAll(/(\d+(?:\.\d+)?)\s*(d(?:ays?)?|h(?:ours?|rs?)?|m(?:in(?:ute)?s?)?|s(?:ec(?:ond)?s?)?)(?![a-z])/gi),
  ]
  if (parts.length === 0) return null
  return parts.reduce((total, [, amount, unit]) => total + Number(amount) * DURATION_UNITS[unit![0]!.toLowerCase()]!, 0)
}

// ---- Filament -----------------------------------------------------------------------------

type Quantity = 'length_mm' | 'volume_cm3' | 'weight_g' | 'cost'

interface UsagePattern {
  quantity: Quantity
  /** Group 1 is a comma list, one value per extruder; with `perLine`, group 2 is one extruder's value. */
  pattern: RegExp
  scale?: number
  /** The slicer's own total rather than per-extruder values. */
  total?: boolean
  perLine?: boolean
  /** Bambu Studio labels mm³ as "[cm^3]". */
  mislabelledMm3?: boolean
}

const USAGE: UsagePattern[] = [
  // PrusaSlicer, SuperSlicer, OrcaSlicer footers
  { quantity: 'length_mm', pattern: /^;\s*filament used \[mm\]\s*=\s*(.+)$/ },
  { quantity: 'volume_cm3', pattern: /^;\s*filament used \[cm3\]\s*=\s*(.+)$/ },
  { quantity: 'weight_g', pattern: /^;\s*filament used \[g\]\s*=\s*(.+)$/ },
  { quantity: 'weight_g', pattern: /^;\s*total filament used \[g\]\s*=\s*(.+)$/, total: true },
  { quantity: 'cost', pattern: /^;\s*filament cost\s*=\s*(.+)$/ },
  { quantity: 'cost', pattern: /^;\s*total filament cost\s*=\s*(.+)$/, total: true },
  { quantity: 'length_mm', pattern: /^;\s*filament used\s*=\s*([\d.]+)mm/ }, // Slic3r Prusa Edition
  // Bambu Studio and OrcaSlicer headers
  { quantity: 'length_mm', pattern: /^;\s*total filament length \[mm\]\s*:\s*(.+)$/ },
  { quantity: 'volume_cm3', pattern: /^;\s*total filament volume \[cm\^3\]\s*:\s*(.+)$/, mislabelledMm3: true },
  { quantity: 'weight_g', pattern: /^;\s*total filament weight \[g\]\s*:\s*(.+)$/ },
  // Cura
  { quantity: 'length_mm', pattern: /^;Filament used:\s*(.+)$/, scale: 1000 },
  {
    quantity: 'volume_cm3',
    pattern: /^;EXTRUDER_TRAIN\.(\d+)\.MATERIAL\.VOLUME_USED:\s*([\d.]+)/,
    perLine: true,
    scale: 0.001,
  },
  { quantity: 'weight_g', pattern: /^;Filament weight\s*=\s*\[(.+)\]/ },
  // Simplify3D
  { quantity: 'length_mm', pattern: /^;\s*(?:Filament|Material) length:\s*([\d.]+)\s*mm/i },
  { quantity: 'volume_cm3', pattern: /^;\s*(?:Plastic|Material) volume:\s*([\d.]+)\s*mm\^3/i, scale: 0.001 },
  { quantity: 'weight_g', pattern: /^;\s*(?:Plastic|Material) weight:\s*([\d.]+)\s*g/i },
  { quantity: 'cost', pattern: /^;\s*Material cost:\s*([\d.]+)/i },
  // ideaMaker, KISSlicer, IceSL, Kiri:Moto
  { quantity: 'length_mm', pattern: /^;Material#(\d+) Used:\s*([\d.]+)/, perLine: true },
  { quantity: 'length_mm', pattern: /^;\s*Ext #(\d+)\s*=\s*([\d.]+)\s*mm/, perLine: true },
  { quantity: 'length_mm', pattern: /^;\s*filament_used_mm\s*:\s*([\d.]+)/ },
  { quantity: 'weight_g', pattern: /^;\s*filament_used_g\s*:\s*([\d.]+)/ },
  { quantity: 'length_mm', pattern: /^;\s*--- filament used:\s*([\d.]+)\s*mm/ },
]

const QUANTITIES: Quantity[] = ['length_mm', 'volume_cm3', 'weight_g', 'cost']

function filamentUsage(facts: Facts, slots: number[], firstSlot: number): GcodeFilament {
  const lists = new Map<Quantity, number[]>()
  const totals = new Map<Quantity, number>()
  for (const usage of USAGE) {
    const scale = usage.scale ?? 1
    if (usage.total) {
      const total = toNumber(facts.match(usage.pattern)?.[1] ?? null)
      if (total !== null && !totals.has(usage.quantity)) totals.set(usage.quantity, total * scale)
      continue
    }
    if (lists.has(usage.quantity)) continue
    const values = usage.perLine
      ? facts.all(usage.pattern).map((match) => Number(match[2]))
      : facts.numbers(usage.pattern)
    if (values && values.length > 0)
      lists.set(
        usage.quantity,
        values.map((value) => value * scale),
      )
    if (usage.mislabelledMm3 && values) correctMislabelledVolume(facts, lists, slots)
  }

  const count = Math.max(0, ...[...lists.values()].map((list) => list.length))
  const slotOf = (index: number) => (slots.length === count ? slots[index]! : index)
  const types = statedList(facts, 'filament_type', /^;Filament type\s*=\s*(.+)$/)
  const names = statedList(facts, 'filament_settings_id', /^;Filament name\s*=\s*(.+)$/)
  const perExtruder = Array.from(
    { length: count },
    (_, index): GcodeExtruderFilament => ({
      length_mm: round(lists.get('length_mm')?.[index] ?? null),
      volume_cm3: round(lists.get('volume_cm3')?.[index] ?? null),
      weight_g: round(lists.get('weight_g')?.[index] ?? null),
      cost: round(lists.get('cost')?.[index] ?? null),
      type: types[slotOf(index)] || null,
      name: names[slotOf(index)] || null,
    }),
  )
  const inUse = perExtruder.filter((extruder) => extruder.length_mm === null || extruder.length_mm > 0)
  const described = (field: 'type' | 'name', stated: string[]) => {
    const distinct = [...new Set(inUse.map((extruder) => extruder[field]).filter((value) => value !== null))]
    return distinct.length > 0 ? distinct.join(', ') : count === 0 ? stated[firstSlot] || null : null
  }

  const length = totals.get('length_mm') ?? sum(lists.get('length_mm'))
  const filament: GcodeFilament = {
    length_mm: length,
    volume_cm3: totals.get('volume_cm3') ?? sum(lists.get('volume_cm3')),
    weight_g: totals.get('weight_g') ?? sum(lists.get('weight_g')),
    cost: totals.get('cost') ?? sum(lists.get('cost')),
    type: described('type', types),
    name: described('name', names),
    per_extruder: perExtruder,
  }
  // A slicer writes 0 g and 0 cost for filament whose density and price were never set.
  for (const quantity of ['weight_g', 'cost'] as const) {
    if (filament[quantity] === 0 && length !== null && length > 0) {
      filament[quantity] = null
      for (const extruder of perExtruder) extruder[quantity] = null
    }
  }
  for (const quantity of QUANTITIES) filament[quantity] = round(filament[quantity])
  return filament
}

/** Filament types or names: a slicer setting listing one per extruder, else Cura's single comment. */
function statedList(facts: Facts, key: string, comment: RegExp): string[] {
  const listed = facts.list(key, ';')
  if (listed.length > 0) return listed
  const stated = facts.string(comment)
  return stated ? [stated] : []
}

/** Bambu Studio writes "total filament volume [cm^3]" in mm³; a value 1000× the length's volume is mm³. */
function correctMislabelledVolume(facts: Facts, lists: Map<Quantity, number[]>, slots: number[]): void {
  const lengths = lists.get('length_mm')
  const volumes = lists.get('volume_cm3')
  if (!lengths || !volumes) return
  const diameters = facts.list('filament_diameter', ',').map(Number)
  const headerDiameter = facts.number(/^;\s*filament_diameter:\s*([\d.]+)/)
  const isMm3 = volumes.every((volume, index) => {
    const diameter = diameters[slots[index] ?? index] || headerDiameter || 1.75
    const expected = ((lengths[index] ?? 0) * Math.PI * (diameter / 2) ** 2) / 1000
    return expected > 0 && Math.abs(volume / 1000 - expected) < expected * 0.05
  })
  if (isMm3)
    lists.set(
      'volume_cm3',
      volumes.map((volume) => volume / 1000),
    )
}

function sum(values: number[] | undefined): number | null {
  return values ? values.reduce((total, value) => total + value, 0) : null
}

function round(value: number | null): number | null {
  return value === null ? null : Math.round(value * 1e6) / 1e6
}

// ---- Layers, temperatures, objects --------------------------------------------------------

function firstLayerHeight(facts: Facts, layerHeight: number | null): number | null {
  const stated = facts.setting('first_layer_height')
  if (stated?.endsWith('%')) {
    const percent = toNumber(stated)
    return percent !== null && layerHeight !== null ? round((percent / 100) * layerHeight) : null
  }
  return facts.number(
    'first_layer_height',
    'initial_layer_print_height',
    /^;MINZ:([\d.]+)/,
    'first_layer_thickness_mm',
    /^;\s*z_layer_height_first_layer_mm\s*:\s*([\d.]+)/,
    'firstSliceHeight',
  )
}

/** Bambu Studio keeps one bed temperature per plate type; `curr_bed_type` says which applies. */
const BAMBU_PLATE_TEMPERATURE: Record<string, string> = {
  'Cool Plate': 'cool_plate_temp',
  'Engineering Plate': 'eng_plate_temp',
  'High Temp Plate': 'hot_plate_temp',
  'Textured PEI Plate': 'textured_plate_temp',
  'Textured Cool Plate': 'textured_cool_plate_temp',
  'Supertack Plate': 'supertack_plate_temp',
}

function commandValue(commands: string[], pattern: RegExp): number | null {
  for (const command of commands) {
    const value = toNumber(pattern.exec(command)?.[1] ?? null)
    if (value !== null && value > 0) return value
  }
  return null
}

/**
 * Object labels, from the first kind a file has: Klipper's EXCLUDE_OBJECT_DEFINE, M486 A"…",
 * PrusaSlicer's "; printing object …" comments, Cura's ";MESH:…". Slicers that write two kinds
 * name the same objects twice, in different spellings.
 */
function objectNames(comments: string[], commands: string[]): string[] {
  const kinds: Array<[lines: string[], pattern: RegExp]> = [
    [commands, /^EXCLUDE_OBJECT_DEFINE\b.*?\bNAME=(?:"([^"]*)"|'([^']*)'|(\S+))/i],
    [commands, /^M486\b.*?\bA(?:"((?:[^"\\]|\\.)*)"|(\S+))/i],
    [comments, /^;\s*printing object\s+(.+?)\s*$/],
    [comments, /^;MESH:(?!NONMESH$)(.+?)\s*$/],
  ]
  for (const [lines, pattern] of kinds) {
    const names = new Set<string>()
    for (const line of lines) {
      const match = pattern.exec(line)
      const name = match?.slice(1).find((group) => group !== undefined)
      if (name) names.add(name)
    }
    if (names.size > 0) return [...names]
  }
  return []
}

// ---- Thumbnails ---------------------------------------------------------------------------

function toThumbnail(raw: RawThumbnail, warnings: string[]): Thumbnail | null {
  const label = describe(raw)
  if (raw.base64.length !== raw.length) {
    warnings.push(`Thumbnail ${label} says it is ${raw.length} base64 characters long but has ${raw.base64.length}.`)
  }
  let bytes: Uint8Array
  try {
    bytes = Uint8Array.from(atob(raw.base64), (char) => char.charCodeAt(0))
  } catch {
    warnings.push(`Thumbnail ${label} is not valid base64; skipped.`)
    return null
  }
  const declared = /_(JPE?G|QOI)$/i.exec(raw.tag)?.[1]?.toLowerCase().replace('jpeg', 'jpg') ?? 'png'
  const actual = imageKind(bytes)
  if (actual === null || actual === 'gif' || actual === 'webp') {
    warnings.push(`Thumbnail ${label} is not a PNG, JPEG or QOI image; skipped.`)
    return null
  }
  if (actual !== declared)
    warnings.push(`Thumbnail ${label} is labelled ${declared.toUpperCase()} but is ${actual.toUpperCase()}.`)

  let thumbnail: Thumbnail | null
  try {
    thumbnail =
      actual === 'qoi'
        ? qoiToPng(bytes)
        : { ...imageSize(bytes, actual), contentType: actual === 'png' ? 'image/png' : 'image/jpeg', bytes }
  } catch (error) {
    warnings.push(
      `Thumbnail ${label} cannot be decoded (${error instanceof Error ? error.message : String(error)}); skipped.`,
    )
    return null
  }
  if (thumbnail.width !== raw.width || thumbnail.height !== raw.height) {
    warnings.push(
      `Thumbnail ${label} is ${thumbnail.width}x${thumbnail.height} pixels, not the size its header states.`,
    )
  }
  return thumbnail
}

function qoiToPng(bytes: Uint8Array): Thumbnail {
  const image = decodeQoi(bytes, { maxPixels: 2048 * 2048 })
  const png = encodePng({
    width: image.width,
    height: image.height,
    data: image.data,
    channels: image.channels,
    depth: 8,
  })
  return { width: image.width, height: image.height, contentType: 'image/png', bytes: png }
}

// ---- Secrets ------------------------------------------------------------------------------

/** Values of secret-bearing settings, long enough that replacing them elsewhere cannot garble the output. */
function secretValues(settings: Map<string, string>): string[] {
  const values = new Set<string>()
  for (const [key, value] of settings) {
    if (!isSecretKey(key)) continue
    for (const candidate of [value, value.replace(/^"(.*)"$/, '$1')]) if (candidate.length >= 4) values.add(candidate)
  }
  return [...values].sort((a, b) => b.length - a.length)
}

/** Replaces every secret value found in a string anywhere in `value` (thumbnail bytes aside). */
function scrubSecrets<T>(value: T, secrets: string[]): T {
  if (secrets.length === 0) return value
  const scrub = (item: unknown): unknown => {
    if (typeof item === 'string') return secrets.reduce((text, secret) => text.split(secret).join(REDACTED), item)
    if (Array.isArray(item)) return item.map(scrub)
    if (item instanceof Uint8Array || item === null || typeof item !== 'object') return item
    return Object.fromEntries(Object.entries(item).map(([key, entry]) => [key, scrub(entry)]))
  }
  return scrub(value) as T
}
