import { hashing, putContentAddressed, type StoredContent } from '../blobs/put-content-addressed.js'
import { unprocessable, uploadAborted, VaultError } from '../errors.js'
import { type ByteSource, FormatError } from '../formats/types.js'
import { openZip, type ZipEntry, type ZipReader } from '../formats/zip-reader.js'
import { addToCollection, ensureCollection } from '../library/collections.js'
import { chooseModelCover, updateModel } from '../library/models.js'
import { type FileRecord, type ModelRecord, toModelRecord } from '../library/records.js'
import { baseName, skipReason } from './archive-entries.js'
import {
  type ArchiveModelPlan,
  type CheckPackageMetadata,
  type PackageMetadata,
  planArchiveModels,
} from './datapackage.js'
import { smallFileBytes } from './extractor.js'
import { assertModelExists, registerUpload, uuidOfHex } from './ingest.js'
import type { ArchiveIngestDeps } from './ingest-deps.js'
import { folderInModel, inSendingOrder } from './model-plan.js'
import { storedForm } from './stored-form.js'

export interface ArchiveEntryResult {
  path: string
  outcome: 'stored' | 'duplicate' | 'skipped'
  /** Why a skipped entry was not stored. */
  reason: string | null
  file: FileRecord | null
  modelId: string | null
}

export interface ArchiveResult {
  /** Every model the archive's files went to or were found in, in the order first met. */
  models: { model: ModelRecord; modelCreated: boolean }[]
  entries: ArchiveEntryResult[]
  stored: number
  duplicates: number
  skipped: number
}

/**
 * The limits of an uploaded zip. Each entry is registered as one upload, about 18 ms apiece on
 * SQLite and up to 50 ms on PostgreSQL on a 2-core machine, so 1,000 entries answer in 20-50 s
 * (larger imports go through the folder import). Any one entry may be as large as an upload
 * (larger ones are skipped, not refused). The 3MF compression ratio applies to large entries
 * and to the archive as a whole.
 */
const maxEntries = 1_000
const maxCompressionRatio = 200

/**
 * Unpacks a zip into one model, or one per folder of a multi-model package (see
 * `planArchiveModels`). Each entry is streamed into the blob store and registered as a single
 * upload would be (deduplicated, read in the extraction pool); the first registered entry of
 * a model makes it (or finds it, when the vault holds that file already) and the rest join it,
 * unless `modelId` names the model. Each file keeps its folder inside the model. Entries that are not files of a model are skipped with a
 * reason. A package's name, description, tags and collections go to the models it creates.
 *
 * Refuses the whole zip, storing nothing, with 422 `unsafe_file` (bomb ratios, path tricks,
 * overlapping entries, too many entries), `unreadable_archive` (not a zip, truncated), or
 * `validation_failed` (no entries, a bad `datapackage.json`, `modelId` with several models).
 */
export async function ingestArchive(
  deps: ArchiveIngestDeps,
  source: ByteSource,
  upload: {
    filename: string
    modelId?: string | undefined
    /** The name of the one model the zip makes, instead of its folder's or its own. */
    modelName?: string | undefined
    /** The folder of the model its files go in (their own folders below it). */
    folder?: string | undefined
    uploadedBy: string
    checkMetadata: CheckPackageMetadata
    /** The client connection: unpacking stops between entries once it is gone. */
    signal?: AbortSignal
  },
): Promise<ArchiveResult> {
  const started = deps.clock.now().getTime()
  const zip = await readingArchive(() =>
    openZip(source, { maxEntries, maxEntryBytes: Number.MAX_SAFE_INTEGER, maxCompressionRatio }),
  )
  checkArchiveSize(zip, source.size)
  const stem = baseName(upload.filename).replace(/\.zip$/i, '') || 'archive'
  const planned = await readingArchive(() => planArchiveModels(zip, stem, upload.checkMetadata))
  if (upload.modelName !== undefined && planned.length > 1)
    throw unprocessable(
      `The zip is a package of ${planned.length} models (one folder each); model_name names one: upload it without model_name.`,
      [{ path: 'body.model_name', message: 'names one model, the zip holds several' }],
    )
  const { modelName } = upload
  const plans = modelName === undefined ? planned : planned.map((plan) => ({ ...plan, name: modelName }))
  if (upload.modelId !== undefined && plans.length > 1)
    throw unprocessable(
      `The zip is a package of ${plans.length} models (one folder each); model_id names one: upload it without model_id.`,
      [{ path: 'body.model_id', message: 'names one model, the zip holds several' }],
    )
  if (upload.modelId !== undefined) await assertModelExists(deps, upload.modelId)
  const targets = new Map<ArchiveModelPlan, { id: string; created: boolean }>()
  if (upload.modelId !== undefined) targets.set(plans[0] as ArchiveModelPlan, { id: upload.modelId, created: false })
  const entries: ArchiveEntryResult[] = []
  // Printable parts first: a model is made (or found) by its meshes, G-code and CAD files, never
  // by a picture, a licence text or another file (an SVG logo) that many models may share.
  const partsFirst = inSendingOrder(zip.entries, (entry) => entry.name)
  for (const entry of partsFirst) {
    if (upload.signal?.aborted) throw uploadAborted()
    const plan = plans.find((candidate) => entry.name.startsWith(candidate.folder))
    entries.push(await unpackEntry(deps, zip, entry, plan, targets, upload))
  }
  for (const [plan, target] of targets) {
    if (!target.created) continue
    await applyMetadata(deps, target.id, plan.metadata)
    const cover = entries.find((entry) => entry.file?.role === 'image' && plan.resources.get(entry.path)?.cover)
    if (cover?.file) await chooseModelCover(deps, target.id, cover.file.id)
  }

  const created = new Set([...targets.values()].filter((target) => target.created).map((target) => target.id))
  const modelIds = [...new Set(entries.flatMap((entry) => (entry.modelId ? [entry.modelId] : [])))]
  const count = (outcome: ArchiveEntryResult['outcome']) => entries.filter((entry) => entry.outcome === outcome).length
  const rows = modelIds.length
    ? await deps.database.db.selectFrom('models').selectAll().where('id', 'in', modelIds).execute()
    : []
  const result: ArchiveResult = {
    // In the order first met; a model deleted since its files went in is not listed.
    models: modelIds.flatMap((id) => {
      const row = rows.find((candidate) => candidate.id === id)
      return row ? [{ model: toModelRecord(row), modelCreated: created.has(id) }] : []
    }),
    entries,
    stored: count('stored'),
    duplicates: count('duplicate'),
    skipped: count('skipped'),
  }
  deps.logger.info('archive ingested', {
    entries: entries.length,
    stored: result.stored,
    duplicates: result.duplicates,
    skipped: result.skipped,
    models: modelIds.length,
    new_models: created.size,
    ms: deps.clock.now().getTime() - started,
  })
  return result
}

/** The whole archive may not declare more than the ratio allows, however small its entries. */
function checkArchiveSize(zip: ZipReader, archiveBytes: number): void {
  const declared = zip.entries.reduce((sum, entry) => sum + entry.size, 0)
  if (zip.entries.length === 0)
    throw unprocessable('The zip holds no files.', [{ path: 'body.file', message: 'is an empty archive' }])
  if (declared > maxCompressionRatio * archiveBytes)
    throw refused(
      new FormatError(
        'unsafe',
        `its entries declare ${declared} bytes in all from ${archiveBytes}: a ratio above ${maxCompressionRatio}:1.`,
      ),
    )
}

/** Runs a read of the archive as a whole, turning a format error into the 422 that refuses it. */
async function readingArchive<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read()
  } catch (error) {
    throw error instanceof FormatError ? refused(error) : error
  }
}

const refused = (error: FormatError) =>
  error.kind === 'unsafe'
    ? new VaultError('unsafe_file', `The zip was refused: ${error.message}`)
    : new VaultError('unreadable_archive', `The file is not a readable zip: ${error.message}`)

async function unpackEntry(
  deps: ArchiveIngestDeps,
  zip: ZipReader,
  entry: ZipEntry,
  plan: ArchiveModelPlan | undefined,
  targets: Map<ArchiveModelPlan, { id: string; created: boolean }>,
  upload: { uploadedBy: string; folder?: string | undefined },
): Promise<ArchiveEntryResult> {
  const skip = (reason: string): ArchiveEntryResult => ({
    path: entry.name,
    outcome: 'skipped',
    reason,
    file: null,
    modelId: null,
  })
  const reason = skipReason(entry, deps.maxUploadBytes)
  if (reason) return skip(reason)
  // Only clutter lies outside the folders of a multi-model package.
  if (!plan) return skip('outside the folders of the package')
  if (entry === plan.descriptor) return skip('the package description: read for the model, not stored')
  const resource = plan.resources.get(entry.name)
  const filename = resource?.originalName ?? baseName(entry.name)

  // The package's hash is of the bytes in the zip, before G-code secrets are redacted.
  const expected = resource?.sha256
  const hash = expected ? deps.createSha256() : undefined
  let stored: StoredContent
  try {
    const raw = await zip.openEntry(entry)
    const bytes = hash ? raw.pipeThrough(hashing(hash)) : raw
    stored = await putContentAddressed(deps.blobs, deps.createSha256, storedForm(bytes, filename), {
      keepUpTo: smallFileBytes,
    })
  } catch (error) {
    if (error instanceof FormatError) return skip(`refused: ${error.message}`)
    throw error
  }
  const sha256 = hash?.digestHex()
  // Bytes stored before the mismatch showed stay unreferenced: the garbage collector takes them.
  if (expected && sha256 !== expected)
    return skip(`its bytes hash to sha256:${sha256}, not the sha256:${expected} the package lists`)

  const target = targets.get(plan)
  try {
    const result = await deps.registrations.run(stored.size, () =>
      registerUpload(deps, stored, {
        filename,
        folder: [upload.folder, resource?.folder ?? folderInModel(plan.root, entry.name)].filter(Boolean).join('/'),
        uploadedBy: upload.uploadedBy,
        ...(target
          ? { modelId: target.id }
          : { newModelName: plan.name, newModelId: archiveModelId(deps, plan, zip.entries) }),
      }),
    )
    if (!target) targets.set(plan, { id: result.model.id, created: result.modelCreated })
    return {
      path: entry.name,
      outcome: result.duplicate ? 'duplicate' : 'stored',
      reason: null,
      file: result.file,
      modelId: result.model.id,
    }
  } catch (error) {
    // Refused as a single upload would be (an unsafe 3MF inside, the model deleted meanwhile).
    if (error instanceof VaultError && error.status < 500) return skip(error.message)
    throw error
  }
}

/**
 * The id of the model a zip makes, from what it holds (each entry's path, size and CRC-32 as the
 * central directory states them) and the model's name: the same zip uploaded twice, or twice at
 * once, fills one model, while a remix holding some of the same files makes a model of its own.
 */
function archiveModelId(
  deps: Pick<ArchiveIngestDeps, 'createSha256'>,
  plan: ArchiveModelPlan,
  entries: readonly ZipEntry[],
) {
  const hash = deps.createSha256()
  const held = entries
    .filter((entry) => entry.name.startsWith(plan.folder) && !entry.isDirectory)
    .map((entry) => [entry.name, entry.size, entry.crc32])
    .sort(([a], [b]) => (String(a) < String(b) ? -1 : 1))
  hash.update(new TextEncoder().encode(JSON.stringify([plan.name, held])))
  return uuidOfHex(hash.digestHex())
}

async function applyMetadata(deps: ArchiveIngestDeps, modelId: string, metadata: PackageMetadata): Promise<void> {
  const { description, tags, collections = [], creator, sourceUrl, license } = metadata
  const changes = { description, tags, creator, source_url: sourceUrl, license }
  if (Object.values(changes).some((value) => value !== undefined)) await updateModel(deps, modelId, changes)
  for (const name of collections) {
    const collection = await ensureCollection(deps.database.db, deps.clock, name)
    await addToCollection(deps.database.db, deps.clock, collection.id, modelId)
  }
}
