import type { Kysely } from 'kysely'
import { analysingFilesOf } from '../analysis/analysis-queue.js'
import type { VaultDatabase } from '../db/database.js'
import type { SearchIndex } from '../db/dialect.js'
import type { Database } from '../db/schema.js'
import { settleCover } from './cover.js'
import { normalizeSearchText } from './search-text.js'

/**
 * Recomputes what the library derives from a model's rows: its file count, G-code file count, total size and files awaiting analysis,
 * each G-code file's `slicer`, its cover (see `settleCover`) and its search document. Run it inside the transaction that
 * changed the model, after that transaction updated the model's row: on PostgreSQL the row
 * lock serialises concurrent refreshes of one model, so the last one sees every file.
 */
export async function refreshModel(
  db: Kysely<Database>,
  search: SearchIndex,
  modelId: string,
  now: string,
): Promise<void> {
  const model = await db
    .selectFrom('models')
    .select(['name', 'description'])
    .where('id', '=', modelId)
    .executeTakeFirst()
  if (!model) return
  const tags = await db
    .selectFrom('model_tags')
    .innerJoin('tags', 'tags.id', 'model_tags.tag_id')
    .select('tags.name')
    .where('model_tags.model_id', '=', modelId)
    .execute()
  const files = await db
    .selectFrom('files')
    .select(['id', 'original_name', 'size', 'format', 'metadata', 'slicer'])
    .where('model_id', '=', modelId)
    .execute()

  const words: string[] = [model.name, model.description, ...tags.map((tag) => tag.name)]
  for (const file of files) {
    const metadata = JSON.parse(file.metadata) as Record<string, unknown>
    words.push(file.original_name, ...metadataWords(metadata))
    const slicer = slicerOf(metadata)
    if (slicer !== (file.slicer ?? null))
      await db.updateTable('files').set({ slicer }).where('id', '=', file.id).execute()
  }
  await db
    .updateTable('models')
    .set({
      file_count: files.length,
      gcode_file_count: files.filter((file) => file.format === 'gcode').length,
      total_size: files.reduce((sum, file) => sum + Number(file.size), 0),
      analysing_files: await analysingFilesOf(db, modelId),
      indexed_at: now,
    })
    .where('id', '=', modelId)
    .execute()
  await settleCover(db, modelId)
  await search.put(db, modelId, normalizeSearchText(words.join(' ')))
}

/**
 * Indexes models the search index has not seen (`indexed_at` null): those stored before the
 * index existed. Runs at start-up; cheap when there are none.
 */
export async function indexPendingModels(database: VaultDatabase, now: () => string): Promise<number> {
  let done = 0
  for (;;) {
    const batch = await database.db
      .selectFrom('models')
      .select('id')
      .where('indexed_at', 'is', null)
      .limit(200)
      .execute()
    if (batch.length === 0) return done
    for (const { id } of batch) {
      await database.db.transaction().execute((trx) => refreshModel(trx, database.dialect.search, id, now()))
    }
    done += batch.length
  }
}

const text = (value: unknown): string[] => (typeof value === 'string' && value !== '' ? [value] : [])
const record = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : [])

function slicerOf(metadata: Record<string, unknown>): string | null {
  return text(record(record(metadata.gcode).slicer).name)[0] ?? null
}

/**
 * The searchable words of a file's extracted metadata: slicer, printer model, filament type
 * and name, sliced object names (G-code); title, designer, description and object names
 * (3MF); name, description, author, organisation and originating system (STEP).
 */
function metadataWords(metadata: Record<string, unknown>): string[] {
  const gcode = record(metadata.gcode)
  const filament = record(gcode.filament)
  const model = record(metadata.model)
  const step = record(metadata.step)
  return [
    ...text(slicerOf(metadata)),
    ...text(gcode.printer_model),
    ...text(filament.type),
    ...text(filament.name),
    ...list(gcode.objects).flatMap(text),
    ...text(model.title),
    ...text(model.designer),
    ...text(model.description),
    ...list(metadata.objects).flatMap((object) => text(record(object).name)),
    ...text(step.name),
    ...list(step.description).flatMap(text),
    ...list(step.author).flatMap(text),
    ...list(step.organization).flatMap(text),
    ...text(step.originating_system),
  ]
}
