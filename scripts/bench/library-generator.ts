/**
 * The generated benchmark library (issue 5), shared by the benchmarks that need a big one
 * (scripts/bench/library.ts, scripts/bench/library-first-cards.ts): the same models, files,
 * tags and collections on every run, from a seeded generator.
 */

import { randomBytes } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { type Insertable, type Kysely, sql } from 'kysely'
import { openPostgresDatabase } from '../../src/adapters/postgres/postgres-database.js'
import { openSqliteDatabase } from '../../src/adapters/sqlite/sqlite-database.js'
import type { VaultDatabase } from '../../src/core/db/database.js'
import { migrateToLatest } from '../../src/core/db/migrate.js'
import type { Database, FilesTable, ModelsTable } from '../../src/core/db/schema.js'
import { refreshModel } from '../../src/core/library/refresh-model.js'
import { seededRandom } from '../seeded-random.js'

// The same library on every run and both databases.
const random = seededRandom(5)
const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!
const between = (min: number, max: number) => min + Math.floor(random() * (max - min + 1))
const logUniform = (min: number, max: number) =>
  Math.round(Math.exp(Math.log(min) + random() * (Math.log(max) - Math.log(min))))
const capitalised = (word: string) => word[0]!.toUpperCase() + word.slice(1)

const realWords = `bracket mount holder case box clip hook gear knob stand cover lid base plate adapter spacer organizer
  tray shelf handle hinge cable clamp planter vase lamp shade dragon benchy cube calibration tower fan duct nozzle spool
  filament drawer cup coaster phone tablet headphone desk wall key chain tag sign label rack frame enclosure panel foot
  leg wheel pulley belt tensioner extruder hotend bed leveling probe camera raspberry arduino sensor button switch
  battery charger dock controller joystick miniature figure bust statue knight wizard orc elf terrain tile dungeon
  castle house tree rock skull mask helmet sword shield armor gauntlet puzzle toy car truck rocket boat plane whistle
  comb toothbrush soap dish hanger towel bottle opener funnel scoop measuring spoon bowl pot ring bracelet pendant earring`
  .split(/\s+/)
  .filter(Boolean)
const syllables = [
  'ka',
  'ro',
  'mi',
  'ten',
  'lo',
  'vu',
  'zar',
  'fi',
  'nel',
  'qua',
  'dre',
  'sto',
  'pi',
  'gar',
  'wen',
  'ul',
  'bri',
  'mo',
  'tas',
  'xen',
  'ly',
  'cor',
  'fe',
  'han',
]
/** ~3,000 distinct words, real ones first; drawn with a Zipf–Mandelbrot law (rank r ∝ 1/(r + 10)). */
export const vocabulary = (() => {
  const words = new Set(realWords)
  while (words.size < 3000) words.add(Array.from({ length: between(2, 4) }, () => pick(syllables)).join(''))
  return [...words]
})()
function zipfSampler(size: number, shift: number) {
  const cumulative: number[] = []
  let total = 0
  for (let rank = 1; rank <= size; rank++) {
    total += 1 / (rank + shift)
    cumulative.push(total)
  }
  return () => {
    const target = random() * total
    let low = 0
    let high = size - 1
    while (low < high) {
      const mid = (low + high) >> 1
      if (cumulative[mid]! < target) low = mid + 1
      else high = mid
    }
    return low
  }
}
const wordRank = zipfSampler(vocabulary.length, 10)
const word = () => vocabulary[wordRank()]!
const words = (min: number, max: number) => Array.from({ length: between(min, max) }, word)
/** The most frequent word and one of the least frequent: the two searches measured. */
export const commonWord = vocabulary[0]!
/** The second most frequent word: searched with the first. */
export const secondWord = vocabulary[1]!
export const rareWord = vocabulary[vocabulary.length - 1]!

export const tagNames = [...new Set(vocabulary.slice(40))]
  .slice(0, 500)
  .map((name, i) => (i % 3 === 0 ? capitalised(name) : name))
const tagRank = zipfSampler(tagNames.length, 5)
/** A mid-popularity tag (rank 20 of 500): the filtered list measured. */
export const filterTag = tagNames[19]!
/** The least popular tag: alone, with the rare word, and sorted by name. */
export const rareTag = tagNames.at(-1)!
export const collectionCount = 200

const slicers = [
  { name: 'PrusaSlicer', version: '2.8.1' },
  { name: 'OrcaSlicer', version: '2.1.1' },
  { name: 'BambuStudio', version: '01.09.07.52' },
  { name: 'Cura', version: '5.7.2' },
  { name: 'SuperSlicer', version: '2.5.59' },
]
const printers = [
  'Original Prusa MK4S',
  'Original Prusa MK3S',
  'Bambu Lab X1 Carbon',
  'Bambu Lab P1S',
  'Voron 2.4 350',
  'Creality Ender-3 Pro',
  'Ultimaker S5',
]
const filaments = [
  { type: 'PLA', name: 'Prusament PLA Galaxy Black' },
  { type: 'PETG', name: 'Prusament PETG Jet Black' },
  { type: 'ASA', name: 'Generic ASA' },
  { type: 'ABS', name: 'Bambu ABS' },
  { type: 'TPU', name: 'Overture TPU 95A' },
  { type: 'PLA', name: 'Polymaker PolyTerra PLA' },
]
const formats = [
  { format: 'stl', weight: 40, contentType: 'model/stl', min: 50e3, max: 30e6 },
  { format: '3mf', weight: 20, contentType: 'model/3mf', min: 100e3, max: 50e6 },
  { format: 'gcode', weight: 30, contentType: 'text/x.gcode', min: 200e3, max: 80e6 },
  { format: 'step', weight: 10, contentType: 'model/step', min: 50e3, max: 20e6 },
] as const
const pickFormat = () => {
  let roll = random() * 100
  for (const entry of formats) {
    roll -= entry.weight
    if (roll < 0) return entry
  }
  return formats[0]
}

function meshMetadata() {
  const size = [random() * 200, random() * 200, random() * 200].map((v) => Math.round(v * 100) / 100) as [
    number,
    number,
    number,
  ]
  const triangles = logUniform(12, 2_000_000)
  return {
    triangles,
    size,
    volume: Math.round(size[0] * size[1] * size[2] * 0.3),
    mesh: {
      triangles,
      bbox: { min: [0, 0, 0], max: size },
      size,
      volume: size[0] * size[1] * size[2] * 0.3,
      manifold: true,
    },
  }
}

function fileRow(modelId: string, modelName: string, createdAt: string): Insertable<FilesTable> {
  const kind = pickFormat()
  const stem = [...modelName.toLowerCase().split(' '), ...(random() < 0.5 ? words(1, 2) : [])].join('_')
  const id = crypto.randomUUID()
  const base = {
    id,
    sha256: randomBytes(32).toString('hex'),
    size: logUniform(kind.min, kind.max),
    model_id: modelId,
    format: kind.format,
    content_type: kind.contentType,
    parse_warnings: '[]',
    thumbnail_sha256: random() < 0.8 ? randomBytes(32).toString('hex') : null,
    thumbnail_content_type: 'image/png',
    uploaded_by: null,
    created_at: createdAt,
    mesh_triangles: null,
    mesh_size_x: null,
    mesh_size_y: null,
    mesh_size_z: null,
    mesh_volume: null,
  }
  const name = (ext: string) => ({ original_name: `${stem}.${ext}`, name_key: stem })
  switch (kind.format) {
    case 'gcode': {
      const slicer = pick(slicers)
      const filament = pick(filaments)
      const printer = pick(printers)
      const layer = pick([0.1, 0.15, 0.2, 0.28])
      const config: Record<string, string> = {
        printer_model: printer,
        layer_height: String(layer),
        first_layer_height: '0.2',
        nozzle_diameter: '0.4',
        filament_type: filament.type,
        filament_settings_id: filament.name,
        perimeters: String(between(2, 4)),
        fill_density: `${between(10, 40)}%`,
        fill_pattern: pick(['gyroid', 'grid', 'cubic']),
        support_material: pick(['0', '1']),
        temperature: String(between(200, 250)),
        bed_temperature: String(between(55, 100)),
        travel_speed: '200',
        perimeter_speed: '45',
        infill_speed: '80',
        retract_length: '0.8',
        brim_width: '0',
        skirts: '1',
        top_solid_layers: '5',
        bottom_solid_layers: '4',
      }
      return {
        ...base,
        ...name('gcode'),
        metadata: JSON.stringify({
          gcode: {
            slicer,
            estimated_time_s: between(300, 80_000),
            filament: {
              type: filament.type,
              name: filament.name,
              length_mm: between(500, 90_000),
              weight_g: between(2, 900),
              per_extruder: [],
            },
            layer_height_mm: layer,
            first_layer_height_mm: 0.2,
            layer_count: between(20, 1500),
            nozzle_diameter_mm: 0.4,
            printer_model: printer,
            objects: [stem, ...(random() < 0.3 ? [`${word()}_${word()}`] : [])],
            nozzle_temperature: Number(config.temperature),
            bed_temperature: Number(config.bed_temperature),
            max_layer_z: between(5, 250),
            config,
            thumbnails: [{ width: 220, height: 124, content_type: 'image/png' }],
            warnings: [],
          },
        }),
      }
    }
    case 'stl':
    case '3mf': {
      const mesh = meshMetadata()
      const extra =
        kind.format === '3mf'
          ? {
              objects: [{ name: capitalised(word()) }, { name: capitalised(word()) }],
              model: { title: modelName, designer: capitalised(word()), description: words(4, 10).join(' ') },
              slicer_config: null,
            }
          : {}
      return {
        ...base,
        ...name(kind.format),
        metadata: JSON.stringify({ mesh: mesh.mesh, ...extra }),
        mesh_triangles: mesh.triangles,
        mesh_size_x: mesh.size[0],
        mesh_size_y: mesh.size[1],
        mesh_size_z: mesh.size[2],
        mesh_volume: mesh.volume,
      }
    }
    case 'step':
      return {
        ...base,
        ...name('step'),
        metadata: JSON.stringify({
          step: {
            description: [words(3, 6).join(' ')],
            name: stem,
            timestamp: createdAt,
            author: [capitalised(word())],
            organization: [`${capitalised(word())} Works`],
            preprocessor: 'ST-DEVELOPER v20',
            originating_system: pick(['SOLIDWORKS 2024', 'Autodesk Fusion', 'FreeCAD 0.21', 'Onshape']),
            schema: ['AUTOMOTIVE_DESIGN'],
          },
        }),
      }
  }
}

const start = Date.parse('2023-11-21T00:00:00Z')
const span = Date.parse('2026-11-20T00:00:00Z') - start

/** Inserts rows in chunks small enough for SQLite's bound-parameter limit. */
async function insertChunked<T extends keyof Database>(
  trx: Kysely<Database>,
  table: T,
  rows: Insertable<Database[T]>[],
  chunk = 400,
): Promise<void> {
  for (let i = 0; i < rows.length; i += chunk)
    await trx
      .insertInto(table)
      .values(rows.slice(i, i + chunk) as never)
      .execute()
}

/**
 * Writes the library in transactions of `batch` models: models, files, tags and collection
 * memberships as plain inserts, then `refreshModel` for each model inside the same
 * transaction, exactly as ingest and edits do (file counts and sizes, slicer column, search
 * document).
 */
async function generate(database: VaultDatabase, modelCount: number): Promise<{ files: number; seconds: number }> {
  const { db, kind } = database
  const now = new Date().toISOString()
  const tagIds = tagNames.map(() => crypto.randomUUID())
  await insertChunked(
    db,
    'tags',
    tagNames.map((name, i) => ({ id: tagIds[i]!, name, name_key: name.toLowerCase(), created_at: now })),
  )
  const collectionIds = Array.from({ length: collectionCount }, () => crypto.randomUUID())
  await insertChunked(
    db,
    'collections',
    collectionIds.map((id, i) => {
      const name = `${capitalised(word())} ${capitalised(word())} ${i + 1}`
      return {
        id,
        name,
        name_key: name.toLowerCase(),
        description: words(3, 8).join(' '),
        created_at: now,
        updated_at: now,
      }
    }),
  )
  const collectionRank = zipfSampler(collectionCount, 20)
  const batch = 500
  let files = 0
  const began = performance.now()
  let reported = began
  for (let done = 0; done < modelCount; done += batch) {
    const models: Insertable<ModelsTable>[] = []
    const fileRows: Insertable<FilesTable>[] = []
    const modelTags: { model_id: string; tag_id: string }[] = []
    const memberships: { collection_id: string; model_id: string; added_at: string }[] = []
    for (let i = done; i < Math.min(done + batch, modelCount); i += 5) {
      // Blocks of five models share the file counts 1..5 in random order: three files per model exactly.
      const counts = [1, 2, 3, 4, 5].sort(() => random() - 0.5)
      for (let j = 0; j < 5 && i + j < modelCount; j++) {
        const id = crypto.randomUUID()
        const created = start + random() * span
        const createdAt = new Date(created).toISOString()
        const updatedAt = new Date(created + random() * (start + span - created)).toISOString()
        const name = [...words(2, 4).map(capitalised), ...(random() < 0.15 ? [`v${between(2, 9)}`] : [])].join(' ')
        models.push({
          id,
          name,
          description: `${capitalised(words(8, 20).join(' '))}.`,
          thumbnail_sha256: random() < 0.8 ? randomBytes(32).toString('hex') : null,
          thumbnail_content_type: 'image/png',
          created_by: null,
          created_at: createdAt,
          updated_at: updatedAt,
        })
        for (let f = 0; f < counts[j]!; f++) fileRows.push(fileRow(id, name, createdAt))
        for (const t of new Set(Array.from({ length: between(0, 5) }, tagRank)))
          modelTags.push({ model_id: id, tag_id: tagIds[t]! })
        const inCollections = random() < 0.6 ? (random() < 0.25 ? 2 : 1) : 0
        for (const c of new Set(Array.from({ length: inCollections }, collectionRank)))
          memberships.push({ collection_id: collectionIds[c]!, model_id: id, added_at: updatedAt })
      }
    }
    await db.transaction().execute(async (trx) => {
      await insertChunked(trx, 'models', models)
      await insertChunked(trx, 'files', fileRows, 200)
      await insertChunked(trx, 'model_tags', modelTags)
      await insertChunked(trx, 'collection_models', memberships)
      for (const model of models) await refreshModel(trx, database.dialect.search, model.id, now)
    })
    files += fileRows.length
    const total = done + models.length
    if (performance.now() - reported > 5000 || total === modelCount) {
      reported = performance.now()
      const rate = total / ((reported - began) / 1000)
      console.log(
        `  [${kind}] ${total.toLocaleString('en')} / ${modelCount.toLocaleString('en')} models, ${files.toLocaleString('en')} files, ${Math.round(rate)} models/s, ~${Math.round((modelCount - total) / rate)} s left`,
      )
    }
  }
  return { files, seconds: (performance.now() - began) / 1000 }
}

/**
 * Migrates a fresh database and writes `modelCount` generated models into it, then lets it settle
 * (`settleWrites`).
 */
export async function writeLibrary(
  database: VaultDatabase,
  modelCount: number,
): Promise<{ files: number; seconds: number }> {
  await migrateToLatest(database.db)
  const generated = await generate(database, modelCount)
  await settleWrites(database)
  return generated
}

/**
 * PostgreSQL is `VACUUM ANALYZE`d after a load or a migration that rewrote rows, which autovacuum
 * would otherwise do in the middle of the measurements (until then an index-only walk fetches
 * every walked row from the heap), and then checkpointed, so the dirty pages are not being written
 * out while the first requests are timed. SQLite needs neither.
 */
export async function settleWrites(database: VaultDatabase): Promise<void> {
  if (database.kind !== 'postgres') return
  await sql`vacuum analyze`.execute(database.db)
  await sql`checkpoint`.execute(database.db)
}

/** Opens the database a `VAULT_DATABASE_URL` names: `sqlite:<file>` (its folder is made) or a PostgreSQL URL. */
export function openDatabaseUrl(url: string, scratchDir: string): VaultDatabase {
  if (!url.startsWith('sqlite:'))
    return openPostgresDatabase(url, { scratchDir, onIdleError: (error) => console.error(error) })
  const file = url.slice('sqlite:'.length)
  mkdirSync(dirname(file), { recursive: true })
  return openSqliteDatabase(file, { scratchDir })
}
